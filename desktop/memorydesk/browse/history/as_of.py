"""Memory *as of* a time T: which facts existed then, and in which state (read-only).

The rules (docs/guide.md, "As of a time"):

- a fact existed at T when its ``created_at`` ≤ T;
- it was superseded at the superseding fact's ``created_at`` when ``superseded_by``
  names a fact created at or after it; otherwise (a sentinel such as
  ``system:cleanup``, a missing fact, a supersession cycle) at its own ``updated_at``
  — the product sets ``updated_at`` when it supersedes, so this is an approximation
  where something else touched the row later;
- the desk's own sentinels (``human:deleted``, ``human:undone``) are timed exactly by
  the desk's history row that set them;
- its state at T: ``superseded`` / ``deleted`` when that happened at or before T,
  else ``expired`` when ``valid_until`` < T, else ``active``;
- ``changed_since``: its row changed after T (``updated_at`` > T, or superseded
  after T). A fact the product edited in place shows today's text.

``superseded_at_sql`` is the one SQL expression of the supersession time, used by the
Facts list (``browse.facts``) and by ``facts_as_of`` (the ``facts --as-of`` command).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, literal_column, or_

from memorydesk.store.workspace import Workspace

DELETED = "human:deleted"
STATES = ("active", "expired", "superseded", "deleted")


def superseded_at_sql(ws: Workspace, table: str | None = None) -> str:
    """The supersession time of a row of the facts table named ``table`` (NULL while active)."""
    f = table or ws.layout.facts.name
    desk = ""
    if ws.desk_schema > 0:
        desk = (f"WHEN substr({f}.superseded_by, 1, 6) = 'human:' THEN COALESCE((SELECT max(h.at) FROM "
                f"memdesk_history h WHERE h.entity = 'fact' AND h.undone_by IS NULL AND "
                f"(h.entity_id = {f}.id OR h.before_id = {f}.id)), {f}.updated_at) ")
    return (f"(CASE WHEN {f}.superseded_by IS NULL THEN NULL {desk}"
            f"ELSE COALESCE((SELECT s.created_at FROM {ws.layout.facts.name} s WHERE s.id = {f}.superseded_by "
            f"AND s.created_at >= {f}.created_at), {f}.updated_at) END)")


def state_at(superseded_by: str | None, superseded_at: int | None, valid_until: int | None, at: int) -> str:
    if superseded_by is not None and superseded_at is not None and superseded_at <= at:
        return "deleted" if superseded_by == DELETED else "superseded"
    if valid_until is not None and valid_until < at:
        return "expired"
    return "active"


def changed_since(updated_at: int, superseded_at: int | None, at: int) -> bool:
    """Whether the row changed after ``at``: written again, or superseded since."""
    return updated_at > at or (superseded_at is not None and superseded_at > at)


def where_at(ws: Workspace, state: str, at: int) -> list[ColumnElement]:
    """SQL clauses for the facts that existed at ``at`` and were in ``state`` then ("all": any)."""
    f = ws.layout.facts.c
    sat = literal_column(superseded_at_sql(ws))
    then_live = or_(f.superseded_by.is_(None), sat > at)
    clauses: list[ColumnElement] = [f.created_at <= at]
    if state == "active":
        clauses += [then_live, or_(f.valid_until.is_(None), f.valid_until >= at)]
    elif state == "expired":
        clauses += [then_live, f.valid_until.is_not(None), f.valid_until < at]
    elif state == "deleted":
        clauses += [f.superseded_by == DELETED, sat <= at]
    elif state == "superseded":
        clauses += [f.superseded_by.is_not(None), f.superseded_by != DELETED, sat <= at]
    elif state != "all":
        raise ValueError(f"unknown state {state!r}; expected one of all, {', '.join(STATES)}")
    return clauses


@dataclass(frozen=True)
class FactThen:
    id: str
    domain: str
    topic: str
    state: str
    changed_since: bool

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "domain": self.domain, "topic": self.topic, "state": self.state,
                "changed_since": self.changed_since}


def facts_as_of(ws: Workspace, at: int, state: str = "all") -> Iterator[FactThen]:
    """Every fact that existed at ``at`` (in ``state`` then), newest written first."""
    from sqlalchemy import select

    f = ws.layout.facts
    sat = literal_column(superseded_at_sql(ws)).label("sat")
    stmt = select(f.c.id, f.c.domain, f.c.topic, f.c.superseded_by, f.c.valid_until, f.c.updated_at, sat) \
        .where(and_(*where_at(ws, state, at))).order_by(literal_column("rowid").desc())
    with ws.read() as conn:
        for fid, domain, topic, by, valid_until, updated, superseded_at in conn.execute(stmt):
            yield FactThen(fid, domain, topic, state_at(by, superseded_at, valid_until, at),
                           changed_since(updated, superseded_at, at))


__all__ = ["FactThen", "STATES", "changed_since", "facts_as_of", "state_at", "superseded_at_sql", "where_at"]
