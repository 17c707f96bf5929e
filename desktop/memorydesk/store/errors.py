"""SQLite's and the file system's errors, said in one sentence for a person.

This is the one place that turns an environment error into a ``MemoryDeskError``:
every SQLite error class (corrupt, not a database, unsupported format, full, I/O,
read-only, locked beyond the busy timeout, cannot open) and text that cannot be
decoded, whether it comes wrapped by SQLAlchemy or straight from a raw connection,
and the file system's ``OSError``s. Each sentence names the file and what the person
can do. Anything not recognised here is left alone: it is our bug, and keeps its
traceback for the log.
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator
from pathlib import Path

import sqlean
from sqlalchemy import exc as sa_exc

from memorydesk.core.errors import (
    DiskFull,
    MemoryDeskError,
    ReadOnlyWorkspace,
    WorkspaceBusy,
    WorkspaceDamaged,
    WorkspaceUnusable,
)

# SQLite's primary result codes (the low byte of an extended code)
SQLITE_ERROR, SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOMEM, SQLITE_READONLY = 1, 3, 5, 6, 7, 8
SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_TOOBIG, SQLITE_NOTADB = 10, 11, 13, 14, 18, 26


def recovery_advice(path: Path | str) -> str:
    """What a person can do with a damaged file: salvage its readable rows, or take a backup."""
    return (f"recover with `memory-desk salvage {path} OUT.db` (copies every readable row into a new workspace) "
            "or open the newest backup beside it")


def _sqlite_error(path: Path, exc: BaseException) -> MemoryDeskError | None:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    lowered = text.lower()
    if "could not decode to utf-8" in lowered:
        return WorkspaceDamaged(f"{path}: a text value in the file is not valid UTF-8; "
                                f"`memory-desk check {path}` lists the rows (kind text_not_utf8)")
    if primary == SQLITE_CORRUPT or "malformed" in lowered:
        return WorkspaceDamaged(f"{path}: the database is damaged (SQLite: {text}); {recovery_advice(path)}")
    if primary == SQLITE_NOTADB or "not a database" in lowered:
        return WorkspaceUnusable(f"{path}: not an SQLite database (or it is encrypted)")
    if "unsupported file format" in lowered:
        return WorkspaceUnusable(f"{path}: SQLite cannot read this file's format (unsupported file format: "
                                 f"a damaged header, or a file from a much newer SQLite); {recovery_advice(path)}")
    if primary == SQLITE_FULL or "disk is full" in lowered:
        return DiskFull(f"{path}: the disk is full, so nothing was changed; free some space in "
                        f"{path.parent} and try again")
    if primary == SQLITE_IOERR or "disk i/o error" in lowered:
        return WorkspaceUnusable(f"{path}: the disk reported an input/output error (SQLite: {text}); "
                                 "the disk may be full, failing or disconnected; "
                                 "free space or copy the file elsewhere and open the copy")
    if primary == SQLITE_READONLY or "readonly" in lowered or "read-only" in lowered:
        return ReadOnlyWorkspace(f"{path}: the file cannot be written (SQLite: {text}); "
                                 "open it read-only or open a copy")
    if primary in (SQLITE_BUSY, SQLITE_LOCKED) or "locked" in lowered or "busy" in lowered:
        return WorkspaceBusy(f"{path}: the workspace is locked by another program for longer than Memory Desk "
                             "waits; close that program, try again, or open a copy")
    if primary == SQLITE_CANTOPEN or "unable to open" in lowered:
        return WorkspaceUnusable(f"{path}: SQLite cannot open the file; check that it exists and that its folder "
                                 f"{path.parent} can be read (and written, unless you open it read-only)")
    if primary == SQLITE_PERM:
        return WorkspaceUnusable(f"{path}: access denied (SQLite: {text})")
    if primary == SQLITE_NOMEM:
        return MemoryDeskError(f"{path}: SQLite ran out of memory; close other programs and try again")
    if primary == SQLITE_TOOBIG:
        return MemoryDeskError(f"{path}: a value is too large for SQLite ({text})")
    return None


def _os_error(path: Path, exc: OSError) -> MemoryDeskError | None:
    name = exc.filename or path
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        folder = Path(str(name)).parent
        return DiskFull(f"{name}: the disk is full ({reason}), so nothing was changed; free some space in "
                        f"{folder} and try again")
    if exc.errno == errno.EROFS:
        return ReadOnlyWorkspace(f"{name}: the disk is mounted read-only; open the workspace read-only or copy it")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return WorkspaceUnusable(f"{name}: permission denied; check the file's and its folder's permissions")
    if exc.errno == errno.EIO:
        return WorkspaceUnusable(f"{name}: the disk reported an input/output error; it may be failing or "
                                 "disconnected; copy the file elsewhere and open the copy")
    if exc.errno == errno.ELOOP:
        return WorkspaceUnusable(f"{name}: a loop of symbolic links; point it at a real workspace file")
    if exc.errno == errno.ENOENT:
        return WorkspaceUnusable(f"{name}: no such file or folder")
    if exc.errno is not None:
        return WorkspaceUnusable(f"{name}: {reason}")
    return None


#: What a read of a damaged file can raise: SQLite's errors (wrapped or not), and a message from
#: SQLite that quotes bytes which are not UTF-8 (Python cannot even decode the error).
READ_FAILURES = (sa_exc.DBAPIError, sqlean.Error, UnicodeDecodeError)


def explain(path: Path | str, exc: BaseException) -> MemoryDeskError | None:
    """The sentence for ``exc`` (met while working on ``path``), or None when it is our bug."""
    path = Path(path)
    if isinstance(exc, MemoryDeskError):
        return exc
    if isinstance(exc, sa_exc.DBAPIError) and exc.orig is not None:
        exc = exc.orig
    if isinstance(exc, sqlean.Error):
        return _sqlite_error(path, exc)
    if isinstance(exc, OSError):
        return _os_error(path, exc)
    if isinstance(exc, MemoryError):
        return MemoryDeskError(f"{path}: out of memory; close other programs and try again")
    if isinstance(exc, UnicodeDecodeError):  # SQLite's own message quotes damaged bytes
        return WorkspaceDamaged(f"{path}: the database is damaged (SQLite's message about it is not readable "
                                f"text); {recovery_advice(path)}")
    return None


@contextlib.contextmanager
def translated(path: Path | str) -> Iterator[None]:
    """Re-raise environment errors met inside as the ``MemoryDeskError`` that explains them."""
    try:
        yield
    except MemoryDeskError:
        raise
    except (*READ_FAILURES, OSError, MemoryError) as exc:
        error = explain(path, exc)
        if error is None:
            raise
        raise error from exc
