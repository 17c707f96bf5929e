"""Where in an item's text a finding lies, found again from what the finding kept (its rule and
masked excerpt), and the stretch a person removes for it: a piece of personal data itself; an
injected instruction's line (a note's or working item's ``- …`` line), or, in a line of several
sentences, its sentence. The finding keeps no offsets (the text may have changed since the
scan): a finding found nowhere any more gives None, and nothing is removed.

``text`` is the item's fields as the scan joined them (a fact's topic, a line break, its
content; a note's or working item's content); the masks are the scan's
(``browse.review.text``: every secret, and the personal data outside them).
"""

from __future__ import annotations

import re
from typing import Any

from memorydesk.core.review.injection import find_injection
from memorydesk.core.review.mask import excerpt
from memorydesk.core.review.personal import find_personal
from memorydesk.core.review.secrets import find_secrets, secret_spans

Span = tuple[int, int, str]
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
WHAT = {"injection": "injected instruction", "personal_data": "personal data"}


def _masks(text: str) -> list[Span]:
    secrets = find_secrets(text)
    personal = [h for h in find_personal(text) if not any(h.start < s.end and s.start < h.end for s in secrets)]
    return [(h.start, h.end, h.masked) for h in secrets] + [(h.start, h.end, h.masked) for h in personal]


def _hit(text: str, kind: str, evidence: dict[str, Any]) -> tuple[int, int] | None:
    """The finding's own span in ``text``: the hit whose rule and excerpt are the finding's."""
    rule, shown = evidence.get("rule"), evidence.get("excerpt")
    if kind == "personal_data":
        masks = _masks(text)
        taken = [(s, e) for s, e, _m in masks]
        for h in find_personal(text):
            if h.type == rule and (h.start, h.end) in taken and excerpt(text, h.start, h.end, masks=masks) == shown:
                return h.start, h.end
        return None
    if kind != "injection":
        return None
    if rule == "model":  # the classifier's sentence: found again by its excerpt
        masks = secret_spans(text)
        for start, end in _pieces(text):
            if excerpt(text, start, end, around=20, masks=masks) == shown:
                return start, end
        return None
    masks = _masks(text)
    for h in find_injection(text):
        if h.rule == rule and excerpt(text, h.start, h.end, masks=masks) == shown:
            return h.start, h.end
    return None


def _pieces(text: str) -> list[tuple[int, int]]:
    """Every line of ``text`` and every sentence of a line (start, end), blanks trimmed."""
    out, at = [], 0
    for line in text.split("\n"):
        out.append((at, at + len(line)))
        pos = 0
        for part in _SENTENCE_END.split(line):
            where = line.find(part, pos)
            if part.strip() and part != line:
                out.append((at + where, at + where + len(part)))
            pos = where + len(part)
        at += len(line) + 1
    return [(s + (len(text[s:e]) - len(text[s:e].lstrip())), e - (len(text[s:e]) - len(text[s:e].rstrip())))
            for s, e in out if text[s:e].strip()]


def removal(text: str, kind: str, evidence: dict[str, Any]) -> Span | None:
    """(start, end, what) a person removes for the finding in ``text``, or None when it is not
    there any more: personal data itself; an injected instruction's sentence when its line holds
    others, else its line (a list line's ``- `` kept, so the note still reads as a list)."""
    found = _hit(text, kind, evidence)
    if found is None:
        return None
    start, end = found
    if kind == "personal_data":
        return start, end, WHAT[kind]
    lo = text.rfind("\n", 0, start) + 1
    hi = text.find("\n", end)
    hi = len(text) if hi < 0 else hi
    sentences = [(s, e) for s, e in _pieces(text[lo:hi]) if (s, e) != (0, hi - lo)]
    within = [(lo + s, lo + e) for s, e in sentences if lo + s <= start and end <= lo + e]
    if within:
        return within[0][0], within[0][1], WHAT[kind]
    bullet = re.match(r"\s*(?:[-*•]|\d+[.)])\s+", text[lo:hi])
    return lo + (bullet.end() if bullet else 0), hi, WHAT[kind]


__all__ = ["WHAT", "removal"]
