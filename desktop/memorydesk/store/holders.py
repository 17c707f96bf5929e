"""Which other programs have a file open (best effort; Linux ``/proc``, nothing elsewhere)."""

from __future__ import annotations

import os
from pathlib import Path


def holders(path: Path) -> list[str]:
    """``name (pid N)`` of every other process with ``path`` or its side files open."""
    try:
        target = str(Path(path).resolve())
    except OSError:
        return []
    wanted = {target, target + "-wal", target + "-shm"}
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    found: list[str] = []
    me = os.getpid()
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) in wanted:
                    found.append(f"{_name(entry)} (pid {entry.name})")
                    break
            except OSError:
                continue
    return found


def _name(entry: Path) -> str:
    try:
        cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        words = [w.decode("utf-8", "replace") for w in cmdline if w]
    except OSError:
        words = []
    if words:
        program = Path(words[0]).name
        if program.startswith("python") and len(words) > 1:  # say which script: `python -m memorydesk`
            if words[1] == "-m" and len(words) > 2:
                return f"{program} -m {words[2][:40]}"
            if words[1] == "-c":
                return f"{program} -c …"
            return f"{program} {Path(words[1]).name[:40]}"
        return program
    try:
        return (entry / "comm").read_text().strip() or "a program"
    except OSError:
        return "a program"
