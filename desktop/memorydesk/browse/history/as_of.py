"""Memory *as of* a time T: which facts existed then, and in which state (read-only).

The rules (docs/guide.md, "As of a time"):

- a fact existed at T when its ``created_at`` ≤ T;
- **the desk's own changes are applied backwards**: every change the desk makes to a fact's
  ``superseded_by`` (an edit, a delete, a restore, Keep B, Restore Loser, a merge, a
  quarantine, and their undos and redos) is kept with its history row (``moves``), so at T a
  fact the desk moved since holds what it held before the first such move after T, set at
  the time of the last one at or before T (``desk_then``: exact);
- otherwise by the one rule of ``core.supersession`` (the History and the conflict trail use
  it too): superseded at the superseding fact's ``created_at`` when ``superseded_by`` names a
  fact created at or after it; at the contradiction row's time (not after its ``updated_at``)
  when the fact's own write lost to an older one; set aside by ``system:cleanup`` at a time the file does not hold (the
  product's cleanup leaves ``updated_at`` as it was): at the earliest when the fact turned 31
  days old (its rule archives facts more than 30 whole days old) and not before its
  ``updated_at``, at the latest now — between the two the state is ``unknown``; otherwise
  (another sentinel, a missing fact, a cycle) at its own ``updated_at`` — the product sets
  ``updated_at`` when it supersedes, so this is an approximation where something else
  touched the row later;
- desk sentinels written before the desk kept its moves (``human:deleted``, ``human:undone``)
  are timed by the desk's history row that names the fact;
- its state at T: ``superseded`` / ``deleted`` when that happened at or before T (``unknown``
  inside a cleanup's bounds), else ``expired`` when ``valid_until`` < T, else ``active``;
- ``changed_since``: its row changed after T (``updated_at`` > T, superseded after T, or
  moved by the desk after T). A fact the product edited in place shows today's text.

``superseded_at_sql`` is the one SQL expression of the supersession time by the file's rows,
used by the Facts list (``browse.facts``) and by ``facts_as_of`` (the ``facts --as-of``
command); ``desk_then`` gives, for the facts the desk moved, what the rows alone cannot.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, literal_column, or_, select

from memorydesk.browse.history.moves import desk_moves
from memorydesk.browse.history.set_aside import set_aside_of, written_rows
from memorydesk.core.supersession import CLEANUP, CLEANUP_AGE
from memorydesk.store.workspace import Workspace

DELETED = "human:deleted"
STATES = ("active", "expired", "superseded", "deleted", "unknown")


def superseded_at_sql(ws: Workspace, table: str | None = None) -> str:
    """The supersession time of a row of the facts table named ``table`` by the file's rows
    (NULL while active; for a cleanup, the earliest it can have happened): ``core.supersession``'s
    rule in SQL."""
    f = table or ws.layout.facts.name
    c = ws.layout.conflicts.name
    desk = ""
    if ws.desk_schema > 0:
        desk = (f"WHEN substr({f}.superseded_by, 1, 6) = 'human:' THEN COALESCE((SELECT max(h.at) FROM "
                f"memdesk_history h WHERE h.entity = 'fact' AND h.undone_by IS NULL AND "
                f"(h.entity_id = {f}.id OR h.before_id = {f}.id)), {f}.updated_at) ")
    return (f"(CASE WHEN {f}.superseded_by IS NULL THEN NULL {desk}"
            f"WHEN {f}.superseded_by = '{CLEANUP}' THEN max({f}.created_at + {CLEANUP_AGE}, {f}.updated_at) "
            f"ELSE COALESCE((SELECT s.created_at FROM {ws.layout.facts.name} s WHERE s.id = {f}.superseded_by "
            f"AND s.created_at >= {f}.created_at), min((SELECT COALESCE(c.resolved_at, c.created_at) FROM {c} c "
            f"WHERE c.fact_a_id = {f}.id AND c.fact_b_id = {f}.superseded_by AND c.conflict_type = 'contradiction' "
            f"AND EXISTS (SELECT 1 FROM {ws.layout.facts.name} s WHERE s.id = {f}.superseded_by) LIMIT 1), "
            f"{f}.updated_at), {f}.updated_at) END)")


def state_at(superseded_by: str | None, superseded_at: int | None, valid_until: int | None, at: int,
             now: float | None = None) -> str:
    if superseded_by is not None and superseded_at is not None and superseded_at <= at:
        if superseded_by == CLEANUP and at < (time.time() if now is None else now):
            return "unknown"  # set aside between its earliest time and now: the file does not say when
        return "deleted" if superseded_by == DELETED else "superseded"
    if valid_until is not None and valid_until < at:
        return "expired"
    return "active"


def changed_since(updated_at: int, superseded_at: int | None, at: int) -> bool:
    """Whether the row changed after ``at``: written again, or superseded since."""
    return updated_at > at or (superseded_at is not None and superseded_at > at)


# --- the desk's own changes, applied backwards ----------------------------------------------------


@dataclass(frozen=True)
class Then:
    """A fact the desk's history moved, at a time T: what its ``superseded_by`` held then, since
    when (None: active, or unknown), and whether the desk moved it after T."""

    superseded_by: str | None
    superseded_at: int | None
    moved_since: bool
    created_at: int
    valid_until: int | None

    def state(self, at: int) -> str:
        return state_at(self.superseded_by, self.superseded_at, self.valid_until, at)


def _moves(ws: Workspace, conn: Any) -> dict[str, list[tuple[int, str | None, str | None]]]:
    """Every recorded move of the desk, by fact, oldest first: (time, before, after)."""
    return {fid: [(m.at, m.before, m.after) for m in ms] for fid, ms in desk_moves(conn).items()}


def desk_then(ws: Workspace, at: int) -> dict[str, Then]:
    """For each fact the desk ever moved: its state at ``at`` with the desk's changes since
    applied backwards (empty when the file has no desk history)."""
    if ws.desk_schema == 0:
        return {}
    with ws.read() as conn:
        moves = _moves(ws, conn)
        if not moves:
            return {}
        rows = written_rows(ws, conn, moves)
        valid = _valid_until(ws, conn, list(rows))
        wanted = []
        for fact_id, ms in moves.items():
            later = [m for m in ms if m[0] > at]
            by = later[0][1] if later else rows[fact_id].superseded_by if fact_id in rows else None
            if by is not None:
                wanted.append((fact_id, by))
        rules = set_aside_of(ws, conn, wanted)
    out: dict[str, Then] = {}
    for fact_id, ms in moves.items():
        row = rows.get(fact_id)
        if row is None:  # purged or deleted by the product: it appears at no time
            continue
        later = [m for m in ms if m[0] > at]
        by = later[0][1] if later else row.superseded_by
        earlier = [m for m in ms if m[0] <= at]
        if by is None:
            since = None
        elif earlier and earlier[-1][2] == by:
            since = earlier[-1][0]  # the desk set it then: exact
        else:
            since = rules[(fact_id, by)].at  # the file's own: the one rule (``core.supersession``)
        out[fact_id] = Then(by, since, bool(later), int(row.created_at), valid.get(fact_id))
    return out


def _valid_until(ws: Workspace, conn: Any, ids: list[str]) -> dict[str, int | None]:
    f = ws.layout.facts
    out: dict[str, int | None] = {}
    for start in range(0, len(ids), 500):
        out.update(dict(conn.execute(select(f.c.id, f.c.valid_until).where(f.c.id.in_(ids[start:start + 500]))).all()))
    return out


# --- the list as of a time ------------------------------------------------------------------------


def where_at(ws: Workspace, state: str, at: int, then: dict[str, Then] | None = None) -> list[ColumnElement]:
    """SQL clauses for the facts that existed at ``at`` and were in ``state`` then ("all": any);
    the facts the desk moved are decided here, with its changes applied backwards (``then``,
    read when not given)."""
    if state != "all" and state not in STATES:
        raise ValueError(f"unknown state {state!r}; expected one of all, {', '.join(STATES)}")
    f = ws.layout.facts.c
    sat = literal_column(superseded_at_sql(ws))
    then_live = or_(f.superseded_by.is_(None), sat > at)
    clauses: list[ColumnElement] = [f.created_at <= at]
    settled = at >= time.time()  # at or after now a cleanup has happened, whenever it did
    if state == "active":
        clauses += [then_live, or_(f.valid_until.is_(None), f.valid_until >= at)]
    elif state == "expired":
        clauses += [then_live, f.valid_until.is_not(None), f.valid_until < at]
    elif state == "deleted":
        clauses += [f.superseded_by == DELETED, sat <= at]
    elif state == "superseded":
        clauses += [f.superseded_by.is_not(None), f.superseded_by != DELETED, sat <= at]
        if not settled:
            clauses.append(f.superseded_by != CLEANUP)
    elif state == "unknown":
        clauses += [f.superseded_by == CLEANUP, sat <= at] if not settled else [f.id.is_(None)]
    then = desk_then(ws, at) if then is None else then
    if not then:
        return clauses
    chosen = [fid for fid, t in then.items() if t.created_at <= at and (state == "all" or t.state(at) == state)]
    return [or_(and_(f.id.not_in(list(then)), *clauses), f.id.in_(chosen))]


@dataclass(frozen=True)
class FactThen:
    id: str
    domain: str
    topic: str
    state: str
    changed_since: bool
    between: tuple[int, int] | None = None  # state "unknown": the earliest and the latest it can have happened

    def to_json(self) -> dict[str, Any]:
        out = {"id": self.id, "domain": self.domain, "topic": self.topic, "state": self.state,
               "changed_since": self.changed_since}
        if self.between is not None:
            out["superseded_between"] = list(self.between)
        return out


def facts_as_of(ws: Workspace, at: int, state: str = "all") -> Iterator[FactThen]:
    """Every fact that existed at ``at`` (in ``state`` then), newest written first."""
    f = ws.layout.facts
    then = desk_then(ws, at)
    now = int(time.time())
    sat = literal_column(superseded_at_sql(ws)).label("sat")
    stmt = select(f.c.id, f.c.domain, f.c.topic, f.c.superseded_by, f.c.valid_until, f.c.updated_at, sat) \
        .where(and_(*where_at(ws, state, at, then))).order_by(literal_column("rowid").desc())
    with ws.read() as conn:
        for fid, domain, topic, by, valid_until, updated, superseded_at in conn.execute(stmt):
            moved = then.get(fid)
            if moved is not None:
                by, superseded_at = moved.superseded_by, moved.superseded_at
            now_state = state_at(by, superseded_at, valid_until, at, now)
            changed = changed_since(updated, superseded_at, at) or (moved is not None and moved.moved_since)
            between = (superseded_at, now) if now_state == "unknown" else None
            yield FactThen(fid, domain, topic, now_state, changed or now_state == "unknown", between)


__all__ = ["CLEANUP", "FactThen", "STATES", "Then", "changed_since", "desk_then", "facts_as_of", "state_at",
           "superseded_at_sql", "where_at"]
