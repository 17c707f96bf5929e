"""Memory over time, newest first: every change the file can account for (read-only).

``history_page(ws, query, cursor, limit)`` merges the sources of ``history_sources``
(the desk's own changes, facts created / superseded / changed in place, policies,
conflicts, edges, notes, receipts) lazily: each source reads only the rows just before
the cursor, so the first page of a 1,000,000-fact file is a few top-N queries.
``iter_events`` walks the whole range for the command line and exports.

Filters: kind, actor (an agent's id, name or role, the reviewer's name, a sentinel;
any letter case), a time range (``since``/``until``, unix seconds, inclusive) and a
text (a substring of the summary, the ids, the reason or the details; ``#43`` and ``entry 43``
find the desk's entry 43 and nothing else, ``43`` finds it and any text holding “43”).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from memorydesk.browse.history.event import Context, Event, Group
from memorydesk.browse.history.sources import SOURCES, desk_records
from memorydesk.core.errors import BadInput
from memorydesk.core.moments import check_range
from memorydesk.store.workspace import Workspace

KINDS = ("fact", "policy", "conflict", "edge", "grant", "note", "working_item", "receipt", "domain", "forget")
ACTOR_KINDS = ("agent", "reviewer", "system")
ENTRY = re.compile(r"^(?:#|entry\s+)?(\d{1,12})$")  # a history entry asked for by its number
BATCH = 200  # groups a source reads at a time for a page
WHOLE_BATCH = 5000  # … and when the whole range is walked (``iter_events``): fewer, larger reads
#: with ``since``: a source stops after this many rows in a row older than it (docs/guide.md, "The History tab")
OLD_RUN = 2000


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


Cursor = tuple[tuple[str, int | None, bool], ...]  # per source: (name, position, done)


@dataclass(frozen=True)
class HistoryPage:
    events: list[Event]
    next_cursor: Cursor | None  # None: nothing older


class _Stream:
    """One source read in batches, newest written first."""

    def __init__(self, name: str, ctx: Context, pos: int | None, done: bool, batch: int = BATCH) -> None:
        self.name, self.ctx, self.pos, self.exhausted, self.batch = name, ctx, pos, done, batch
        self.source = SOURCES[name][1]
        self.buffer: list[Group] = []
        self.old_run = 0  # groups in a row older than ``since``

    @property
    def done(self) -> bool:
        return self.exhausted and not self.buffer

    def head(self) -> Group | None:
        if not self.buffer and not self.exhausted:
            got = self.source(self.ctx, self.pos, self.batch)
            self.exhausted = len(got) < self.batch
            self.buffer = got[::-1]
        return self.buffer[-1] if self.buffer else None

    def pop(self) -> Group:
        group = self.buffer.pop()
        self.pos = group[0]
        since = self.ctx.since
        self.old_run = self.old_run + 1 if since is not None and group[1] < since else 0
        if self.old_run >= OLD_RUN:
            self.exhausted, self.buffer = True, []
        return group


def context(ws: Workspace, q: HistoryQuery, *, whole: bool = False) -> Context:
    """What the sources need; ``whole``: for a walk of the whole range (every fact's time and author
    read once rather than looked up page by page)."""
    a = ws.layout.agents.name
    with ws.read() as conn:
        agents = {r[0]: (r[1], r[2]) for r in conn.exec_driver_sql(f"SELECT id, name, role FROM {a}")}
    ctx = Context(ws, agents, desk_records(ws), q.since, q.until)
    if whole:
        ctx.read_every_fact()
    return ctx


def _matches(ctx: Context, q: HistoryQuery, e: Event) -> bool:
    if q.kind and e.kind != q.kind:
        return False
    if q.actor:
        wanted = q.actor.strip().lower()
        names = {e.actor.lower()}
        for agent_id, (name, role) in ctx.agents.items():
            if name == e.actor:
                names |= {agent_id.lower(), (role or "").lower()}
        if wanted not in names:
            return False
    needle = q.text.strip().lower()
    if needle:
        entry = ENTRY.match(needle)
        if entry is not None and e.history_id == int(entry[1]):
            return True  # the desk's entry of that number (“#43”, “entry 43”, “43”)
        if entry is not None and not needle[0].isdigit():
            return False  # “#8” and “entry 8” ask for an entry number only (not “PR #883”)
        hay = " ".join((e.summary, e.reason, e.details, e.actor, *e.ids)).lower()
        if needle not in hay:
            return False
    return True


class _Merge:
    """The sources merged newest first, read lazily; a page is a few more than asked (a group is never cut).

    The newest head is taken from a heap of (time, source's place); of equal times the source
    listed first in ``SOURCES`` goes first."""

    def __init__(self, ctx: Context, q: HistoryQuery, cursor: Cursor | None, batch: int = BATCH) -> None:
        self.ctx, self.q = ctx, q
        wanted = [name for name, (kinds, _src) in SOURCES.items() if not q.kind or kinds is None or q.kind in kinds]
        state = {name: (pos, done) for name, pos, done in cursor or ()}
        self.streams = [_Stream(name, ctx, *state.get(name, (None, False)), batch) for name in wanted]
        self.filtered = bool(q.kind or q.actor or q.text.strip())
        self.heap: list[tuple[Any, int]] | None = None
        self.taken: int | None = None  # the stream a group was last taken from: its next head is not in the heap yet

    def page(self, limit: int) -> HistoryPage:
        ctx, q, streams, filtered = self.ctx, self.q, self.streams, self.filtered
        for stream in streams:
            stream.old_run = 0  # counted per page, as when a page starts from its cursor
        if self.heap is None:
            self.heap = [(-head[1], i) for i, stream in enumerate(streams) if (head := stream.head()) is not None]
            heapq.heapify(self.heap)
        heap = self.heap
        out: list[Event] = []
        while len(out) < limit:
            if self.taken is not None:
                head = streams[self.taken].head()
                if head is not None:
                    heapq.heappush(heap, (-head[1], self.taken))
                self.taken = None
            if not heap:
                return HistoryPage(_newest_first(out), None)
            _at, self.taken = heapq.heappop(heap)
            _key, _at, events = streams[self.taken].pop()
            if len(events) > 1:
                events = sorted(events, key=lambda e: e.at, reverse=True)
            if filtered:
                out.extend(e for e in events if _matches(ctx, q, e))
            else:
                out.extend(events)
        if all(s.done for s in streams):
            return HistoryPage(_newest_first(out), None)
        return HistoryPage(_newest_first(out), tuple((s.name, s.pos, s.done) for s in streams))


def history_page(ws: Workspace, q: HistoryQuery, cursor: Cursor | None = None, limit: int = 100,
                 ctx: Context | None = None) -> HistoryPage:
    """The next ``limit`` (or a few more: a group is never cut) matching events after ``cursor``."""
    q.check()
    return _Merge(ctx or context(ws, q), q, cursor).page(limit)


def _newest_first(events: list[Event]) -> list[Event]:
    """A page in time order (stable): rows another program wrote out of time order are put in place
    within their page."""
    return sorted(events, key=lambda e: e.at, reverse=True)


def iter_events(ws: Workspace, q: HistoryQuery, page: int = 500) -> Iterator[Event]:
    """Every matching event, newest first: the pages ``history_page`` would give one after the other,
    each source read on from where the last page left it (not again from the page's cursor)."""
    merge = _Merge(context(ws, q.check(), whole=True), q, None, WHOLE_BATCH)
    while True:
        result = merge.page(page)
        yield from result.events
        if result.next_cursor is None:
            return


def undo_blocker(ws: Workspace, history_id: int) -> str | None:
    """Why the desk's change ``history_id`` cannot be undone now (None: it can): already undone,
    a purge, or a later change of the desk (not undone) to the same rows — named, to undo first."""
    if ws.desk_schema == 0:
        return "this file has no history of the desk's own"
    with ws.read() as conn:
        row = conn.exec_driver_sql("SELECT id, entity, entity_id, before_id, after_id, action, undone_by FROM "
                                   "memdesk_history WHERE id = ?", (history_id,)).first()
        if row is None:
            return f"history entry {history_id} does not exist"
        _hid, entity, eid, before, after, act, undone_by = row
        if undone_by is not None:
            return f"it was undone already (entry {undone_by})"
        if act == "purge":
            return "a purge cannot be undone: the text is gone"
        ids = [i for i in (eid, before, after) if i]
        marks = ",".join("?" * len(ids))
        later = conn.exec_driver_sql(
            f"SELECT id, action, actor, at FROM memdesk_history WHERE id > ? AND undone_by IS NULL AND "
            f"action != 'undo' AND (entity_id IN ({marks}) OR before_id IN ({marks}) OR after_id IN ({marks})) "
            "ORDER BY id LIMIT 1", (history_id, *ids, *ids, *ids)).first()
    if later is not None:
        from memorydesk.core.moments import utc_text

        return (f"a later change depends on it: entry {later[0]} ({later[1]} by {later[2]} at {utc_text(later[3])}); "
                "undo that one first")
    return None
__all__ = ["ACTOR_KINDS", "Event", "HistoryPage", "HistoryQuery", "KINDS", "context", "history_page", "iter_events",
           "undo_blocker"]
