"""What the conflict list is made of: a conflict line with its two facts, and the decisions
people recorded in our ``memdesk_conflict_reviews`` table (no Qt, no writes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, literal_column, select

from memorydesk.browse.facts import fact_state
from memorydesk.core.product.conflict_rule import Side, decide
from memorydesk.store.ours import DeskConflictReview

CROSS = "cross_agent"
CONTRADICTION = "contradiction"
#: desk decisions that settle an open pair (the desk stops listing it as open)
SETTLING = ("kept_a", "kept_b", "kept_both")
#: a person's decision as the tab, the text and the JSON of ``memory-desk conflicts`` name it
DECISION_WORDS = {"confirmed": "confirmed", "restored": "loser restored", "kept_a": "kept A", "kept_b": "kept B",
                  "kept_both": "kept both"}
REVIEWS = DeskConflictReview.__table__
ROWID = literal_column("rowid")
HEAD_WORDS = 14


def state_text(state: str, decided: str | None, dangling: bool = False) -> str:
    """A conflict's state in the list's words (the trail, its export and ``memory-desk conflicts``
    say it so too): the product's state, then what a person decided (``decided``: its words)."""
    text = decided if state == "reviewed" and decided else state + (f" · {decided}" if decided else "")
    return text + (" · dangling" if dangling else "")


@dataclass(frozen=True)
class FactBrief:
    """One fact of a conflict as the list shows it; ``exists`` False for a dangling id."""

    id: str
    exists: bool
    key: int = 0
    domain: str = ""
    topic: str = ""
    head: str = ""
    confidence: float = 0.0
    veracity: str | None = None
    created_at: int = 0
    superseded_by: str | None = None
    valid_until: int | None = None
    agent_id: str | None = None
    agent_name: str | None = None
    role: str | None = None

    @property
    def state(self) -> str:
        if not self.exists:
            return "missing"
        return fact_state(self.superseded_by, self.valid_until)

    def side(self) -> Side:
        return Side(self.confidence, self.veracity, self.created_at, self.key)


@dataclass(frozen=True)
class ConflictLine:
    """A line of the list: one row, or every row of one open pair (newest first in ``ids``)."""

    key: int
    ids: tuple[str, ...]
    type: str
    resolution: str | None
    fact_a: str
    fact_b: str
    recorded_winner: str | None
    first_at: int
    last_at: int
    a: FactBrief
    b: FactBrief
    review: ReviewRow | None = None  # the newest decision of a person on it
    reviews: int = 0

    @property
    def id(self) -> str:
        return self.ids[0]

    @property
    def count(self) -> int:
        return len(self.ids)

    @property
    def dangling(self) -> bool:
        return not (self.a.exists and self.b.exists)

    @property
    def state(self) -> str:
        """The product's resolution (``superseded``), ``reviewed`` for an open pair a person
        settled, else ``open``."""
        if self.resolution is not None:
            return self.resolution
        if self.review is not None and self.review.decision in SETTLING:
            return "reviewed"
        return "open"

    @property
    def decision(self) -> str | None:
        """What a person decided on it in the desk (its newest decision not undone), in words."""
        return DECISION_WORDS.get(self.review.decision, self.review.decision) if self.review else None

    @property
    def state_text(self) -> str:
        """The state as the tab shows it: the product's state, then what a person decided."""
        return state_text(self.state, self.decision, self.dangling)

    @property
    def rule_winner(self) -> str | None:
        """The product's rule on the two facts as they are now (None when one is missing)."""
        if self.dangling:
            return None
        return self.fact_a if decide(self.a.side(), self.b.side()).winner == "a" else self.fact_b

    @property
    def topic(self) -> str:
        return self.b.topic if self.b.exists else self.a.topic

    @property
    def domain(self) -> str:
        return self.b.domain if self.b.exists else self.a.domain

    def to_json(self) -> dict[str, Any]:
        """The command line's shape (docs/cli.md)."""
        review = self.review
        return {"ids": list(self.ids), "type": self.type, "state": self.state, "fact_a": self.fact_a,
                "fact_b": self.fact_b, "recorded_winner": self.recorded_winner, "rule_winner": self.rule_winner,
                "count": self.count, "first_at": self.first_at, "last_at": self.last_at,
                "decision": None if review is None else {"decision": review.decision, "words": self.decision,
                                                         "by": review.actor, "at": review.at}}


def has_reviews(conn: Connection) -> bool:
    """Whether the file has our review table (a product file opened read-only does not)."""
    return conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                (REVIEWS.name,)).first() is not None


@dataclass(frozen=True)
class ReviewRow:
    """A person's decision on a conflict, as stored (``to_json``: the row, as the export writes it)."""

    id: str
    conflict_id: str
    fact_a_id: str
    fact_b_id: str
    decision: str
    actor: str
    reason: str
    at: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "conflict_id": self.conflict_id, "fact_a_id": self.fact_a_id,
                "fact_b_id": self.fact_b_id, "decision": self.decision, "actor": self.actor, "reason": self.reason,
                "at": self.at}


def read_reviews(conn: Connection) -> list[ReviewRow]:
    """Every decision people made, oldest first (a human-sized table)."""
    if not has_reviews(conn):
        return []
    return [ReviewRow(r.id, r.conflict_id, r.fact_a_id, r.fact_b_id, r.decision, r.actor, r.reason, r.at)
            for r in conn.execute(select(REVIEWS).order_by(REVIEWS.c.at, ROWID))]


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


class Reviews:
    """The decisions of people, indexed by conflict id and by (unordered) pair."""

    def __init__(self, rows: list[ReviewRow]) -> None:
        self.by_conflict: dict[str, list[ReviewRow]] = {}
        self.by_pair: dict[tuple[str, str], list[ReviewRow]] = {}
        for r in rows:
            self.by_conflict.setdefault(r.conflict_id, []).append(r)
            self.by_pair.setdefault(pair_key(r.fact_a_id, r.fact_b_id), []).append(r)

    def of(self, conflict_type: str, conflict_id: str, a: str, b: str) -> list[ReviewRow]:
        return self.by_pair.get(pair_key(a, b), []) if conflict_type == CROSS else \
            self.by_conflict.get(conflict_id, [])



def head(text: str | None, words: int = HEAD_WORDS) -> str:
    """The first words of a text, on one line."""
    parts = (text or "").split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


__all__ = ["CONTRADICTION", "CROSS", "DECISION_WORDS", "REVIEWS", "ROWID", "SETTLING", "ConflictLine", "FactBrief",
           "ReviewRow", "Reviews", "has_reviews", "head", "pair_key", "read_reviews", "state_text"]
