"""Looking at a file before SQLite touches it: header checks and backups.

These checks turn "file is not a database" and friends into one clear sentence and
refuse truncated files before any connection could write a journal next to them.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import sqlean

from memorydesk.core.errors import WorkspaceUnusable

HEADER = b"SQLite format 3\x00"


def inspect_header(path: Path) -> None:
    """Raise ``WorkspaceUnusable`` unless ``path`` looks like a whole SQLite file."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            head = fh.read(100)
    except PermissionError as exc:
        raise WorkspaceUnusable(f"{path}: cannot read the file ({exc.strerror})") from exc
    except OSError as exc:
        raise WorkspaceUnusable(f"{path}: cannot read the file ({exc.strerror or exc})") from exc
    if size == 0:
        raise WorkspaceUnusable(f"{path}: the file is empty, not a workspace database")
    if not head.startswith(HEADER):
        raise WorkspaceUnusable(f"{path}: not an SQLite database (or it is encrypted)")
    if len(head) < 100:
        raise WorkspaceUnusable(f"{path}: the file is truncated ({size} bytes, shorter than an SQLite header)")
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        raise WorkspaceUnusable(f"{path}: damaged SQLite header (page size {page_size})")
    change_counter = int.from_bytes(head[24:28], "big")
    page_count = int.from_bytes(head[28:32], "big")
    valid_for = int.from_bytes(head[92:96], "big")
    # With a WAL beside it, the file may legitimately be shorter than its header says: a
    # checkpoint cut short (a killed process) writes page 1 before the file grows, and
    # SQLite's recovery finishes the job from the WAL.
    wal = Path(f"{path}-wal")
    pending_wal = wal.exists() and wal.stat().st_size > 0
    if valid_for == change_counter and page_count and size < page_count * page_size and not pending_wal:
        raise WorkspaceUnusable(
            f"{path}: the file is truncated ({size} bytes, its header says {page_count * page_size})"
        )


def folder_writable(path: Path) -> bool:
    return os.access(path.parent, os.W_OK | os.X_OK)


def backup_path(path: Path, label: str = "backup") -> Path:
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    return path.with_name(f"{path.stem}.{label}-{stamp}{path.suffix or '.db'}")


def backup_copy(path: Path, target: Path | None = None, label: str = "backup") -> Path:
    """Copy a live database with SQLite's backup API (consistent even while it is written)."""
    target = target or backup_path(path, label)
    src = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        dst = sqlean.connect(str(target))
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()
    return target
