"""Per-file-version values shared by the search modules.

A value derived from the file (the embedding column as a matrix, the temporal voice
before search has its followed copies, the policy lines) is kept while the file's
``data_version`` does not change. The version is read around the start of the
connection's read snapshot (before and after its first read): when both readings agree,
the snapshot shows exactly that version, so a value computed in it is valid for every
later snapshot showing the same version. When a commit slips in between, the search
runs without these values. Versions are only comparable for one ``Workspace`` object
(they come from its watcher connection), so each open workspace holds its own
(``Workspace.search_values``, a ``Values``): two workspaces open in one process keep their
own, and closing one drops its values with it.

Values are kept in a dictionary keyed by name, for the newest version seen only:
storing and finding a value costs the same however many are kept, and a new version
empties the dictionary once. Values with a size count against ``SIZED_BUDGET``, the
least recently used going first. (What search keeps *across* versions, following the
file's changes, lives in ``search.copies.follow``.)
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Connection

from memorydesk.store import Workspace
from memorydesk.store.watermarks import snapshot_of

__all__ = ["SIZED_BUDGET", "Values", "cached", "clear_caches", "snapshot_version"]

T = TypeVar("T")

#: Sized values kept at most per workspace, in elements (16 bytes each); the least recently used go first.
SIZED_BUDGET = 10_000_000


class Values:
    """The values one open workspace keeps for its newest file version (held by it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.snapshots: weakref.WeakKeyDictionary[Connection, tuple[Callable[[], Any], int | None]] = \
            weakref.WeakKeyDictionary()
        self.version: int | None = None  # the file version every entry belongs to
        self.entries: dict[tuple[Any, ...], tuple[Any, int]] = {}  # key -> (value, size)
        self.sized: OrderedDict[tuple[Any, ...], None] = OrderedDict()  # with a size, least recently used first
        self.sized_total = 0
        self.asked: dict[tuple[Any, ...], int] = {}  # key -> times asked at this version, for ``after``

    def clear(self) -> None:
        self.entries.clear()
        self.sized.clear()
        self.asked.clear()
        self.sized_total = 0

    def close(self) -> None:
        """The workspace closed: let every value go."""
        with self.lock:
            self.clear()
            self.version = None

    def forget(self, key: tuple[Any, ...]) -> None:
        old = self.entries.pop(key, None)
        if old is not None and key in self.sized:
            del self.sized[key]
            self.sized_total -= old[1]


_made = threading.Lock()


def values_of(ws: Workspace) -> Values:
    """The values ``ws`` holds (made the first time it is asked)."""
    held = ws.search_values
    if held is None:
        with _made:
            held = ws.search_values
            if held is None:
                held = ws.search_values = Values()
    return held


def snapshot_version(ws: Workspace, conn: Connection) -> int | None:
    """The ``data_version`` this connection's read snapshot shows, or None when unknown.

    The first call on a connection that has not read anything yet starts its read
    transaction; later calls in the same transaction return the same answer.
    """
    txn = conn.get_transaction()
    held = values_of(ws)
    with held.lock:
        known = held.snapshots.get(conn)
    if known is not None and txn is not None and known[0]() is txn:
        return known[1]
    if txn is not None:  # something already ran in this transaction: its snapshot is unknown
        version: int | None = None
    else:
        version = snapshot_of(ws, conn)
    current = conn.get_transaction()
    with held.lock:  # a weak reference: the transaction refers to the connection, the key
        held.snapshots[conn] = (weakref.ref(current) if current is not None else _dead, version)
    return version


def _dead() -> None:
    return None


def _take(held: Values, version: int) -> bool:
    """Make the values ``held``'s at ``version`` (under its lock); False for an older snapshot."""
    if held.version != version:
        if held.version is not None and version < held.version:
            return False
        held.clear()
        held.version = version
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
    held = values_of(ws)
    with held.lock:
        if not _take(held, version):
            return build() if after <= 1 else None
        hit = held.entries.get(key)
        if hit is not None:
            if key in held.sized:
                held.sized.move_to_end(key)
            return hit[0]
        if after > 1:
            count = held.asked.get(key, 0) + 1
            held.asked[key] = count
            if count < after:
                return None
    value = build()
    n = size(value) if size is not None else 0
    with held.lock:
        if held.version != version:
            return value
        held.forget(key)
        held.entries[key] = (value, n)
        if n:
            held.sized[key] = None
            held.sized_total += n
            while held.sized_total > SIZED_BUDGET and len(held.sized) > 1:
                oldest, _ = held.sized.popitem(last=False)
                held.sized_total -= held.entries.pop(oldest)[1]
    return value


def clear_caches(ws: Workspace | None = None, kind: str | None = None) -> None:
    """Forget cached values of ``ws`` (benchmarks, tests): all of them, or those whose key starts
    with ``kind``. Without a workspace: nothing is kept but by open workspaces, so this is for
    the one given."""
    if ws is None:
        return
    held = values_of(ws)
    with held.lock:
        if kind is None:
            held.clear()
            held.version = None
            return
        for key in [k for k in held.entries if k and k[0] == kind]:
            held.forget(key)
