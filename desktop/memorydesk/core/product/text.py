"""Text helpers that behave like the product's Dart string operations.

The product runs on the Dart VM, so "lower-case", "trim", "whitespace" and "length"
mean what they mean there, not what Python's defaults mean:

- ``\\s`` in the product's regular expressions is the ECMAScript set (``JS_WHITESPACE``):
  it includes U+FEFF but not U+001C..U+001F or U+0085, unlike Python's ``str.split()``.
- ``String.trim`` strips Unicode White_Space plus U+FEFF (``DART_TRIM_CHARS``).
- ``toLowerCase`` on the VM maps each character on its own (simple case mapping):
  ``İ`` becomes ``i`` and a final ``Σ`` becomes ``σ``, where Python's ``str.lower``
  gives ``i̇`` and ``ς``. ``dart_lower`` reproduces the VM.
- ``String.length`` counts UTF-16 code units (``utf16_len``).
- ``double.toStringAsFixed`` rounds the exact binary value of the double; only an
  exact decimal tie rounds away from zero (``format_confidence``).
"""

from __future__ import annotations

import functools
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Final

__all__ = [
    "CONTRADICTION_JACCARD",
    "DART_TRIM_CHARS",
    "JS_WHITESPACE",
    "SNIPPET_UNITS",
    "candidate_text",
    "dart_lower",
    "dart_trim",
    "format_confidence",
    "is_remention",
    "jaccard",
    "remention_key",
    "snippet",
    "split_whitespace",
    "token_jaccard",
    "utf16_len",
    "whitespace_tokens",
]

#: Body of a regex character class matching ECMAScript ``\s`` (Dart's RegExp).
JS_WHITESPACE: Final = (
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)

#: The characters Dart's ``String.trim`` removes (Unicode 6.3 White_Space + BOM).
DART_TRIM_CHARS: Final = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

#: Token Jaccard at or above which two same-topic facts contradict (and harmonize clusters).
CONTRADICTION_JACCARD: Final = 0.5

#: Where the dispatch preamble cuts a fact's content, in UTF-16 code units.
SNIPPET_UNITS: Final = 200

_WS_RUN = re.compile(f"[{JS_WHITESPACE}]+")
_CAPITAL_DOTTED_I = "\u0130"
_CAPITAL_SIGMA = "\u03a3"


def dart_lower(text: str) -> str:
    """Lower-case as the Dart VM does: one character at a time, no context rules."""
    if _CAPITAL_DOTTED_I not in text and _CAPITAL_SIGMA not in text:
        return text.lower()
    return "".join("i" if ch == _CAPITAL_DOTTED_I else ch.lower() for ch in text)


def dart_trim(text: str) -> str:
    """Strip leading and trailing whitespace as Dart's ``String.trim`` does."""
    return text.strip(DART_TRIM_CHARS)


def split_whitespace(text: str) -> list[str]:
    """Non-empty pieces of ``text`` split on runs of ECMAScript whitespace."""
    return [piece for piece in _WS_RUN.split(text) if piece]


def whitespace_tokens(text: str) -> frozenset[str]:
    """The set of lower-cased whitespace-separated tokens of ``text``."""
    if len(text) <= _TOKENS_KEPT_CHARS:
        return _kept_tokens(text)  # MMR asks again for the same facts search after search
    return frozenset(split_whitespace(dart_lower(text)))


#: Texts up to this long keep their tokens (at most ``maxsize`` of them: a bounded memory).
_TOKENS_KEPT_CHARS = 2000


@functools.lru_cache(maxsize=8192)
def _kept_tokens(text: str) -> frozenset[str]:
    return frozenset(split_whitespace(dart_lower(text)))


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    """|A ∩ B| / |A ∪ B|, and 0.0 when either set is empty."""
    if not a or not b:
        return 0.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


def token_jaccard(a: str, b: str) -> float:
    """Jaccard of the lower-cased whitespace tokens (contradictions, harmonize, MMR)."""
    return jaccard(whitespace_tokens(a), whitespace_tokens(b))


def candidate_text(topic: str, content: str) -> str:
    """The text a recall candidate is compared on (and embedded from): ``topic content``."""
    return f"{topic} {content}"


def remention_key(content: str) -> str:
    """Normalised content for re-mention detection: trimmed, then lower-cased."""
    return dart_lower(dart_trim(content))


def is_remention(existing_content: str, new_content: str) -> bool:
    """Whether writing ``new_content`` re-mentions a fact holding ``existing_content``."""
    return remention_key(existing_content) == remention_key(new_content)


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the way Dart's ``String.length`` counts."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def snippet(content: str, limit: int = SNIPPET_UNITS) -> str:
    """Trimmed content; if longer than ``limit`` UTF-16 units, its first ``limit`` units + ``…``.

    The product cuts by code unit, so an emoji can be split in half. A half pair
    cannot travel as UTF-8 (Dart's encoder sends U+FFFD for it), so it becomes
    U+FFFD here: the same text the agent receives, and the same length.
    """
    body = dart_trim(content)
    if utf16_len(body) <= limit:
        return body
    units = body.encode("utf-16-le", "surrogatepass")[: 2 * limit]
    return units.decode("utf-16-le", "replace") + "…"


def format_confidence(value: float) -> str:
    """One decimal, as Dart's ``toStringAsFixed(1)``.

    Rounds the double's exact binary value to the nearest tenth; only an exact tie
    (0.25, 0.75) rounds away from zero. So 0.25 → "0.3", but 0.35 → "0.3" and
    0.15 → "0.1", because those doubles lie just below the tie, while 0.45 → "0.5"
    and 0.55 → "0.6" lie just above it. Python's ``f"{x:.1f}"`` differs only on exact
    ties (it gives "0.2" for 0.25).
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def one_line(text: str | None, limit: int = 300) -> str:
    """``text`` on one line (runs of whitespace as one space), cut at ``limit`` characters with ``…``."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
