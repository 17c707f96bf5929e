"""Per-file-version caches shared by the search modules.

A value derived from the file (a vector matrix, the temporal voice, a term's postings)
is kept while the file's ``data_version`` does not change. The version is read around
the start of the connection's read snapshot (before and after its first read): when both
readings agree, the snapshot shows exactly that version, so a value computed in it is
valid for every later snapshot showing the same version. When a commit slips in between,
the search runs without caches. Versions are only comparable for one ``Workspace`` object
(they come from its watcher connection), so the cache belongs to one object at a time.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Connection

from memorydesk.store import Workspace

__all__ = ["SIZED_BUDGET", "cached", "clear_caches", "on_reset", "snapshot_version"]

T = TypeVar("T")

_lock = threading.Lock()
_snapshots: weakref.WeakKeyDictionary[Connection, tuple[Callable[[], Any], int | None]] = weakref.WeakKeyDictionary()
_owner: list[Any] = [None]  # weakref to the Workspace the cache belongs to
_entries: OrderedDict[tuple[Any, ...], tuple[int, Any, int]] = OrderedDict()  # key -> (version, value, size)
_sized_total = [0]
_asked: dict[tuple[Any, ...], tuple[int, int]] = {}  # key -> (version, times asked), for ``after``
#: Sized values (a term's postings: one rowid and one float each) kept at most, in elements
#: (16 bytes each); the oldest go first.
SIZED_BUDGET = 10_000_000

_reset_hooks: list[Callable[[], None]] = []


def on_reset(hook: Callable[[], None]) -> None:
    """Call ``hook`` whenever the cache is emptied (a module's own spare buffers, say)."""
    _reset_hooks.append(hook)


def snapshot_version(ws: Workspace, conn: Connection) -> int | None:
    """The ``data_version`` this connection's read snapshot shows, or None when unknown.

    The first call on a connection that has not read anything yet starts its read
    transaction; later calls in the same transaction return the same answer.
    """
    txn = conn.get_transaction()
    with _lock:
        known = _snapshots.get(conn)
    if known is not None and txn is not None and known[0]() is txn:
        return known[1]
    if txn is not None:  # something already ran in this transaction: its snapshot is unknown
        version: int | None = None
    else:
        before = ws.data_version()
        conn.exec_driver_sql(f"SELECT 1 FROM {ws.layout.facts.name} LIMIT 1").all()  # begins the snapshot
        after = ws.data_version()
        version = before if before == after else None
    current = conn.get_transaction()
    with _lock:  # a weak reference: the transaction refers to the connection, the key
        _snapshots[conn] = (weakref.ref(current) if current is not None else _dead, version)
    return version


def _dead() -> None:
    return None


def cached(ws: Workspace, conn: Connection, key: tuple[Any, ...], build: Callable[[], T],
           *, size: Callable[[T], int] | None = None, after: int = 1) -> T | None:
    """``build()``, or the value it gave before for this file version (``key`` names it).

    ``after``: build only when this file version asks for the value for the ``after``-th
    time, and answer None before (for values that cost many searches' worth to build:
    a file that changes between every search, or a one-shot command, never pays for them).
    Values with a ``size`` count against ``SIZED_BUDGET``. Values of other versions are
    dropped as soon as a new version's value is stored.
    """
    version = snapshot_version(ws, conn)
    if version is None:
        return build() if after <= 1 else None
    with _lock:
        if _owner[0] is None or _owner[0]() is not ws:
            _reset(ws)
        hit = _entries.get(key)
        if hit is not None and hit[0] == version:
            _entries.move_to_end(key)
            return hit[1]
        if after > 1:
            seen = _asked.get(key)
            count = seen[1] + 1 if seen is not None and seen[0] == version else 1
            _asked[key] = (version, count)
            if count < after:
                return None
    value = build()
    n = size(value) if size is not None else 0
    with _lock:
        if _owner[0] is None or _owner[0]() is not ws:
            return value
        for k in [k for k, v in _entries.items() if v[0] != version or k == key]:
            _sized_total[0] -= _entries.pop(k)[2]
        _entries[key] = (version, value, n)
        _sized_total[0] += n
        if _sized_total[0] > SIZED_BUDGET:
            for k in [k for k, v in _entries.items() if v[2] and k != key]:
                _sized_total[0] -= _entries.pop(k)[2]
                if _sized_total[0] <= SIZED_BUDGET:
                    break
    return value


def _reset(ws: Workspace | None) -> None:
    _entries.clear()
    _asked.clear()
    for hook in _reset_hooks:
        hook()
    _sized_total[0] = 0
    _owner[0] = weakref.ref(ws) if ws is not None else None


def clear_caches(kind: str | None = None) -> None:
    """Forget cached values: all of them, or those whose key starts with ``kind`` (tests, benchmarks)."""
    with _lock:
        if kind is None:
            _reset(None)
            return
        for key in [k for k in _entries if k and k[0] == kind]:
            _sized_total[0] -= _entries.pop(key)[2]
