"""Benchmark workspaces are built once and kept in the temp folder under a name that carries
their recipe; a build goes to ``NAME.partial`` first, so a killed one is never taken for a
workspace."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

FOLDER = Path(tempfile.gettempdir()) / "memorydesk-bench"


def cached(name: str, build: Callable[[Path], object], what: str = "") -> Path:
    """``FOLDER/name``, made by ``build(partial_path)`` when it does not exist yet."""
    FOLDER.mkdir(exist_ok=True)
    path = FOLDER / name
    if not path.exists():
        started = time.perf_counter()
        partial = path.with_suffix(".partial")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{partial}{suffix}").unlink(missing_ok=True)
        build(partial)
        partial.rename(path)
        print(f"\nbuilt {what or name} in {time.perf_counter() - started:.1f} s at {path}")
    return path
