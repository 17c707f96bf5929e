"""Reading one table of a damaged file row by row, bounded (``salvage``'s reader).

The approach of SQLite's ``.recover``, at the level of rows: a table is read in rowid order through
its own b-tree (never through an index, which may be what is damaged). Where a read fails, the
damaged stretch is stepped over — by seeking further and further ahead, then narrowing down to where
reading works again — and rows on either side are still copied.
"""

from __future__ import annotations

from collections.abc import Iterator

import sqlean

BATCH = 500
FAILURES = (sqlean.DatabaseError, UnicodeDecodeError)  # a damaged page; a message quoting damaged bytes
MAX_ROWID = 2**63 - 1
MIN_ROWID = -(2**63)


class Reader:
    """Rows of one table in rowid order, stepping over stretches that cannot be read.

    Bounded: every read must move past the last rowid read (a damaged cell pointer can make a
    b-tree seek land on an earlier row; such a read counts as a failure there, so a stretch is
    never read twice), and a table gets at most ``budget`` reads — past it, the rest of the table
    is counted as one lost stretch. Each lost stretch is recorded once."""

    def __init__(self, conn, table: str, columns: str, result, budget: int = 1_000_000) -> None:
        """``result``: the table's ``salvage.TableSalvage`` (what is lost, or why it failed, goes there)."""
        self.conn, self.table, self.columns, self.result = conn, table, columns, result
        self.allowed = self.budget = budget

    def _spend(self) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise _OutOfReads

    def _rows(self, after: int, limit: int) -> list[tuple]:
        self._spend()
        rows = self.conn.execute(f'SELECT rowid, {self.columns} FROM "{self.table}" NOT INDEXED WHERE rowid > ? '
                                 f"ORDER BY rowid LIMIT {limit}", (after,)).fetchall()
        ordered = []
        for row in rows:  # only rows past the last one: a seek that went back is a damaged page here
            if int(row[0]) <= (int(ordered[-1][0]) if ordered else after):
                break
            ordered.append(row)
        if rows and not ordered:
            raise _Backwards
        return ordered

    def _next_rowid(self, after: int) -> int | None:
        self._spend()
        row = self.conn.execute(f'SELECT rowid FROM "{self.table}" NOT INDEXED WHERE rowid > ? ORDER BY rowid '
                                "LIMIT 1", (after,)).fetchone()
        if row is not None and int(row[0]) <= after:
            raise _Backwards
        return None if row is None else int(row[0])

    def _lose(self, first: int, last: int) -> None:
        """Record a stretch that could not be read, merged with the one before it when they touch."""
        if self.result.lost and self.result.lost[-1][1] >= first - 1:
            self.result.lost[-1] = (self.result.lost[-1][0], max(last, self.result.lost[-1][1]))
        else:
            self.result.lost.append((first, last))

    def batches(self) -> Iterator[list[tuple]]:
        """Batches of rows; after a failed batch, its stretch is read one row at a time."""
        after, careful = MIN_ROWID, 0  # careful: rows still to read one at a time
        try:
            while True:
                try:
                    batch = self._rows(after, 1 if careful else BATCH)
                except _UNREADABLE as exc:
                    if not careful:
                        if after == MIN_ROWID and self._unreadable(exc):
                            return
                        careful = BATCH
                        continue
                    step = self._step_over(after)
                    if step is None:
                        return
                    after = step
                    continue
                if not batch:
                    return
                yield batch
                after = int(batch[-1][0])
                careful = max(careful - 1, 0)
        except _OutOfReads:
            self._lose(after + 1, MAX_ROWID)
            self.result.failed = self.result.failed or (
                f"reading stopped after {self.allowed:,} reads: the table's pages contradict each other past "
                f"rowid {after}")

    def _unreadable(self, exc: Exception) -> bool:
        """The whole table: not even a seek to its last row works (its root page is damaged)."""
        try:
            self._next_rowid(MAX_ROWID - 1)
        except _UNREADABLE:
            self.result.failed = str(exc)
            return True
        return False

    def _step_over(self, after: int) -> int | None:
        """The row after ``after`` cannot be read: record what is lost, return where to go on."""
        try:
            nxt = self._next_rowid(after)
        except _UNREADABLE:  # the page holding it is damaged: find where reading works again
            beyond = self._first_readable_beyond(after)
            if beyond is None:
                self._lose(after + 1, MAX_ROWID)
                return None
            self._lose(after + 1, beyond - 1)
            return beyond - 1
        if nxt is None:
            return None
        self._lose(nxt, nxt)  # its rowid reads, its values do not (an overflow page)
        return nxt

    def _first_readable_beyond(self, after: int) -> int | None:
        """The first rowid a seek past the damage reaches: leap ahead until one works, then narrow down."""
        bad, step = after, 1
        while True:
            probe = min(after + step, MAX_ROWID - 1)
            try:
                found = self._next_rowid(probe)
                break
            except _UNREADABLE:
                bad = probe
                if probe >= MAX_ROWID - 1:
                    return None
                step *= 2
        good = probe  # a seek past ``good`` works, past ``bad`` it does not
        while good - bad > 1:
            mid = (good + bad) // 2
            try:
                found_mid = self._next_rowid(mid)
            except _UNREADABLE:
                bad = mid
                continue
            good, found = mid, found_mid
        return found


class _OutOfReads(Exception):
    """A table used up its reads (``Reader.budget``)."""


class _Backwards(Exception):
    """A read returned a row at or before the last one read: a damaged page sends the seek back."""


_UNREADABLE = (*FAILURES, _Backwards)
