"""A word-level diff of two texts, for showing two facts side by side.

Texts are split into words and the whitespace between them (so joining the pieces of
a side gives back its text exactly); words are compared case-sensitively with
``difflib``'s matcher, and whitespace runs follow the words around them.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

__all__ = ["Piece", "word_diff"]

_PIECES = re.compile(r"\s+|\S+")
#: above this many words a side is shown without a diff (the matcher is quadratic at worst)
MAX_WORDS = 5_000


@dataclass(frozen=True, slots=True)
class Piece:
    text: str
    kind: str  # "same", "removed" (only in a), "added" (only in b)


def _split(text: str) -> list[str]:
    return _PIECES.findall(text)


def word_diff(a: str, b: str) -> tuple[list[Piece], list[Piece]]:
    """The pieces of ``a`` (same/removed) and of ``b`` (same/added)."""
    pa, pb = _split(a), _split(b)
    wa = [i for i, p in enumerate(pa) if not p.isspace()]
    wb = [i for i, p in enumerate(pb) if not p.isspace()]
    if len(wa) > MAX_WORDS or len(wb) > MAX_WORDS:
        return [Piece(a, "same")] if a else [], [Piece(b, "same")] if b else []
    kinds_a = ["removed"] * len(pa)
    kinds_b = ["added"] * len(pb)
    matcher = difflib.SequenceMatcher(None, [pa[i] for i in wa], [pb[i] for i in wb], autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            kinds_a[wa[block.a + k]] = "same"
            kinds_b[wb[block.b + k]] = "same"
    return _merge(pa, kinds_a), _merge(pb, kinds_b)


def _merge(pieces: list[str], kinds: list[str]) -> list[Piece]:
    """Whitespace takes the kind of the word before it when both neighbours changed,
    else "same"; neighbouring pieces of one kind are joined."""
    out: list[Piece] = []
    for i, text in enumerate(pieces):
        kind = kinds[i]
        if text.isspace():
            before = kinds[i - 1] if i > 0 else "same"
            after = kinds[i + 1] if i + 1 < len(pieces) else "same"
            kind = before if before == after and before != "same" else "same"
        if out and out[-1].kind == kind:
            out[-1] = Piece(out[-1].text + text, kind)
        else:
            out.append(Piece(text, kind))
    return out
