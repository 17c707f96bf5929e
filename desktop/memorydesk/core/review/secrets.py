"""Secrets in memory text, found by detect-secrets' own plugins and filters.

detect-secrets scans a line with each plugin (AWS, GitHub, GitLab, Slack, Stripe, OpenAI,
JWT, private keys, passwords in URLs, keyword assignments, high-entropy strings in
quotes, …) and drops what its heuristic filters call a false positive (UUIDs, sequential
strings, templates, indirect references). Each line is scanned as YAML-like text, so
``password: x`` and ``API_KEY=x`` count as assignments. A cheap test first keeps the
many lines that cannot hold a secret (no long token, no keyword, no quotes, no URL
credentials) away from the plugins; the public-IP plugin is left out (an address is not a
secret). The secret is only ever returned masked.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from memorydesk.core.review.mask import excerpt, mask

_FILENAME = "memory.yaml"
_DISABLED = {"IPPublicDetector"}
_KEYWORDS = ("passw", "pwd", "secret", "token", "api_key", "api-key", "apikey", "auth_key", "auth-key",
             "access_key", "access-key", "credential", "private key", "accountkey")
_ASSIGNED = re.compile(r"(?:passw|pwd|secret|token|api[_-]?key|apikey|auth[_-]?key|access[_-]?key|credential"
                       r"|accountkey)[\w-]*[\"']?\s*[:=]")
_URL_CREDENTIALS = re.compile(r"://[^\s/@]*@")
_QUOTED = re.compile(r"[\"'][^\"'\s]{10,}[\"']")
_LONG = re.compile(r"[A-Za-z0-9_\-+/=.]{16,}")
_DIGIT, _LETTER = re.compile(r"\d"), re.compile(r"[A-Za-z]")
_TOKEN_CHARS = re.compile(r"[^\s\"'`<>()\[\]{},;]+")
MAX_LINE = 4000  # detect-secrets' regexes on a longer line: cut into pieces this long


@dataclass(frozen=True)
class SecretHit:
    type: str  # detect-secrets' name for it, e.g. "AWS Access Key"
    plugin: str
    start: int
    end: int
    masked: str
    excerpt: str


@lru_cache(maxsize=1)
def _plugins():
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    return sorted(cls.__name__ for cls in get_mapping_from_secret_type_to_class().values()
                  if cls.__name__ not in _DISABLED)


def plugin_names() -> list[str]:
    """The detect-secrets plugins the review runs."""
    return list(_plugins())


_LOCK = threading.Lock()
_configured = False


def _scan(lines: list[tuple[int, str]]):
    """detect-secrets' line scan (its settings are process-wide: set once, scans one at a time)."""
    global _configured
    from detect_secrets.core.scan import _process_line_based_plugins
    from detect_secrets.settings import configure_settings_from_baseline

    with _LOCK:
        if not _configured:
            configure_settings_from_baseline({"plugins_used": [{"name": n} for n in _plugins()]})
            _configured = True
        return list(_process_line_based_plugins(lines, _FILENAME))


def _pieces(text: str) -> Iterator[tuple[int, str]]:
    at = 0
    for line in text.splitlines(keepends=True):
        for cut in range(0, max(len(line), 1), MAX_LINE):
            piece = line[cut:cut + MAX_LINE]
            if _could_hold(piece):
                yield at + cut, piece
        at += len(line)


def _could_hold(text: str) -> bool:
    """Whether any plugin could match: a keyword, URL credentials, a quoted string, or a long
    token with a piece mixing letters and digits (every token format the plugins know has one)."""
    lowered = text.lower()
    if "private key" in lowered or (any(k in lowered for k in _KEYWORDS) and _ASSIGNED.search(lowered)):
        return True  # the keyword plugin needs an assignment (``password: x``, ``API_KEY=x``)
    if "://" in text and "@" in text and _URL_CREDENTIALS.search(text):
        return True
    if ('"' in text or "'" in text) and _QUOTED.search(text):
        return True
    return any(_token_like(t) for t in _LONG.findall(text))


_PARTS = re.compile(r"[-_./:+=]")


def _token_like(token: str) -> bool:
    """A long run that could be a key: a piece of eight or more characters mixing letters and digits,
    or forty characters in one piece (a slug such as ``audit-store-cell-04-rollout`` is neither)."""
    for part in _PARTS.split(token):
        if len(part) >= 40 or (len(part) >= 8 and _DIGIT.search(part) and _LETTER.search(part)):
            return True
    return False


def find_secrets(text: str) -> list[SecretHit]:
    """Every secret detect-secrets finds in ``text``, masked, one per (type, place)."""
    if not text or not _could_hold(text):
        return []
    pieces = list(_pieces(text))
    if not pieces:
        return []
    found = _scan([(n + 1, piece.rstrip("\r\n")) for n, (_at, piece) in enumerate(pieces)])
    out: list[SecretHit] = []
    seen: set[tuple[str, int]] = set()
    for secret in found:
        offset, piece = pieces[secret.line_number - 1]
        value = (secret.secret_value or "").strip(" \t=:\"'")
        where = piece.find(value) if value else -1
        if where < 0:
            continue
        start, end = _whole_token(piece, where, where + len(value))
        if (secret.type, offset + start) in seen:
            continue
        seen.add((secret.type, offset + start))
        token = piece[start:end]
        out.append(SecretHit(secret.type, _plugin_of(secret.type), offset + start, offset + end, mask(token),
                             excerpt(text, offset + start, offset + end, replace=(offset + start, offset + end,
                                                                                   mask(token)))))
    return _most_specific(out)


_GENERIC = ("KeywordDetector", "Base64HighEntropyString", "HexHighEntropyString", "BasicAuthDetector")


def _most_specific(hits: list[SecretHit]) -> list[SecretHit]:
    """One hit per stretch of text: a named format (AWS, Stripe, …) over a keyword or entropy guess."""
    ranked = sorted(hits, key=lambda h: (h.plugin in _GENERIC, _GENERIC.index(h.plugin) if h.plugin in _GENERIC else 0))
    kept: list[SecretHit] = []
    for h in ranked:
        if not any(h.start < k.end and k.start < h.end for k in kept):
            kept.append(h)
    return sorted(kept, key=lambda h: h.start)


def _whole_token(line: str, start: int, end: int) -> tuple[int, int]:
    """Widen a plugin's match to the whole token (GitHub's plugin reports only ``ghp``)."""
    for m in _TOKEN_CHARS.finditer(line):
        if m.start() <= start < m.end():
            if end - start < 8:  # a prefix only (GitHub's plugin reports ``ghp``): the whole token
                return start, max(end, m.end())
            return start, end
    return start, end


@lru_cache(maxsize=64)
def _plugin_of(secret_type: str) -> str:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    cls = get_mapping_from_secret_type_to_class().get(secret_type)
    return cls.__name__ if cls is not None else ""
