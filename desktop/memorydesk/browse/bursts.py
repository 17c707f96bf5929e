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

from memorydesk.browse import conflicts as listing
from memorydesk.browse.facts import fact_state
from memorydesk.core.bursts import WINDOW_S, Burst, Win, find_bursts
from memorydesk.core.conflict_rule import Side, decide
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


def burst_detail(ws: Workspace, winner: str, conflict_ids: list[str]) -> dict[str, Any]:
    """The winner and every fact it displaced in the burst, each with the rule's arithmetic,
    its state now and any decision a person made (JSON-ready)."""
    c, f = ws.layout.conflicts, ws.layout.facts
    with ws.read() as conn:
        rows = {r.id: r for r in conn.execute(select(listing.ROWID.label("key"), c).where(c.c.id.in_(conflict_ids)))}
        ids = sorted({winner, *(r.fact_a_id for r in rows.values())})
        facts = {r.id: r for r in conn.execute(select(listing.ROWID.label("key"), f).where(f.c.id.in_(ids)))}
        agents = listing.agent_names(ws, conn)
        reviews = listing.Reviews(listing.read_reviews(conn))

    def fact(fid: str) -> dict[str, Any]:
        r = facts.get(fid)
        if r is None:
            return {"id": fid, "exists": False, "state": "missing"}
        return {"id": fid, "exists": True, "key": int(r.key), "domain": r.domain, "topic": r.topic,
                "content": r.content, "confidence": float(r.confidence), "veracity": r.veracity,
                "created_at": r.created_at, "updated_at": r.updated_at, "superseded_by": r.superseded_by,
                "state": fact_state(r.superseded_by, r.valid_until), "agent_id": r.authored_by_agent_id,
                "agent_name": agents.get(r.authored_by_agent_id) if r.authored_by_agent_id else None}

    win = fact(winner)
    displaced = []
    for cid in conflict_ids:
        r = rows.get(cid)
        if r is None:
            displaced.append({"conflict": cid, "exists": False})
            continue
        loser = fact(r.fact_a_id)
        item = {"conflict": cid, "exists": True, "at": r.created_at, "fact": loser,
                "still_superseded_by_winner": loser.get("superseded_by") == winner,
                "reviews": reviews.by_conflict.get(cid, [])}
        if loser["exists"] and win["exists"]:
            d = decide(Side(loser["confidence"], loser["veracity"], loser["created_at"], loser["key"]),
                       Side(win["confidence"], win["veracity"], win["created_at"], win["key"]))
            item["rule"] = {"lines": d.lines(("displaced", "winner")), "winner_still_wins": d.winner == "b"}
        displaced.append(item)
    times = [d["at"] for d in displaced if d.get("exists")]
    topics = {(d["fact"].get("domain"), d["fact"].get("topic")) for d in displaced
              if d.get("exists") and d["fact"]["exists"]}
    return {"winner": win, "displaced": displaced, "first_at": min(times) if times else None,
            "last_at": max(times) if times else None, "topics": len(topics)}


__all__ = ["BurstRow", "burst_detail", "bursts"]
