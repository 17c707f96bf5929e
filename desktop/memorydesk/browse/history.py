"""Memory over time, newest first: every change the file can account for (read-only).

``history_page(ws, query, cursor, limit)`` merges the sources of ``history_sources``
(the desk's own changes, facts created / superseded / changed in place, policies,
conflicts, edges, notes, receipts) lazily: each source reads only the rows just before
the cursor, so the first page of a 1,000,000-fact file is a few top-N queries.
``iter_events`` walks the whole range for the command line and exports.

Filters: kind, actor (an agent's id, name or role, the reviewer's name, a sentinel;
any letter case), a time range (``since``/``until``, unix seconds, inclusive) and a
text (a substring of the summary, the ids or the reason).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from memorydesk.browse.history_sources import SOURCES, TOP, Context, Cursor, Event, desk_fact_ids
from memorydesk.core.errors import BadInput
from memorydesk.core.moments import check_range
from memorydesk.store.workspace import Workspace

KINDS = ("fact", "policy", "conflict", "edge", "grant", "note", "receipt", "domain")
ACTOR_KINDS = ("agent", "reviewer", "system")
BATCH = 200  # groups a source reads at a time


@dataclass(frozen=True)
class HistoryQuery:
    since: int | None = None
    until: int | None = None
    actor: str = ""
    kind: str = ""
    text: str = ""

    def check(self) -> HistoryQuery:
        check_range(self.since, self.until)
        if self.kind and self.kind not in KINDS:
            raise BadInput(f"--kind: {self.kind!r} is not a kind of change; use one of {', '.join(KINDS)}")
        return self


@dataclass(frozen=True)
class HistoryPage:
    events: list[Event]
    next_cursor: Cursor | None  # None: nothing older


def context(ws: Workspace, q: HistoryQuery) -> Context:
    a = ws.layout.agents.name
    with ws.read() as conn:
        agents = {r[0]: (r[1], r[2]) for r in conn.exec_driver_sql(f"SELECT id, name, role FROM {a}")}
    made, named = desk_fact_ids(ws)
    return Context(ws, agents, made, named, q.since, q.until)


def _matches(ctx: Context, q: HistoryQuery, e: Event) -> bool:
    if q.kind and e.kind != q.kind:
        return False
    if q.actor:
        wanted = q.actor.strip().lower()
        names = {e.actor.lower()}
        names |= {agent_id.lower() for agent_id, (name, _r) in ctx.agents.items() if name == e.actor}
        names |= {(role or "").lower() for agent_id, (name, role) in ctx.agents.items() if name == e.actor}
        if wanted not in names:
            return False
    if q.text.strip():
        needle = q.text.strip().lower()
        hay = " ".join((e.summary, e.reason, *e.ids)).lower()
        if needle not in hay:
            return False
    return True


def history_page(ws: Workspace, q: HistoryQuery, cursor: Cursor | None = None, limit: int = 100,
                 ctx: Context | None = None) -> HistoryPage:
    """The next ``limit`` (or a few more: a group is never cut) matching events older than ``cursor``."""
    q.check()
    ctx = ctx or context(ws, q)
    sources = [src for kinds, src in SOURCES if not q.kind or kinds is None or q.kind in kinds]
    bound: Cursor = cursor or TOP
    out: list[Event] = []
    while True:
        groups, stop = [], None  # stop: the highest cursor below which some source is unknown
        for src in sources:
            got = src(ctx, bound, BATCH)
            groups.extend(got)
            if len(got) == BATCH:
                last = got[-1][0]
                stop = last if stop is None or last > stop else stop
        if not groups:
            return HistoryPage(out, None)
        groups.sort(key=lambda g: g[0], reverse=True)
        for cur, group in groups:
            if stop is not None and cur < stop:
                break
            out.extend(e for e in group if _matches(ctx, q, e))
            bound = cur
            if len(out) >= limit:
                return HistoryPage(out, bound)
        if stop is None:
            return HistoryPage(out, None)


def iter_events(ws: Workspace, q: HistoryQuery, page: int = 500) -> Iterator[Event]:
    """Every matching event, newest first."""
    ctx = context(ws, q.check())
    cursor: Cursor | None = None
    while True:
        result = history_page(ws, q, cursor, page, ctx)
        yield from result.events
        if result.next_cursor is None:
            return
        cursor = result.next_cursor


__all__ = ["ACTOR_KINDS", "Event", "HistoryPage", "HistoryQuery", "KINDS", "context", "history_page", "iter_events"]
