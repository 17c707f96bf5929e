"""The product's contradiction rule, recomputed for two facts as they are (docs/product-format.md,
"The product's rules").

When a new fact contradicts an active one, the higher ``confidence × veracity weight``
wins; an exact tie goes to the newer fact. Veracity strings are parsed as the product
parses them (case-insensitive; anything unknown — ``guess``, ``''`` — reads as
``stated``, weight 1.0). Strengths are compared as the product compares them: exact
double arithmetic, no rounding (``0.8 × 0.7`` is ``0.5599999999999999``, which loses
to ``0.56 × 1.0``).

"Newer" is the later ``created_at``; facts created in the same second are ordered by
when they were written (``order``, the row's insertion order), as the product only ever
compares an existing fact with the one being written.
"""

from __future__ import annotations

from dataclasses import dataclass

from memorydesk.core.product.vocab import parse_veracity, veracity_weight

__all__ = ["Decision", "Side", "decide", "num"]


@dataclass(frozen=True, slots=True)
class Side:
    """One fact as the rule sees it."""

    confidence: float
    veracity: str | None
    created_at: int
    order: int = 0  # insertion order (rowid): breaks a same-second tie of "newer"

    @property
    def veracity_read_as(self) -> str:
        return parse_veracity(self.veracity).value

    @property
    def weight(self) -> float:
        return veracity_weight(self.veracity)

    @property
    def strength(self) -> float:
        return self.confidence * self.weight


@dataclass(frozen=True, slots=True)
class Decision:
    """Who the rule picks between ``a`` and ``b``, and why, in numbers."""

    a: Side
    b: Side
    winner: str  # "a" or "b"
    tie: bool  # equal strengths: the newer fact won

    @property
    def newer(self) -> str:
        return "b" if (self.b.created_at, self.b.order) > (self.a.created_at, self.a.order) else "a"

    def lines(self, names: tuple[str, str] = ("A", "B")) -> list[str]:
        """The arithmetic, one line per fact, then the verdict (plain text)."""
        out = []
        for side, name in ((self.a, names[0]), (self.b, names[1])):
            raw = side.veracity if side.veracity is not None else "NULL"
            read = "" if raw == side.veracity_read_as else f" (read as {side.veracity_read_as})"
            out.append(f"{name}: confidence {num(side.confidence)} × weight {num(side.weight)} "
                       f"[veracity {raw!s}{read}] = {num(side.strength)}")
        win = names[0] if self.winner == "a" else names[1]
        if self.tie:
            out.append(f"Equal strengths: the newer fact wins, so {win}.")
        else:
            out.append(f"{win} is stronger, so {win} wins.")
        return out


def num(value: float) -> str:
    """Enough digits to show the exact comparison (3 usually, up to 17 when needed)."""
    text = f"{value:.3f}"
    return text if float(text) == value else repr(float(value))


def decide(a: Side, b: Side) -> Decision:
    """The product's rule between two facts: higher strength wins, a tie goes to the newer."""
    sa, sb = a.strength, b.strength
    if sa == sb:
        newer_b = (b.created_at, b.order) > (a.created_at, a.order)
        return Decision(a, b, "b" if newer_b else "a", True)
    return Decision(a, b, "a" if sa > sb else "b", False)
