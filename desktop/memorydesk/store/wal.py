"""Emptying the write-ahead log after an erase, and the record that keeps the promise.

SQLite writes every change to ``FILE-wal`` first; old page images (with text that was
since erased) stay there until a checkpoint copies the newest pages into the file and
the log is truncated. Another program holding a read transaction stops that. A purge
therefore leaves a *pending erase* record in ``memdesk_meta`` in its own transaction;
``finish_pending_erase`` truncates the log and removes the record, and runs again at the
next read-write open and from ``Workspace.changed_on_disk`` (the desk's poll) until it
succeeds.
"""

from __future__ import annotations

import mmap
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Connection

from memorydesk.store.engine import raw_connect
from memorydesk.store.errors import translated
from memorydesk.store.holders import holders

PENDING_KEY = "purge_wal_pending"


@dataclass(frozen=True)
class WalState:
    """Where an erase stands: ``done`` once the log was checkpointed and truncated (it holds
    nothing erased; it may have grown again since with other changes)."""

    path: Path
    done: bool
    wal_bytes: int
    holders: list[str] = field(default_factory=list)
    holding: list[Path] | None = None  # the files found to hold the erased text's bytes (None: not searched)

    def sentence(self) -> str:
        if self.done:
            return f"the write-ahead log of {self.path.name} holds none of the erased text"
        who = ", ".join(self.holders) if self.holders else "another program (or connection)"
        if self.holding is None:
            where = f"{self.path.name} or {self.path.name}-wal"
        elif self.holding:
            where = " and ".join(p.name for p in self.holding)
        else:
            return (f"none of the erased text was found in {self.path.name} or {self.path.name}-wal, but {who} is "
                    f"reading the file, so its write-ahead log ({self.wal_bytes:,} bytes) could not be emptied yet; "
                    f"that is done at the next write-open of {self.path.name}")
        return (f"the erased text is still in {where}: {who} is reading the file, so SQLite cannot overwrite those "
                f"pages yet; it is erased at the next write-open of {self.path.name} by Memory Desk (the window, or "
                "any memory-desk command that writes to it) after that reader has ended its read, or sooner if the "
                "last program to close the file empties its log")


def mark_pending(conn: Connection) -> None:
    """Record, inside the erasing transaction, that the log still has to be emptied."""
    conn.exec_driver_sql("INSERT OR REPLACE INTO memdesk_meta (key, value) VALUES (?, ?)",
                         (PENDING_KEY, str(int(time.time()))))


def is_pending(conn: Connection) -> bool:
    return conn.exec_driver_sql("SELECT 1 FROM memdesk_meta WHERE key = ?", (PENDING_KEY,)).first() is not None


def wal_bytes(path: Path) -> int:
    try:
        return Path(f"{path}-wal").stat().st_size
    except OSError:
        return 0


def truncate_log(path: Path, *, wait_ms: int) -> WalState:
    """Checkpoint everything and truncate the log (waiting up to ``wait_ms`` for readers)."""
    with translated(path):
        conn = raw_connect(path, read_only=False, timeout_ms=wait_ms)
        try:
            busy, _log, _done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            conn.close()
    left = wal_bytes(path)
    if busy == 0 and left == 0:
        return WalState(path, True, 0)
    return WalState(path, False, left, holders(path))


def finish_pending_erase(path: Path, *, wait_ms: int = 0) -> WalState:
    """Truncate the log; once it is empty, drop the pending record (and truncate again)."""
    state = truncate_log(path, wait_ms=wait_ms)
    if not state.done:
        return state
    with translated(path):
        conn = raw_connect(path, read_only=False, timeout_ms=max(wait_ms, 100))
        try:
            conn.execute("DELETE FROM memdesk_meta WHERE key = ?", (PENDING_KEY,))
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
    return WalState(path, True, wal_bytes(path))


def files_holding(paths: Iterable[Path], needles: Iterable[bytes]) -> list[Path]:
    """Those of ``paths`` whose bytes contain any of ``needles`` (an exact search of the raw file)."""
    wanted = [n for n in needles if n]
    found = []
    for path in paths:
        try:
            size = path.stat().st_size
        except OSError:
            continue
        if size == 0 or not wanted:
            continue
        with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view:
            if any(view.find(n) != -1 for n in wanted):
                found.append(path)
    return found
