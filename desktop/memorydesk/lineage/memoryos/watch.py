"""``--watch``: keep importing while a running MemoryOS rewrites its files.

MemoryOS rewrites a whole file each time it saves, so a poll can catch a file half
written. Each poll compares the files' sizes and modification times with the last
import; when something changed, the directory is imported again (one transaction,
only what is new). A file that is not complete JSON is not imported: the pass waits
and is retried at the next poll, so only complete JSON is ever read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from memorydesk.lineage.memoryos.files import IncompleteJson, find_layout, snapshot
from memorydesk.lineage.memoryos.report import ImportResult
from memorydesk.lineage.memoryos.service import import_directory

DEFAULT_INTERVAL = 1.0


def watch(data_dir: str | Path, workspace: str | Path, timezone: str | None, *,
          on_pass: Callable[[ImportResult], None], on_wait: Callable[[str], None] = lambda _m: None,
          stop: Callable[[], bool] = lambda: False, interval: float = DEFAULT_INTERVAL,
          sleep: Callable[[float], None] = time.sleep, stm_capacity: int | None = None) -> ImportResult | None:
    """Import now and after every change until ``stop()``; returns the last pass's result.

    Unusable input other than a half-written file (an unknown zone, a folder that is
    not MemoryOS's, a shape MemoryOS never writes) ends the watch with its error.
    """
    root = find_layout(data_dir).root
    imported_at: tuple | None = None
    last: ImportResult | None = None
    waiting_for = ""
    while not stop():
        current = snapshot(root)
        if current != imported_at:
            try:
                last = import_directory(root, workspace, timezone, attempts=1, stm_capacity=stm_capacity)
            except IncompleteJson as exc:
                if exc.relative != waiting_for:
                    on_wait(f"waiting for a complete {exc.relative}")
                    waiting_for = exc.relative
            else:
                imported_at, waiting_for = current, ""
                on_pass(last)
        sleep(interval)
    return last
