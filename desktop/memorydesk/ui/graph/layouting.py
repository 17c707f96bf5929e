"""Layouts off the UI thread: a thread of their own (the database worker stays free), a
``Job`` in the status bar with progress and Cancel, and results back on the UI thread
through a signal. An overview's layout and the arrays drawn from it are kept per file
version, so reopening the tab, a filter or a refresh after nothing changed lays nothing
out again."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal

from memorydesk.ui.operations import Cancelled, Job, Operations

log = logging.getLogger("memorydesk.ui.graph")

#: (workspace object id, file version) -> (ClusterLayout, pictures.Overview); a few versions are kept
_CACHE: dict[tuple[int, int], Any] = {}
_CACHE_SIZE = 4


def cached_layout(ws: Any, version: int | None) -> Any:
    return _CACHE.get((id(ws), version)) if version is not None else None


def keep_layout(ws: Any, version: int | None, layout: Any) -> None:
    if version is None:
        return
    _CACHE[(id(ws), version)] = layout
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))


class LayoutRunner(QObject):
    _done = Signal(object, object)  # token, result (or the exception)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool: ThreadPoolExecutor | None = ThreadPoolExecutor(1, thread_name_prefix="memorydesk-layout")
        self._waiting: dict[object, tuple[Callable[[Any], None], Job | None, Operations | None]] = {}
        self._done.connect(self._deliver)

    @property
    def busy(self) -> bool:
        return bool(self._waiting)

    def run(self, fn: Callable[[Job | None], Any], on_done: Callable[[Any], None], *, title: str = "",
            ops: Operations | None = None) -> Job | None:
        """``fn(job)`` on the layout thread; ``on_done(result)`` here. With a title (and the
        operations), the status bar shows it with progress and Cancel."""
        if self._pool is None:
            return None
        job = Job(title, self) if title else None
        if job is not None and ops is not None:
            ops.job_started.emit(job)
        token = object()
        self._waiting[token] = (on_done, job, ops)

        def work() -> None:
            try:
                result: Any = fn(job)
            except BaseException as exc:  # noqa: BLE001 - handed back to the UI thread
                result = exc
            try:
                self._done.emit(token, result)
            except RuntimeError:  # the tab is gone
                pass

        self._pool.submit(work)
        return job

    def cancel_all(self) -> None:
        for _fn, job, _ops in self._waiting.values():
            if job is not None:
                job.cancel()

    def _deliver(self, token: object, result: Any) -> None:
        waiting = self._waiting.pop(token, None)
        if waiting is None:
            return
        on_done, job, ops = waiting
        if job is not None and ops is not None:
            ops.job_finished.emit(job)
        if isinstance(result, Cancelled):
            return
        if isinstance(result, BaseException):
            log.error("a graph layout failed", exc_info=result)
            if ops is not None:
                ops.failed.emit("laying out the graph", f"The graph could not be laid out ({result}).")
            return
        on_done(result)

    def shutdown(self) -> None:
        self.cancel_all()
        for _fn, job, ops in self._waiting.values():
            if job is not None and ops is not None:
                ops.job_finished.emit(job)
        self._waiting.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
