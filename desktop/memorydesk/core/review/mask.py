"""Showing what was found without showing it: secrets masked whole, hidden characters made visible.

One rule for every place a text from memory is shown outside the item itself (the review's
excerpts and evidence, the history's summaries, command output, exports): ``masked(text,
spans)`` puts a mask in place of every secret span, whole — a span that a window cuts
through is masked too, so no character of a secret is shown, not its first or last few
(``secrets.mask_secrets`` finds the spans and masks them in one call).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

Span = tuple[int, int, str]  # start, end, what is shown in its place


def mask(secret: str, label: str = "secret") -> str:
    """What is shown in place of a secret: what it is and its length, none of its characters."""
    return f"⟦{label} · {len(secret)} chars⟧"


def mask_personal(value: str) -> str:
    """Personal data (a phone number, an identifier): the last two characters and the length."""
    if len(value) <= 4:
        return "•" * len(value)
    return f"•••{value[-2:]} ({len(value)} chars)"


def visible(ch: str) -> str:
    return f"⟨U+{ord(ch):04X}⟩"


def name_of(ch: str) -> str:
    return unicodedata.name(ch, f"U+{ord(ch):04X}")


def _ordered(spans: Iterable[Span]) -> list[Span]:
    out: list[Span] = []
    for start, end, shown in sorted(spans, key=lambda s: (s[0], -s[1])):
        if out and start < out[-1][1]:  # overlapping: one mask over both
            prev = out[-1]
            out[-1] = (prev[0], max(prev[1], end), prev[2])
            continue
        out.append((start, end, shown))
    return out


def excerpt(text: str, start: int, end: int, *, around: int = 40, masks: Iterable[Span] = ()) -> str:
    """The text around ``start:end`` on one line, with every invisible or control character
    made visible and every span in ``masks`` replaced whole by what it shows (a span the
    window cuts through included: the mask stands for all of it)."""
    lo, hi = max(0, start - around), min(len(text), end + around)
    spans = [s for s in _ordered(masks) if s[0] < hi and lo < s[1]]
    out = []
    i = lo
    k = 0
    while i < hi:
        while k < len(spans) and spans[k][1] <= i:
            k += 1
        if k < len(spans) and spans[k][0] <= i:
            out.append(spans[k][2])
            i = spans[k][1]
            k += 1
            continue
        ch = text[i]
        out.append(" " if ch in "\n\r\t" else visible(ch) if _invisible(ch) else ch)
        i += 1
    return ("…" if lo else "") + "".join(out) + ("…" if hi < len(text) else "")


def masked(text: str, masks: Iterable[Span]) -> str:
    """``text`` whole with every span in ``masks`` replaced by what it shows."""
    spans = _ordered(masks)
    if not spans:
        return text
    out, at = [], 0
    for start, end, shown in spans:
        out.append(text[at:start])
        out.append(shown)
        at = end
    out.append(text[at:])
    return "".join(out)


def _invisible(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat in ("Cf", "Cc", "Co", "Cn", "Zl", "Zp") or (cat == "Zs" and ch != " ")
