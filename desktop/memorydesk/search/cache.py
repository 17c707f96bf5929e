"""Per-file-version values shared by the search modules.

A value derived from the file (the embedding column as a matrix, the temporal voice
before search has its followed copies, the policy lines) is kept while the file's
``data_version`` does not change. The version is read around the start of the
connection's read snapshot (before and after its first read): when both readings agree,
the snapshot shows exactly that version, so a value computed in it is valid for every
later snapshot showing the same version. When a commit slips in between, the search
runs without these values. Versions are only comparable for one ``Workspace`` object
(they come from its watcher connection), so the cache belongs to one object at a time.

Values are kept in a dictionary keyed by name, for the newest version seen only:
storing and finding a value costs the same however many are kept, and a new version
empties the dictionary once. Values with a size count against ``SIZED_BUDGET``, the
least recently used going first. (What search keeps *across* versions, following the
file's changes, lives in ``search.follow``.)
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
_version: list[int | None] = [None]  # the file version every entry belongs to
_entries: dict[tuple[Any, ...], tuple[Any, int]] = {}  # key -> (value, size)
_sized: OrderedDict[tuple[Any, ...], None] = OrderedDict()  # keys with a size, least recently used first
_sized_total = [0]
_asked: dict[tuple[Any, ...], int] = {}  # key -> times asked at this version, for ``after``
#: Sized values kept at most, in elements (16 bytes each); the least recently used go first.
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


def _take(ws: Workspace, version: int) -> bool:
    """Make the cache ``ws``'s at ``version`` (under ``_lock``); False for an older snapshot."""
    if _owner[0] is None or _owner[0]() is not ws:
        _reset(ws)
    if _version[0] != version:
        if _version[0] is not None and version < _version[0]:
            return False
        _clear_entries()
        _version[0] = version
    return True


def cached(ws: Workspace, conn: Connection, key: tuple[Any, ...], build: Callable[[], T],
           *, size: Callable[[T], int] | None = None, after: int = 1) -> T | None:
    """``build()``, or the value it gave before for this file version (``key`` names it).

    ``after``: build only when this file version asks for the value for the ``after``-th
    time, and answer None before. Values with a ``size`` count against ``SIZED_BUDGET``.
    """
    version = snapshot_version(ws, conn)
    if version is None:
        return build() if after <= 1 else None
    with _lock:
        if not _take(ws, version):
            return build() if after <= 1 else None
        hit = _entries.get(key)
        if hit is not None:
            if key in _sized:
                _sized.move_to_end(key)
            return hit[0]
        if after > 1:
            count = _asked.get(key, 0) + 1
            _asked[key] = count
            if count < after:
                return None
    value = build()
    n = size(value) if size is not None else 0
    with _lock:
        if _owner[0] is None or _owner[0]() is not ws or _version[0] != version:
            return value
        _forget(key)
        _entries[key] = (value, n)
        if n:
            _sized[key] = None
            _sized_total[0] += n
            while _sized_total[0] > SIZED_BUDGET and len(_sized) > 1:
                oldest, _ = _sized.popitem(last=False)
                _sized_total[0] -= _entries.pop(oldest)[1]
    return value


def _forget(key: tuple[Any, ...]) -> None:
    old = _entries.pop(key, None)
    if old is not None and key in _sized:
        del _sized[key]
        _sized_total[0] -= old[1]


def _clear_entries() -> None:
    _entries.clear()
    _sized.clear()
    _asked.clear()
    _sized_total[0] = 0


def _reset(ws: Workspace | None) -> None:
    _clear_entries()
    for hook in _reset_hooks:
        hook()
    _version[0] = None
    _owner[0] = weakref.ref(ws) if ws is not None else None


def clear_caches(kind: str | None = None) -> None:
    """Forget cached values: all of them, or those whose key starts with ``kind`` (tests, benchmarks)."""
    with _lock:
        if kind is None:
            _reset(None)
            return
        for key in [k for k in _entries if k and k[0] == kind]:
            _forget(key)
