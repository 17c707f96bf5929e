"""Row-level reads for search's copies: fact rows by rowid, their marks held by rowid, and which
rows changed.

A row's mark (its fingerprint) is ``store.watermarks``' — the one way the desk notices another
program's writes: the hash of the row as the driver gives it (``FACT_ROW_COLUMNS``: its rowid,
id, workspace, domain, topic, content, supersession, creation time, and the times and counts a
row written in place changes). Following the file compares every row's mark, read once per
file version (``watermarks.fact_rows``, shared with the window's watcher), with the one the
copies hold (``changed_rows``): a row of the fact table is the only thing read, as any program
reads it.
"""

from __future__ import annotations

import array
import heapq
from typing import Any

import numpy as np

from memorydesk.search.copies.recent import DEPTH, Recent, RecentRow
from memorydesk.search.scope import RepoScope
from memorydesk.store import Workspace
from memorydesk.store.watermarks import FACT_ROW_COLUMNS, FactRows, row_mark

__all__ = ["ROW_COLUMNS", "RowPrints", "Unfollowable", "changed_rows", "embeddings", "is_active",
           "members", "recent_row", "rows_by_id", "scan_for_recent", "scan_rows", "workspace_phrase"]

#: A fact row as the copies read it: the first columns of ``FACT_ROW_COLUMNS``.
ROW_COLUMNS = "rowid, id, workspace_id, domain, topic, content, superseded_by, created_at"
assert FACT_ROW_COLUMNS.startswith(ROW_COLUMNS + ", ")


class Unfollowable(Exception):
    """What the copies hold cannot be brought to the file's version; the caller rebuilds them."""


def is_active(row: tuple[Any, ...], workspace_id: str) -> bool:
    """The product's join predicates on a row: a fact of this workspace, not superseded."""
    return bool(row[2] == workspace_id and row[6] is None)


class RowPrints:
    """A fingerprint of every fact row, by rowid (``present`` false: no row), and whether the
    row is an active fact of the copies' workspace (``active``: what keyword search's join keeps,
    ``workspace_id = ? AND superseded_by IS NULL``, so it never asks SQLite which candidates are)."""

    def __init__(self, capacity: int) -> None:
        self.prints = np.zeros(capacity, dtype=np.int64)
        self.present = np.zeros(capacity, dtype=bool)
        self.active = np.zeros(capacity, dtype=bool)
        self.count = 0
        self.max_rowid = 0

    @property
    def nbytes(self) -> int:
        return int(self.prints.nbytes + self.present.nbytes + self.active.nbytes)

    def known(self, rowid: int) -> int | None:
        if rowid < len(self.present) and self.present[rowid]:
            return int(self.prints[rowid])
        return None

    def fill(self, rowids: np.ndarray, prints: np.ndarray, active: np.ndarray) -> None:
        """Every row at once (the build)."""
        self.prints[rowids] = prints
        self.present[rowids] = True
        self.active[rowids] = active
        self.count = int(self.present.sum())
        self.max_rowid = int(rowids.max()) if len(rowids) else 0

    def set(self, rowid: int, value: int | None, active: bool = False) -> None:
        if rowid >= len(self.present):
            grow = max(rowid + 1, int(len(self.present) * 1.25) + 1024)
            prints = np.zeros(grow, dtype=np.int64)
            prints[: len(self.prints)] = self.prints
            present = np.zeros(grow, dtype=bool)
            present[: len(self.present)] = self.present
            flags = np.zeros(grow, dtype=bool)
            flags[: len(self.active)] = self.active
            self.prints, self.present, self.active = prints, present, flags
        if self.present[rowid]:
            self.count -= 1
        self.present[rowid] = value is not None
        self.active[rowid] = value is not None and active
        if value is not None:
            self.prints[rowid] = value
            self.count += 1
            self.max_rowid = max(self.max_rowid, rowid)


def recent_row(row: tuple[Any, ...]) -> RecentRow:
    """A fact row (``ROW_COLUMNS``) as the temporal list reads it."""
    return RecentRow(int(row[0]), row[1], row[2], row[3], row[6], row[7])


def scan_rows(raw: Any, ws: Workspace, prints: RowPrints, keep_going: Any) -> tuple[Recent, set[Any]]:
    """One pass over the fact table: every row's fingerprint, the workspace's temporal list, the workspace ids."""
    wid = ws.workspace_id
    spaces: set[Any] = set()
    rowids = array.array("q")  # not lists of ints: a build leaves no Python objects behind to fragment the heap
    digests = array.array("q")
    flags = array.array("B")  # 1: an active fact of this workspace
    newest: list[tuple[Any, int, str]] = []  # (created_at, rowid, id) of active rows of the workspace
    other: list[RecentRow] = []  # the same, when created_at is not a plain integer
    trimmed = False
    cursor = raw.execute(f"SELECT {FACT_ROW_COLUMNS} FROM {ws.layout.facts.name}")
    while True:
        chunk = cursor.fetchmany(5_000)
        if not chunk:
            break
        if not keep_going():
            raise InterruptedError
        spaces.update(row[2] for row in chunk)
        for row in chunk:
            rowids.append(row[0])
            digests.append(row_mark(row))
            flags.append(is_active(row, wid))
            if flags[-1]:
                if type(row[7]) is int:
                    newest.append((row[7], row[0], row[1]))
                else:
                    other.append(recent_row(row))
        if len(newest) > 20_000:  # keep memory flat on a big file: only the newest can matter
            newest = heapq.nlargest(DEPTH, newest)
            trimmed = True
    prints.fill(np.frombuffer(rowids, dtype=np.int64), np.frombuffer(digests, dtype=np.int64),
                np.frombuffer(flags, dtype=np.uint8).astype(bool))
    kept = [RecentRow(rowid, fid, wid, None, None, created) for created, rowid, fid in heapq.nlargest(DEPTH, newest)]
    return Recent.from_rows(wid, None, kept + Recent.newest_rows(other, DEPTH),
                            complete=not trimmed and len(newest) <= DEPTH), spaces

def workspace_phrase(match: str | None) -> str | None:
    clause = ") AND (workspace_id : "
    if match is None:
        return None
    at = match.rfind(clause)
    if at < 0 or not match.endswith(")"):
        return None
    return match[at + len(clause) : -1]


def members(raw: Any, fts: str, phrase: str | None, size: int) -> np.ndarray:
    out = np.zeros(size, dtype=bool)
    if phrase is None:
        return out
    (found,) = raw.execute(f"SELECT group_concat(printf('%016x', rowid), '') FROM {fts} WHERE {fts} MATCH ?",
                           (f"workspace_id : {phrase}",)).fetchone()
    if found:
        ids = np.frombuffer(bytes.fromhex(found), dtype=">u8").astype(np.int64)
        if len(ids) and int(ids.max()) >= size:
            raise Unfollowable("a workspace row without a size")
        out[ids] = True
    return out


def _by_rowid(raw: Any, select: str, rowids: list[int]) -> list[tuple[Any, ...]]:
    """``select`` (up to its WHERE) for ``rowids``, 5,000 at a time."""
    out: list[tuple[Any, ...]] = []
    for start in range(0, len(rowids), 5000):
        part = rowids[start : start + 5000]
        out.extend(raw.execute(f"{select} WHERE rowid IN ({','.join('?' * len(part))})", tuple(part)))
    return out


def rows_by_id(raw: Any, facts: str, rowids: list[int]) -> list[tuple[Any, ...]]:
    return _by_rowid(raw, f"SELECT {ROW_COLUMNS} FROM {facts}", rowids)


def embeddings(raw: Any, facts: str, rowids: list[int]) -> list[tuple[Any, ...]]:
    return _by_rowid(raw, f"SELECT rowid, id, embedding FROM {facts}", rowids)


def changed_rows(marks: FactRows, rows: RowPrints, max_rows: int) -> dict[int, int | None]:
    """Rows whose mark (``marks``: every row's, at the version followed) is not the one ``rows``
    holds: rowid → its mark now (None: the row is gone). Raises :class:`Unfollowable` past
    ``max_rows`` changed rows (cheaper to rebuild)."""
    now = np.frombuffer(marks.rowids, dtype=np.int64)
    digest = np.frombuffer(marks.prints, dtype=np.int64)
    known = now < len(rows.present)
    inside = np.flatnonzero(known)
    same = np.zeros(len(now), dtype=bool)
    same[inside] = rows.present[now[inside]] & (rows.prints[now[inside]] == digest[inside])
    alive = np.zeros(len(rows.present), dtype=bool)
    alive[now[inside]] = True
    gone = np.flatnonzero(rows.present & ~alive)
    fresh = np.flatnonzero(~same)
    if len(fresh) + len(gone) > max_rows:
        raise Unfollowable(f"{len(fresh) + len(gone):,} rows changed, more than it pays to follow")
    changed: dict[int, int | None] = dict(zip(now[fresh].tolist(), digest[fresh].tolist()))
    changed.update((rowid, None) for rowid in gone.tolist())
    return changed


def scan_for_recent(raw: Any, ws: Workspace, scope: RepoScope | None) -> list[RecentRow]:
    facts = ws.layout.facts.name
    scope_sql, scope_params = scope.sql("f") if scope is not None else ("", ())
    rows = raw.execute(
        f"SELECT f.rowid, f.id, f.workspace_id, f.domain, f.superseded_by, f.created_at FROM {facts} f "
        f"WHERE +f.workspace_id = ? AND +f.superseded_by IS NULL{scope_sql} "
        f"ORDER BY f.created_at DESC, f.rowid DESC LIMIT ?",
        (ws.workspace_id, *scope_params, DEPTH + 1)).fetchall()
    return [RecentRow(int(r[0]), r[1], r[2], r[3], r[4], r[5]) for r in rows]
