"""Where a bug's traceback goes: one file per crash in the user's log directory, and the
window's rotating log beside them.

The command line never prints a traceback; when Memory Desk itself fails (a bug, not
bad input or the environment) it writes the traceback here and prints one line naming
the file. The folder is platformdirs' user log directory (``$XDG_STATE_HOME/memory-desk/log``
on Linux); the newest ``KEEP`` crash files are kept.

The window (and ``shot``) also log there, to ``memory-desk.log``: warnings, errors with
their tracebacks, and a line per start, rotated at ``LOG_BYTES`` with ``LOG_BACKUPS`` older
files kept (``start_desk_log``). Its error dialog and Help ▸ About name the file.
"""

from __future__ import annotations

import datetime as dt
import logging
import logging.handlers
import os
import platform
import sys
import tempfile
import traceback
from pathlib import Path

import platformdirs

import memorydesk

KEEP = 20
LOG_NAME = "memory-desk.log"
LOG_BYTES = 1_000_000
LOG_BACKUPS = 3
_desk_log: Path | None = None


def log_dir() -> Path:
    return Path(platformdirs.user_log_dir("memory-desk", appauthor=False))


def rotating_handler(path: Path, max_bytes: int = LOG_BYTES,
                     backups: int = LOG_BACKUPS) -> logging.handlers.RotatingFileHandler:
    """A UTF-8 log file at ``path`` that starts ``path.1`` … ``path.<backups>`` when it is full."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8",
                                                   errors="backslashreplace", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s"))
    handler.setLevel(logging.INFO)
    return handler


def start_desk_log() -> Path | None:
    """Log the desk's records (``memorydesk.*``, INFO and up) to ``memory-desk.log`` in the user
    log folder, once per process; the file's path, or None when no folder would take it."""
    global _desk_log
    if _desk_log is not None:
        return _desk_log
    path = log_dir() / LOG_NAME
    try:
        handler = rotating_handler(path)
        with open(path, "a", encoding="utf-8"):  # writable now: the dialog must not name a file that cannot exist
            pass
    except OSError:
        return None
    logger = logging.getLogger("memorydesk")
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    _desk_log = path
    logger.info("Memory Desk %s started (process %d, Python %s)", memorydesk.__version__, os.getpid(),
                platform.python_version())
    return path


def desk_log() -> Path | None:
    """The window's log file, once ``start_desk_log`` has opened it."""
    return _desk_log


def write_crash(exc: BaseException, argv: list[str]) -> Path | None:
    """Write ``exc``'s traceback to a new file; its path, or None when no folder would take it."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    text = "".join([
        f"memory-desk {memorydesk.__version__} on Python {platform.python_version()} ({platform.platform()})\n",
        f"arguments: {argv!r}\n\n",
        *traceback.format_exception(exc),
    ])
    for folder in (log_dir(), Path(tempfile.gettempdir())):
        target = folder / f"memory-desk-crash-{stamp}-{os.getpid()}.log"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", errors="backslashreplace")
        except OSError:
            continue
        _prune(folder)
        return target
    return None


def _prune(folder: Path) -> None:
    try:
        crashes = sorted(folder.glob("memory-desk-crash-*.log"))
        for old in crashes[:-KEEP]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


def bug_sentence(exc: BaseException, log: Path | None) -> str:
    """One line for a person: what failed, that it is our bug, where the details are."""
    detail = " ".join(str(exc).split())
    if len(detail) > 160:
        detail = detail[:160] + "…"
    what = type(exc).__name__ + (f": {detail}" if detail else "")
    where = f"the traceback is in {log}" if log else "the traceback could not be written to any log folder"
    return f"internal error ({what}); this is a bug in Memory Desk, not in your data: {where}; please report it"


def stderr_line(text: str) -> None:
    sys.stderr.write("memory-desk: " + " ".join(text.split("\n")) + "\n")
    sys.stderr.flush()
