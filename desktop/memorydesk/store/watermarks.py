"""Public watermarks of a workspace's data: what tells that something changed, read from the
rows themselves (counts, highest rowids, the columns written in place, every fact row's mark),
never from SQLite's files. It is the one way the desk notices another program's writes: the
window's watcher (``Follower``) and search's copies (``search.copies.follow``) read them.

- ``marks(conn, layout)``: one small tuple per table the desk shows. When another program
  commits to the file (``PRAGMA data_version`` says so), the window's watcher reads them again
  and ``changed(before, after)`` says which kinds of entity (``core.changes.Kind``) moved and
  whether the desk's history did, so that the window refreshes only the views those reach.
  Outside the fact table a row written in place that keeps its length and its times would not
  be seen; every write the product and the desk make moves a mark.
- ``fact_rows(ws, conn, version)``: every fact row's own mark, the hash of the row as the
  driver gives it (``FACT_ROW_COLUMNS``: what search's copies hold, and the times and counts a
  fact's row shows), by rowid; a row written in place is seen whatever it keeps. It is one pass
  over the fact table (its pages, which carry the embeddings, are most of it: about a second
  at 100,000 facts), read once per file version by whoever asks first and kept on the
  workspace for the other: search's copies take the rows whose mark changed; the watcher
  compares one digest of them (``Watched.rows``). The watcher reads it after a change at most
  as often as keeps the pass under a tenth of its time, so a fact changed in place shows
  within seconds on a large file; a fact added, superseded or removed, and everything else,
  within a second.
- ``data_stamp(ws)`` is one string over the facts, policies, notes and working-memory items:
  it changes when any of them changes. The review keeps it with its results (unchanged
  since: the kept scan is current) and a recall-audit run with its report (two runs on the
  same data).
"""

from __future__ import annotations

import array
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from sqlalchemy import Connection

from memorydesk.core.changes import Kind
from memorydesk.store.layout import Layout, table_names
from memorydesk.store.workspace import Workspace

Marks = dict[str, tuple[Any, ...]]


@dataclass(frozen=True)
class Watched:
    """A table and what its rows are to the views: the ``kinds`` they hold, or the history."""

    role: str  # the layout's role (``facts``) or our table's name (``memdesk_history``)
    kinds: tuple[Kind, ...]
    marks: str  # the SELECT list that changes when a view of it would
    history: bool = False
    rows: bool = False  # also every row's mark (``fact_rows``; read less often, see the module)


ROWS: Final = "count(*), max(rowid)"
#: every table a view shows, and how to tell it changed (a row added, removed, or written in place)
WATCHED: Final = (
    Watched("facts", (Kind.FACT, Kind.DOMAIN), f"{ROWS}, count(superseded_by), total(length(superseded_by))",
            rows=True),
    Watched("policies", (Kind.POLICY, Kind.DOMAIN), f"{ROWS}, max(updated_at), total(active)"),
    Watched("grants", (Kind.GRANT, Kind.DOMAIN), f"{ROWS}, total(rowid * (length(agent_role) * 3 "
            "+ length(memory_domain) * 5 + unicode(permission) * 7 + length(permission) * 11))"),
    Watched("domains", (Kind.DOMAIN,), ROWS),
    Watched("conflicts", (Kind.CONFLICT,), f"{ROWS}, count(resolved_at), total(length(winning_fact_id))"),
    Watched("edges", (Kind.EDGE,), f"{ROWS}, total(weight)"),
    Watched("beliefs", (Kind.BELIEF,), f"{ROWS}, max(updated_at)"),
    Watched("notes", (Kind.NOTE,), f"{ROWS}, max(updated_at), total(length(content))"),
    Watched("items", (Kind.WORKING_ITEM,), ROWS),
    Watched("consolidation_log", (Kind.WORKING_ITEM,), ROWS),
    Watched("memdesk_history", (), f"{ROWS}, count(undone_by)", history=True),
    Watched("memdesk_receipt_blocks", (Kind.RECEIPT,), f"{ROWS}, max(last_id), total(n)"),
    Watched("memdesk_receipts", (Kind.RECEIPT,), ROWS),
    Watched("memdesk_lanes", (Kind.TIER,), f"{ROWS}, total(last_version)"),
    Watched("memdesk_memory_versions", (Kind.TIER,), ROWS),
    Watched("memdesk_mtm_segments", (Kind.TIER,), f"{ROWS}, total(n_visit)"),
    Watched("memdesk_mtm_pages", (Kind.TIER,), ROWS),
    Watched("memdesk_conflict_reviews", (Kind.CONFLICT,), ROWS),
    Watched("memdesk_review_decisions", (Kind.REVIEW,), ROWS),
)


def marks(conn: Connection, layout: Layout) -> Marks:
    """Every watched table's watermark in one read (a table the file lacks is left out)."""
    present = table_names(conn)
    tables = [(w, getattr(layout, w.role).name if hasattr(layout, w.role) else w.role) for w in WATCHED]
    tables = [(w, name) for w, name in tables if name in present]
    if not tables:
        return {}
    query = " UNION ALL ".join(f'SELECT {i}, json_array({w.marks}) FROM "{name}"' for i, (w, name) in enumerate(tables))
    found = dict(conn.exec_driver_sql(query).all())
    return {w.role: tuple(json.loads(found[i])) for i, (w, _name) in enumerate(tables)}


def row_marks(ws: Workspace) -> Marks:
    """The tables' row marks (``Watched.rows``) as watermarks: one digest of every fact row's
    mark, read in a snapshot of its own (shared with search's copies at the same version)."""
    with ws.read() as conn:
        rows = fact_rows(ws, conn, snapshot_of(ws, conn))
    return {w.role: (rows.digest(),) for w in WATCHED if w.rows}


def _held(mark: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
    """A table with no rows reads as a table that is not there (the desk's first change adds its
    tables, empty: nothing a view shows changed)."""
    return None if mark is None or mark[0] == 0 else mark


def changed(before: Marks, after: Marks) -> tuple[frozenset[Kind], bool]:
    """The kinds whose tables moved between two readings, and whether the history did."""
    moved: set[Kind] = set()
    history = False
    for w in WATCHED:
        if _held(before.get(w.role)) != _held(after.get(w.role)):
            moved.update(w.kinds)
            history = history or w.history
    return frozenset(moved), history


class Follower:
    """What other programs change in one open workspace, kind by kind: the window's watcher
    asks ``poll()`` every second (on its own thread). ``slow_share``: the share of the time the
    pass over the fact rows' marks may take (see the module)."""

    def __init__(self, ws: Workspace, *, slow_share: float = 0.1,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.ws, self.slow_share, self.clock = ws, slow_share, clock
        self.quick: Marks | None = None
        self.slow: Marks = {}
        self.slow_due = 0.0  # when the row marks may be read again
        self.slow_wanted = False  # another program committed since they were last read
        self.slow_behind = False  # we committed since: read them again before another program's change
        self.ours = ws.own_commit_count

    def poll(self) -> tuple[frozenset[Kind], bool] | None:
        """The kinds another program changed since the last poll, and whether it wrote the desk's
        history; None when nothing it changed is shown anywhere."""
        moved = self.ws.changed_on_disk()
        ours, self.ours = self.ws.own_commit_count != self.ours, self.ws.own_commit_count
        if self.quick is None:  # the first poll: where the file stands
            with self.ws.read() as conn:
                self.quick = marks(conn, self.ws.layout)
            self.slow = row_marks(self.ws)
            return None
        kinds: frozenset[Kind] = frozenset()
        history = False
        if moved or ours:
            with self.ws.read() as conn:
                quick = marks(conn, self.ws.layout)
            if moved:  # (only ours moved: the marks start from here, nothing is reported)
                kinds, history = changed(self.quick, quick)
            self.quick = quick
            self.slow_wanted = self.slow_wanted or moved
            self.slow_behind = self.slow_behind or not moved
        if (self.slow_wanted or self.slow_behind) and self.clock() >= self.slow_due:
            started = self.clock()
            slow = row_marks(self.ws)
            spent = self.clock() - started
            self.slow_due = started + spent + spent / self.slow_share
            if self.slow_wanted:  # (only ours since the last read: where they stand now, nothing reported)
                kinds |= changed(self.slow, slow)[0]
            self.slow, self.slow_wanted, self.slow_behind = slow, False, False
        return (kinds, history) if kinds or history else None


# --- every fact row's own mark -----------------------------------------------------------------

#: What a fact row's mark is the hash of. Search's copies read the first eight by position (the
#: row as they hold it); the creation time quoted as well, so that -1 and -2 (whose hashes Python
#: makes equal), or 1 and '1', never mark alike; then what a row written in place changes.
FACT_ROW_COLUMNS: Final = ("rowid, id, workspace_id, domain, topic, content, superseded_by, created_at, "
                           "quote(created_at), updated_at, last_recalled_at, recall_count, confidence, "
                           "mention_count, valid_until")


def row_mark(row: tuple[Any, ...]) -> int:
    """A fact row's mark (``FACT_ROW_COLUMNS`` as the driver gives them): Python's own hash of the
    row, seeded per process; two different rows agree on it with a chance of about 2⁻⁶⁴."""
    return hash(row)


class FactRows(NamedTuple):
    """Every fact row's mark at one snapshot, which showed ``version`` (None: unknown)."""

    version: int | None
    rowids: array.array  # of "q", in the table's order
    prints: array.array  # of "q", the marks, in the same order

    def digest(self) -> int:
        return hash((self.rowids.tobytes(), self.prints.tobytes()))


class _Kept:
    """The fact rows' marks last read for one open workspace (``Workspace.fact_marks``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rows: FactRows | None = None


_kept_made = threading.Lock()


def fact_rows(ws: Workspace, conn: Connection, version: int | None) -> FactRows:
    """Every fact row's mark at ``conn``'s snapshot, which shows ``version`` (``snapshot_of``; None:
    unknown): read once per version and kept on the workspace, so that the window's watcher and
    search's copies pay for one pass; a caller asking while the pass runs waits for it."""
    kept = ws.fact_marks
    if kept is None:
        with _kept_made:
            kept = ws.fact_marks = ws.fact_marks or _Kept()
    with kept.lock:
        held = kept.rows
        if version is not None and held is not None and held.version == version:
            return held
        rowids, prints = array.array("q"), array.array("q")
        cursor = conn.connection.driver_connection.execute(f"SELECT {FACT_ROW_COLUMNS} FROM {ws.layout.facts.name}")
        while chunk := cursor.fetchmany(5_000):
            rowids.extend([r[0] for r in chunk])
            prints.extend(map(row_mark, chunk))
        rows = FactRows(version, rowids, prints)
        if version is not None and (held is None or held.version is None or held.version < version):
            kept.rows = rows
        return rows


def snapshot_of(ws: Workspace, conn: Connection) -> int | None:
    """Begin ``conn``'s read snapshot (it must not have read yet) and say the ``data_version`` it
    shows: None when another program committed while it began."""
    before = ws.data_version()
    conn.exec_driver_sql(f"SELECT 1 FROM {ws.layout.facts.name} LIMIT 1").all()  # begins the snapshot
    after = ws.data_version()
    return before if before == after else None


# --- one stamp over the memory an agent gets -------------------------------------------------------

def data_stamp(ws: Workspace) -> str:
    """A mark of the workspace's data: it changes when facts, policies, notes or items change."""
    facts, pol, notes, items = (ws.layout.facts.name, ws.layout.policies.name, ws.layout.notes.name,
                                ws.layout.items.name)
    with ws.read() as conn:
        row = conn.exec_driver_sql(
            f"SELECT (SELECT count(*) || '.' || ifnull(max(rowid), 0) || '.' || ifnull(max(updated_at), 0) || '.' || "
            f"(SELECT count(*) FROM {facts} WHERE superseded_by IS NULL) FROM {facts}), "
            f"(SELECT count(*) || '.' || ifnull(max(updated_at), 0) || '.' || ifnull(sum(active), 0) FROM {pol}), "
            f"(SELECT count(*) || '.' || ifnull(max(updated_at), 0) || '.' || ifnull(sum(length(content)), 0) "
            f"FROM {notes}), "
            f"(SELECT count(*) || '.' || ifnull(max(rowid), 0) FROM {items})").first()
    return "/".join(str(x) for x in row)


__all__ = ["FACT_ROW_COLUMNS", "WATCHED", "FactRows", "Follower", "Marks", "Watched", "changed", "data_stamp",
           "fact_rows", "marks", "row_mark", "row_marks", "snapshot_of"]
