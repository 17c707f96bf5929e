"""Where a bug's traceback goes: one file per crash in the user's log directory.

The command line never prints a traceback; when Memory Desk itself fails (a bug, not
bad input or the environment) it writes the traceback here and prints one line naming
the file. The folder is platformdirs' user log directory (``$XDG_STATE_HOME/memory-desk/log``
on Linux); the newest ``KEEP`` crash files are kept.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
import tempfile
import traceback
from pathlib import Path

import platformdirs

from memorydesk import __version__

KEEP = 20


def log_dir() -> Path:
    return Path(platformdirs.user_log_dir("memory-desk", appauthor=False))


def write_crash(exc: BaseException, argv: list[str]) -> Path | None:
    """Write ``exc``'s traceback to a new file; its path, or None when no folder would take it."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    text = "".join([
        f"memory-desk {__version__} on Python {platform.python_version()} ({platform.platform()})\n",
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
