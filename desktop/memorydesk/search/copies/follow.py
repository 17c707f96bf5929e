"""Search's copies of a file, kept in step while agents keep writing it.

Search keeps exact copies of what it reads most (``copies.FileState``): the full-text
index (``mirror``), our vector index (``vector_copy``; for a product file without it,
the embedding column, ``embedding_copy``), the temporal voice's list (``recent``), and
every fact row's mark (``rows``). They are built once, off the caller's thread, after the
second search of a workspace (a one-shot command never pays for them:
``CacheSettings.one_shot``, unless it asks for them for many searches). From then on a
search whose snapshot shows a newer file version (``PRAGMA data_version``,
``search.cache.snapshot_version``) first brings the copies to that version, through what
any program may read — the fact table's rows and the full-text index's own queries,
never the index's storage:

1. every fact row's mark at that version (``store.watermarks.fact_rows``: the one way the
   desk notices another program's writes, read once per version and shared with the
   window's watcher) is compared with the one held: rows whose mark differs, new rows and
   rows gone are the change (``rows.changed_rows``);
2. the changed rows are read in full and tokenized as FTS5 tokenizes them, by a scratch
   FTS5 table with the product's options (``mirror.Retokenizer``, through its own
   ``fts5vocab``); the copy of the index, the temporal lists, the fingerprints and the
   embedding matrix take them; the vector copy compares its chunk table with the file's
   (``vector_copy``);
3. FTS5 is asked to rank two phrases — the rarest term of the changed rows and the
   copy's rarest term — and must rank them exactly as the copy does, to the bit
   (``bm25_terms.agrees``): the same rows, the same row count and tokens in the index.

Nothing is added to the file: no trigger, no index, no table of ours; a file opened
read-only is followed the same way. The cost is one pass over the fact table's rows per
change (its pages are most of it), whatever was written.

What cannot be followed this way — a schema change (``VACUUM`` counts as one), more
changed rows than ``CacheSettings.max_follow_rows`` (an FTS5 ``rebuild``, a bulk
rewrite), an index out of step with its table, any check above failing — drops the
copies and rebuilds them off the caller's thread; until then searches run the
product's SQL. Nothing ever waits for a rebuild. A build that finishes after the file
moved on follows the file before it is used; copies with many changed rows are rebuilt
(on a thread, the old ones serving meanwhile) to merge them.

A search uses the copies only when its snapshot shows exactly their version; a search
on an older snapshot than the copies runs the product's SQL. Following and reading
happen under one lock, so a search never sees a copy half-way through a change.

Memory: ``CacheSettings.max_bytes`` bounds the whole (environment variable
``MEMORY_DESK_SEARCH_CACHE_MB``; the desk's setting ``search/cache_mb``); the copy of
the index and the fingerprints come first (keyword search and following depend on
them), the vector copy only if it fits beside them. ``cache_report()`` says what is held.

The graph voice's edges and every fact id's rowid (``graph_copy``) are copied at the
build's version but not followed: a change drops them, and the recall audit has them built
again for the version it searches (``prepare_graph``); other searches ask SQLite meanwhile.

The copies belong to the open workspace (``Workspace.search_copies``, a ``Copies``), not to
the process: two workspaces open at once each keep their own, and closing one frees them.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

import sqlean
from sqlalchemy import Connection

from memorydesk.search.cache import snapshot_version
from memorydesk.search.copies.bundle import CacheSettings, FileState, configure, settings
from memorydesk.search.copies.memory_use import let_go
from memorydesk.search.copies.rows import Unfollowable
from memorydesk.search.copies.vectors import CopyUnusable
from memorydesk.store import Workspace

__all__ = ["CacheSettings", "Copies", "FileState", "cache_report", "catch_up", "configure", "copies_of", "forget",
           "one_shot", "prepare", "prepare_graph", "settings", "using", "wait_ready"]

log = logging.getLogger("memorydesk.search")


# --- the copies of one open workspace, held by it ----------------------------------------------

class Copies:
    """What search keeps of one open workspace (``Workspace.search_copies``): its ``FileState``,
    the searches counted before building it, the build under way. Two workspaces open in one
    process each hold their own; closing one drops its copies and abandons its build."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.ready = threading.Condition(self.lock)
        self.state: FileState | None = None
        self.asked: dict[str, Any] = {"count": 0, "last": None, "failed": None}
        self.builder: threading.Thread | None = None
        self.generation = 0

    def close(self) -> None:
        """Drop the copies; a build under way is abandoned."""
        with self.lock:
            self.generation += 1
            self.state = None
            self.asked = {"count": 0, "last": None, "failed": None}
            self.ready.notify_all()


_made = threading.Lock()
_open: weakref.WeakSet[Copies] = weakref.WeakSet()  # only to name them all (``forget``, ``cache_report``)


def copies_of(ws: Workspace) -> Copies:
    """The copies ``ws`` holds (made the first time it is asked)."""
    held = ws.search_copies
    if held is None:
        with _made:
            held = ws.search_copies
            if held is None:
                held = ws.search_copies = Copies()
                _open.add(held)
    return held


@contextlib.contextmanager
def using(ws: Workspace, conn: Connection) -> Iterator[FileState | None]:
    """The copies at this connection's snapshot (None: run the product's SQL), held for the block."""
    version = snapshot_version(ws, conn)
    if version is None:
        yield None
        return
    held = copies_of(ws)
    with held.lock:
        state = held.state
        if state is None:
            _count_search(held, ws, conn)
            state = held.state  # an inline build may have made it
        if state is not None and state.version < version:
            try:
                state.follow(ws, conn, version)
            except (Unfollowable, CopyUnusable, sqlean.Error, ValueError, KeyError) as exc:
                log.info("search copies rebuilt: %s", exc)
                held.state = None
                _start_build(held, ws)
                state = None
            else:
                if state.overlay_full() and held.builder is None and settings().background:
                    _start_build(held, ws)  # merge the changed rows into a fresh copy, off this thread
        yield state if state is not None and state.version == version else None


@contextlib.contextmanager
def one_shot() -> Iterator[None]:
    """Within the block the process answers one command and ends (``CacheSettings.one_shot``): no
    search or warm-up starts a build of the copies; the setting is put back after (a test may run
    commands in its own process)."""
    before = settings().one_shot
    configure(one_shot=True)
    try:
        yield
    finally:
        configure(one_shot=before)


def prepare(ws: Workspace) -> None:
    """Start building the copies of ``ws`` now, off the caller's thread (the window does, once its
    first rows are shown), unless they are held or being built already."""
    if settings().one_shot:
        return
    held = copies_of(ws)
    with held.lock:
        if held.state is None and held.builder is None:
            _start_build(held, ws)


def catch_up(ws: Workspace) -> None:
    """Bring the copies ``ws`` holds to the file's version now, when they are behind (the window's
    watcher, after another program changed facts: the next search finds them current, and the
    pass over the fact rows' marks is the one the watcher read). No copies: nothing is done."""
    held = copies_of(ws)
    if held.state is None:
        return
    with ws.read() as conn, using(ws, conn):
        pass


def _count_search(held: Copies, ws: Workspace, conn: Connection) -> None:
    asked = held.asked
    txn = conn.get_transaction()
    if txn is not None and asked["last"] is not None and asked["last"]() is txn:
        return  # another voice of the same search
    asked["last"] = weakref.ref(txn) if txn is not None else None
    asked["count"] += 1
    if asked["failed"] is not None and asked["failed"] == snapshot_version(ws, conn):
        return  # the build failed on this very version: wait for the file to change
    if asked["count"] >= settings().build_after and held.builder is None and not settings().one_shot:
        _start_build(held, ws)


def _start_build(held: Copies, ws: Workspace) -> None:
    held.generation += 1
    generation = held.generation
    if not settings().background:
        _build(held, weakref.ref(ws), generation)
        return
    thread = threading.Thread(target=_build, args=(held, weakref.ref(ws), generation),
                              name="memorydesk-search-copies", daemon=True)
    held.builder = thread
    thread.start()


def _build(held: Copies, ws_ref: Any, generation: int) -> None:
    def keep_going() -> bool:
        return held.generation == generation and ws_ref() is not None

    version: int | None = None
    try:
        for _attempt in range(5):
            ws = ws_ref()
            if ws is None or not keep_going():
                return
            with ws.read() as conn:
                version = snapshot_version(ws, conn)
                if version is None:
                    continue  # a commit slipped in while the snapshot began: try again
                state = FileState.build(ws, conn, version, keep_going)
                let_go(conn.connection.driver_connection)  # what the build used for a while goes back
            for _catch_up in range(5):  # the file moved on during the build: follow it here, not in a search
                with ws.read() as conn:
                    now = snapshot_version(ws, conn)
                    if now is not None and now > state.version:
                        state.follow(ws, conn, now)
                with held.lock:
                    if not keep_going():
                        return
                    current = held.state
                    if current is None or current.version <= state.version:
                        held.state = state
                        held.ready.notify_all()
                        return
            return
    except InterruptedError:
        return
    except Exception as exc:  # any failure leaves search on the product's SQL
        log.warning("search copies not built: %s", exc, exc_info=not isinstance(exc, (Unfollowable, CopyUnusable)))
        with held.lock:
            if keep_going():
                held.asked["failed"] = version
    finally:
        with held.lock:
            if held.builder is threading.current_thread():
                held.builder = None
            held.ready.notify_all()


def wait_ready(ws: Workspace, timeout: float = 600.0) -> FileState | None:
    """Start the build if needed and wait for it (tests, benchmarks, warm-up)."""
    deadline = time.monotonic() + timeout
    held = copies_of(ws)
    with held.lock:
        if held.state is None and held.builder is None:
            _start_build(held, ws)
        while held.state is None:
            left = deadline - time.monotonic()
            if left <= 0 or held.builder is None:
                break  # nothing is being built (or the build failed): no copies
            held.ready.wait(left)
        return held.state


def prepare_graph(ws: Workspace) -> bool:
    """Make sure the copies hold the graph's edges at the file's current version, building them
    now if a change dropped them (the recall audit, before a batch of searches); whether they do."""
    with ws.read() as conn:
        snapshot_version(ws, conn)
        with using(ws, conn) as state:
            return state is not None and state.graph_for(ws, conn) is not None


def forget(ws: Workspace | None = None) -> None:
    """Drop ``ws``'s copies (every open workspace's without one: tests, benchmarks); a build
    under way is abandoned."""
    for held in [copies_of(ws)] if ws is not None else list(_open):
        held.close()


def cache_report(ws: Workspace | None = None) -> dict[str, Any]:
    """What search keeps in memory now for ``ws`` (for every open workspace without one), in
    bytes, and the bound (which each workspace's copies keep to)."""
    states = []
    for held in [copies_of(ws)] if ws is not None else list(_open):
        with held.lock:
            if held.state is not None:
                states.append(held.state)
    parts: dict[str, int] = {}
    for state in states:
        for name, size in state.report().items():
            parts[name] = parts.get(name, 0) + size
    return {"parts": parts, "total": sum(parts.values()), "max_bytes": settings().max_bytes,
            "notes": [n for state in states for n in state.notes],
            "version": states[0].version if len(states) == 1 else None}
