"""Numpy work for the Lineage tab on its own thread (judging, laying out, the grid).

Only the latest request's result comes back (an older one is dropped on arrival), on the
UI thread, through a queued signal; the work itself never touches Qt or the database.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal

log = logging.getLogger("memorydesk.ui.lineage")


class Computer(QObject):
    _done = Signal(object, object, object)  # ticket, on_done, future

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool: ThreadPoolExecutor | None = ThreadPoolExecutor(1, thread_name_prefix="memorydesk-lineage")
        self._ticket = 0
        self.pending = 0
        self._done.connect(self._deliver)

    def submit(self, fn: Callable[[], Any], on_done: Callable[[Any], None], *, latest: bool = True) -> None:
        """Run ``fn()`` off the UI thread; ``on_done(result)`` here, unless (``latest``) a newer
        request was made meanwhile."""
        if self._pool is None:
            return
        if latest:
            self._ticket += 1
        ticket = self._ticket if latest else None
        self.pending += 1
        future = self._pool.submit(fn)
        future.add_done_callback(lambda f: self._from_worker(ticket, on_done, f))

    def _from_worker(self, ticket: int | None, on_done: Callable[[Any], None], future: Future) -> None:
        try:
            self._done.emit(ticket, on_done, future)
        except RuntimeError:  # the tab is gone
            pass

    def _deliver(self, ticket: int | None, on_done: Callable[[Any], None], future: Future) -> None:
        self.pending -= 1
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            log.error("lineage computation failed", exc_info=error)
            return
        if ticket is None or ticket == self._ticket:
            on_done(future.result())

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
