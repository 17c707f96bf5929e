"""The temporal voice's list, kept in step with the file: the newest active facts.

The product asks for the 30 newest active facts of the workspace (``ORDER BY created_at
DESC, rowid DESC``); without an index on ``created_at`` that is a scan of the whole
table. ``Recent`` keeps the ``DEPTH`` first rows of that order, and the promise that
every other qualifying row comes after the last one kept. A changed row is taken out
and, if it still qualifies and would come before the last one kept, put back in its
place; rows leaving only shorten the list. When fewer than the asked-for rows are left
(and the list did not already hold every qualifying row), the list must be read again.

Values are ordered as SQLite orders them: NULL last (in descending order), numbers by
value (integers and reals together), then text by its UTF-8 bytes, then blobs.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memorydesk.search.scope import RepoScope

__all__ = ["DEPTH", "Recent", "RecentRow", "order_key"]

#: Rows each list keeps (the voice asks for 30).
DEPTH = 256


@dataclass(frozen=True, slots=True)
class RecentRow:
    """The columns of a fact that decide whether and where it is in a temporal list."""

    rowid: int
    id: str
    workspace_id: Any
    domain: Any
    superseded_by: Any
    created_at: Any


def order_key(value: Any) -> tuple[int, Any]:
    """SQLite's ascending ``ORDER BY`` rank of a value (BINARY collation)."""
    if value is None:
        return (0, 0)
    if isinstance(value, (int, float)):
        return (1, value)
    if isinstance(value, str):
        return (2, value.encode("utf-8", "surrogatepass"))
    return (3, bytes(value))


@dataclass
class Recent:
    """The first rows of one (workspace, scope)'s temporal order; ascending keys, newest last."""

    workspace_id: str
    scope: RepoScope | None
    keys: list[tuple[tuple[int, Any], int]] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    complete: bool = False  # every qualifying row is here
    depth: int = DEPTH
    where: dict[int, tuple[tuple[int, Any], int]] = field(default_factory=dict)  # rowid -> its key here

    def qualifies(self, row: RecentRow) -> bool:
        if row.workspace_id != self.workspace_id or row.superseded_by is not None:
            return False
        if self.scope is None:
            return True
        return isinstance(row.domain, str) and self.scope.admits(row.domain)

    @staticmethod
    def newest_rows(rows: Iterable[RecentRow], depth: int) -> list[RecentRow]:
        """The ``depth`` rows that come first in the temporal order."""
        return heapq.nlargest(depth, rows, key=lambda r: (order_key(r.created_at), r.rowid))

    @classmethod
    def from_rows(cls, workspace_id: str, scope: RepoScope | None, rows: Iterable[RecentRow],
                  depth: int = DEPTH, complete: bool = True) -> Recent:
        """The list for ``rows``: every qualifying row of the table, or (``complete=False``) its first ones."""
        out = cls(workspace_id, scope, depth=depth)
        kept = sorted(((order_key(r.created_at), r.rowid), r.id) for r in rows if out.qualifies(r))
        out.complete = complete and len(kept) <= depth
        for key, fid in kept[-depth:]:
            out.keys.append(key)
            out.ids.append(fid)
            out.where[key[1]] = key
        return out

    def drop(self, rowid: int) -> None:
        key = self.where.pop(rowid, None)
        if key is not None:
            at = bisect.bisect_left(self.keys, key)
            del self.keys[at], self.ids[at]

    def update(self, rowid: int, row: RecentRow | None) -> None:
        """Row ``rowid`` changed to ``row`` (None: deleted)."""
        self.drop(rowid)
        if row is None or not self.qualifies(row):
            return
        key = (order_key(row.created_at), row.rowid)
        if not self.complete and self.keys and key < self.keys[0]:
            return  # after the last row kept: outside the list, as the promise says
        if not self.complete and not self.keys:
            return  # nothing left to compare with: the list must be read again anyway
        at = bisect.bisect_left(self.keys, key)
        self.keys.insert(at, key)
        self.ids.insert(at, row.id)
        self.where[rowid] = key
        if len(self.keys) > self.depth:
            del self.where[self.keys[0][1]]
            del self.keys[0], self.ids[0]
            self.complete = False

    def newest(self, limit: int) -> list[str] | None:
        """The first ``limit`` ids of the order, or None when the list no longer knows them."""
        if len(self.ids) < limit and not self.complete:
            return None
        return self.ids[::-1][:limit]
