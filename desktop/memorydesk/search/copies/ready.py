"""Waiting for search's copies of a file before long work that searches many times (a recall
audit, the review's recall checks): through the product's SQL such work is several times
slower a search, so it first waits for the copies when they are being built, or starts them
when it is large enough to pay for them."""

from __future__ import annotations

from collections.abc import Callable

from memorydesk.search.copies import follow
from memorydesk.store import Workspace

Progress = Callable[[int, int, str], None]  # (done, total, text): total 0 while waiting
BUILD_FOR = 100  # work of this many searches or more builds search's copies first when none are under way
WAITING = "waiting for search's copies of the file to be built (once per open file)…"


def wait_for_copies(ws: Workspace, progress: Progress | None, cancelled: Callable[[], bool] | None,
                    size: int | None) -> bool:
    """Wait for search's copies when they are being built (or start them for work of ``size``
    searches or more; None: every fact); True when it waited. A failed build leaves the product's SQL."""
    held = follow.copies_of(ws)
    if held.state is not None:
        return False
    if held.builder is None and size is not None and size < BUILD_FOR:
        return False
    if progress is not None:
        progress(0, 0, WAITING)
    while True:
        state = follow.wait_ready(ws, timeout=0.25)
        if state is not None or held.builder is None or (cancelled is not None and cancelled()):
            return True
