"""Bursts in a workspace: facts that displaced many others at once (no Qt, no writes).

The rule is ``core.bursts``. Finding them never sorts the whole conflict table by
winner (seconds on a 1,000,000-fact file): a winner with four wins inside one minute
has at least two in one clock minute, as has a single write with two losers, so one
grouped pass names the candidate winners, and only their rows are read and judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, select

from memorydesk.browse.conflicts import listing
from memorydesk.browse.conflicts.rows import ReviewRow
from memorydesk.browse.facts import fact_state
from memorydesk.core.bursts import WINDOW_S, Burst, Win, find_bursts
from memorydesk.core.product.conflict_rule import Side, decide
from memorydesk.store.workspace import Workspace

CHUNK = 5_000


@dataclass(frozen=True)
class BurstRow:
    """A burst as the list shows it."""

    key: str
    winner: str
    winner_topic: str | None
    winner_domain: str | None
    winner_state: str
    conflict_ids: tuple[str, ...]
    losers: tuple[str, ...]
    first_at: int
    last_at: int
    topics: int
    reason: str
    reviewed: int  # conflicts of the burst a person has decided on

    @property
    def count(self) -> int:
        return len(self.conflict_ids)


def _winner(c: Any) -> Any:
    return func.coalesce(c.winning_fact_id, c.fact_b_id)


def _resolved(ws: Workspace) -> list[Any]:
    c = ws.layout.conflicts.c
    return [c.conflict_type != listing.CROSS, c.resolution.is_not(None)]


def _candidates(ws: Workspace, conn: Connection) -> list[str]:
    c = ws.layout.conflicts.c
    per_minute = select(_winner(c).label("w")).where(*_resolved(ws)) \
        .group_by(_winner(c), c.created_at // WINDOW_S).having(func.count() >= 2).subquery()
    return list(conn.execute(select(per_minute.c.w).distinct()).scalars())


def _wins(ws: Workspace, conn: Connection, winners: list[str]) -> list[Win]:
    c, f = ws.layout.conflicts, ws.layout.facts
    wins: list[Win] = []
    for start in range(0, len(winners), CHUNK):
        chunk = winners[start:start + CHUNK]
        stmt = select(listing.ROWID.label("key"), c.c.id, c.c.fact_a_id, _winner(c.c).label("winner"),
                      c.c.created_at).where(*_resolved(ws), _winner(c.c).in_(chunk))
        rows = conn.execute(stmt).all()
        topics: dict[str, tuple[str, str]] = {}
        losers = sorted({r.fact_a_id for r in rows})
        for i in range(0, len(losers), 500):
            topics.update({r.id: (r.domain, r.topic) for r in conn.execute(
                select(f.c.id, f.c.domain, f.c.topic).where(f.c.id.in_(losers[i:i + 500])))})
        for r in rows:
            domain, topic = topics.get(r.fact_a_id, (None, None))
            wins.append(Win(r.id, r.winner, r.fact_a_id, int(r.created_at), int(r.key), topic, domain))
    return wins


def bursts(ws: Workspace) -> list[BurstRow]:
    """Every burst of the workspace, newest first."""
    with ws.read() as conn:
        found = find_bursts(_wins(ws, conn, _candidates(ws, conn)))
        winners = sorted({b.winner for b in found})
        f = ws.layout.facts
        facts: dict[str, Any] = {}
        for i in range(0, len(winners), 500):
            facts.update({r.id: r for r in conn.execute(
                select(f.c.id, f.c.domain, f.c.topic, f.c.superseded_by, f.c.valid_until)
                .where(f.c.id.in_(winners[i:i + 500])))})
        reviews = listing.Reviews(listing.read_reviews(conn))
    return [_row(b, facts.get(b.winner), reviews) for b in found]


def _row(b: Burst, winner: Any, reviews: listing.Reviews) -> BurstRow:
    state = fact_state(winner.superseded_by, winner.valid_until) if winner is not None else "missing"
    reviewed = sum(1 for w in b.wins if reviews.by_conflict.get(w.conflict_id))
    return BurstRow(b.key, b.winner, winner.topic if winner is not None else None,
                    winner.domain if winner is not None else None, state, tuple(w.conflict_id for w in b.wins),
                    tuple(w.loser for w in b.wins), b.first_at, b.last_at, len(b.topics), b.reason, reviewed)


@dataclass(frozen=True)
class BurstFact:
    """A fact of a burst (the winner or one it displaced); ``exists`` False: only ``id`` and
    ``state`` ("missing") mean anything."""

    id: str
    exists: bool
    state: str
    key: int | None = None
    domain: str | None = None
    topic: str | None = None
    content: str | None = None
    confidence: float | None = None
    veracity: str | None = None
    created_at: int | None = None
    updated_at: int | None = None
    superseded_by: str | None = None
    agent_id: str | None = None
    agent_name: str | None = None

    def to_json(self) -> dict[str, Any]:
        if not self.exists:
            return {"id": self.id, "exists": False, "state": self.state}
        return {"id": self.id, "exists": True, "key": self.key, "domain": self.domain, "topic": self.topic,
                "content": self.content, "confidence": self.confidence, "veracity": self.veracity,
                "created_at": self.created_at, "updated_at": self.updated_at, "superseded_by": self.superseded_by,
                "state": self.state, "agent_id": self.agent_id, "agent_name": self.agent_name}


@dataclass(frozen=True)
class BurstRule:
    """The product's rule on a displaced fact against the winner, as they are now."""

    lines: tuple[str, ...]
    winner_still_wins: bool


@dataclass(frozen=True)
class Displaced:
    """One conflict of a burst: the fact it displaced (``exists`` False: the row is gone,
    nothing else is set), whether the winner still supersedes it, and people's decisions."""

    conflict: str
    exists: bool
    at: int | None = None
    fact: BurstFact | None = None
    still_superseded_by_winner: bool = False
    reviews: tuple[ReviewRow, ...] = ()
    rule: BurstRule | None = None  # None when either fact is missing

    def to_json(self) -> dict[str, Any]:
        if not self.exists or self.fact is None:
            return {"conflict": self.conflict, "exists": False}
        out: dict[str, Any] = {"conflict": self.conflict, "exists": True, "at": self.at, "fact": self.fact.to_json(),
                               "still_superseded_by_winner": self.still_superseded_by_winner,
                               "reviews": [r.to_json() for r in self.reviews]}
        if self.rule is not None:
            out["rule"] = {"lines": list(self.rule.lines), "winner_still_wins": self.rule.winner_still_wins}
        return out


@dataclass(frozen=True)
class BurstDetail:
    """A burst in full: the winner and every fact it displaced (``to_json``: the export's shape)."""

    winner: BurstFact
    displaced: tuple[Displaced, ...]
    first_at: int | None
    last_at: int | None
    topics: int

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner.to_json(), "displaced": [d.to_json() for d in self.displaced],
                "first_at": self.first_at, "last_at": self.last_at, "topics": self.topics}


def burst_detail(ws: Workspace, winner: str, conflict_ids: list[str]) -> BurstDetail:
    """The winner and every fact it displaced in the burst, each with the rule's arithmetic,
    its state now and any decision a person made."""
    c, f = ws.layout.conflicts, ws.layout.facts
    with ws.read() as conn:
        rows = {r.id: r for r in conn.execute(select(listing.ROWID.label("key"), c).where(c.c.id.in_(conflict_ids)))}
        ids = sorted({winner, *(r.fact_a_id for r in rows.values())})
        facts = {r.id: r for r in conn.execute(select(listing.ROWID.label("key"), f).where(f.c.id.in_(ids)))}
        agents = listing.agent_names(ws, conn)
        reviews = listing.Reviews(listing.read_reviews(conn))

    def fact(fid: str) -> BurstFact:
        r = facts.get(fid)
        if r is None:
            return BurstFact(fid, False, "missing")
        return BurstFact(fid, True, fact_state(r.superseded_by, r.valid_until), int(r.key), r.domain, r.topic,
                         r.content, float(r.confidence), r.veracity, r.created_at, r.updated_at, r.superseded_by,
                         r.authored_by_agent_id,
                         agents.get(r.authored_by_agent_id) if r.authored_by_agent_id else None)

    win = fact(winner)
    displaced: list[Displaced] = []
    for cid in conflict_ids:
        r = rows.get(cid)
        if r is None:
            displaced.append(Displaced(cid, False))
            continue
        loser = fact(r.fact_a_id)
        rule = None
        if loser.exists and win.exists:
            d = decide(Side(loser.confidence, loser.veracity, loser.created_at, loser.key),
                       Side(win.confidence, win.veracity, win.created_at, win.key))
            rule = BurstRule(tuple(d.lines(("displaced", "winner"))), d.winner == "b")
        displaced.append(Displaced(cid, True, r.created_at, loser, loser.superseded_by == winner,
                                   tuple(reviews.by_conflict.get(cid, [])), rule))
    times = [d.at for d in displaced if d.exists]
    topics = {(d.fact.domain, d.fact.topic) for d in displaced if d.exists and d.fact is not None and d.fact.exists}
    return BurstDetail(win, tuple(displaced), min(times) if times else None, max(times) if times else None,
                       len(topics))


__all__ = ["BurstDetail", "BurstFact", "BurstRow", "BurstRule", "Displaced", "burst_detail", "bursts"]
