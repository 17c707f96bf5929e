"""Search's copies of a file, kept in step while agents keep writing it.

Search keeps exact copies of what it reads most (``copies.FileState``): the full-text
index (``mirror``), our vector index (``vector_copy``; for a product file without it,
the embedding column, ``embedding_copy``), the temporal voice's list (``recent``), and
a 64-bit fingerprint of every fact row (its id, workspace, domain, topic, content,
supersession and creation time; ``rows``). They are built once, off the caller's
thread, after the second search of a workspace (a one-shot command never pays for
them). From then on a search whose snapshot shows a newer file version first brings
the copies to that version, reading only what changed:

1. the full-text index names every row that any statement touched since the version
   the copies show (``fts_log``: new segments, and the rows in them);
2. those rows are read again; a row whose fingerprint is unchanged was only moved by a
   merge of the index; the others (and rows past the last rowid known) are the change;
3. each changed row is tokenized as FTS5 tokenizes it (``mirror.Retokenizer``) and must
   have exactly the column lengths ``%_docsize`` holds for it; the copy of the index,
   the temporal lists, the fingerprints and the embedding matrix take the new rows; the
   vector copy compares its chunk table with the file's (``vector_copy``);
4. the copies' row count and tokens per column must equal the index's averages record
   (a deletion whose trace FTS5 merged away before we looked is found by listing the
   rows, on files of up to 400,000 facts; beyond, the copies are rebuilt).

Nothing is added to the file: no trigger, no index, no table of ours; a file opened
read-only is followed the same way.

What cannot be followed this way — a schema change (``VACUUM`` counts as one), more
new index pages than ``CacheSettings.max_follow_pages`` (an FTS5 ``rebuild``, a bulk
rewrite), a format this code does not know, any check above failing — drops the
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
from memorydesk.search.copies import CacheSettings, FileState, configure, settings
from memorydesk.search.fts_log import Unfollowable
from memorydesk.search.vector_copy import CopyUnusable
from memorydesk.store import Workspace

__all__ = ["CacheSettings", "FileState", "cache_report", "configure", "forget", "settings", "using", "wait_ready"]

log = logging.getLogger("memorydesk.search")


# --- the one state, and who may use it ---------------------------------------------------------

_lock = threading.RLock()
_state: list[FileState | None] = [None]
_owner: list[Any] = [None]  # weakref to the Workspace the state belongs to
_asked: dict[str, Any] = {"owner": None, "count": 0, "last": None, "failed": None}
_builder: list[threading.Thread | None] = [None]
_generation = [0]
_ready = threading.Condition(_lock)


def _owned_by(ws: Workspace) -> bool:
    return _owner[0] is not None and _owner[0]() is ws


@contextlib.contextmanager
def using(ws: Workspace, conn: Connection) -> Iterator[FileState | None]:
    """The copies at this connection's snapshot (None: run the product's SQL), held for the block."""
    version = snapshot_version(ws, conn)
    if version is None:
        yield None
        return
    with _lock:
        state = _state[0] if _owned_by(ws) else None
        if state is None:
            _count_search(ws, conn)
            state = _state[0] if _owned_by(ws) else None  # an inline build may have made it
        if state is not None and state.version < version:
            try:
                state.follow(ws, conn, version)
            except (Unfollowable, CopyUnusable, sqlean.Error, ValueError, KeyError) as exc:
                log.info("search copies rebuilt: %s", exc)
                _state[0] = None
                _start_build(ws)
                state = None
            else:
                if state.overlay_full() and _builder[0] is None and settings().background:
                    _start_build(ws)  # merge the changed rows into a fresh copy, off this thread
        yield state if state is not None and state.version == version else None


def _count_search(ws: Workspace, conn: Connection) -> None:
    if _asked["owner"] is None or _asked["owner"]() is not ws:
        _asked.update(owner=weakref.ref(ws), count=0, last=None, failed=None)
    txn = conn.get_transaction()
    if txn is not None and _asked["last"] is not None and _asked["last"]() is txn:
        return  # another voice of the same search
    _asked["last"] = weakref.ref(txn) if txn is not None else None
    _asked["count"] += 1
    if _asked["failed"] is not None and _asked["failed"] == snapshot_version(ws, conn):
        return  # the build failed on this very version: wait for the file to change
    if _asked["count"] >= settings().build_after and _builder[0] is None:
        _start_build(ws)


def _start_build(ws: Workspace) -> None:
    _generation[0] += 1
    generation = _generation[0]
    if not _owned_by(ws):
        _state[0] = None
        _owner[0] = weakref.ref(ws)
    if not settings().background:
        _build(weakref.ref(ws), generation)
        return
    thread = threading.Thread(target=_build, args=(weakref.ref(ws), generation), name="memorydesk-search-copies",
                              daemon=True)
    _builder[0] = thread
    thread.start()


def _build(ws_ref: Any, generation: int) -> None:
    def keep_going() -> bool:
        return _generation[0] == generation and ws_ref() is not None

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
            for _catch_up in range(5):  # the file moved on during the build: follow it here, not in a search
                with ws.read() as conn:
                    now = snapshot_version(ws, conn)
                    if now is not None and now > state.version:
                        state.follow(ws, conn, now)
                with _lock:
                    if not (keep_going() and _owned_by(ws)):
                        return
                    current = _state[0]
                    if current is None or current.version <= state.version:
                        _state[0] = state
                        _ready.notify_all()
                        return
            return
    except InterruptedError:
        return
    except Exception as exc:  # any failure leaves search on the product's SQL
        log.warning("search copies not built: %s", exc, exc_info=not isinstance(exc, (Unfollowable, CopyUnusable)))
        with _lock:
            if keep_going():
                _asked["failed"] = version
    finally:
        with _lock:
            if _builder[0] is threading.current_thread():
                _builder[0] = None
            _ready.notify_all()


def wait_ready(ws: Workspace, timeout: float = 600.0) -> FileState | None:
    """Start the build if needed and wait for it (tests, benchmarks, warm-up)."""
    deadline = time.monotonic() + timeout
    with _lock:
        if not (_owned_by(ws) and _state[0] is not None) and _builder[0] is None:
            _start_build(ws)
        while not (_owned_by(ws) and _state[0] is not None):
            left = deadline - time.monotonic()
            if left <= 0 or _builder[0] is None:
                break  # nothing is being built (or the build failed): no copies
            _ready.wait(left)
        return _state[0] if _owned_by(ws) else None


def forget() -> None:
    """Drop every copy (tests, benchmarks); a build under way is abandoned."""
    with _lock:
        _generation[0] += 1
        _state[0] = None
        _owner[0] = None
        _asked.update(owner=None, count=0, last=None, failed=None)


def cache_report() -> dict[str, Any]:
    """What search keeps in memory now, in bytes, and the bound."""
    with _lock:
        state = _state[0]
        parts = state.report() if state is not None else {}
        return {"parts": parts, "total": sum(parts.values()), "max_bytes": settings().max_bytes,
                "notes": list(state.notes) if state is not None else [],
                "version": state.version if state is not None else None}
