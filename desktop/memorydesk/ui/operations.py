"""Operations: every service call runs on one worker thread; results come back on the UI thread.

Like Anki's ``CollectionOp``/``QueryOp``: a UI action builds a call, hands it to the
queue and reacts to the result on the UI thread. One single-worker executor per open
workspace keeps database work in order and off the UI thread. Two ways to use it:

- ``run(fn, on_success)``: a callback when the result is back (lists, counts);
- ``await call(fn)`` inside an ``async def`` flow started with ``start(flow())``: the Qt
  event loop is also the asyncio loop (qasync), so a flow with several steps (read the
  fact, open the dialog, write, show the result) reads top to bottom.

Long work gets a ``Job``: the worker reports progress through it and checks
``job.cancelled`` between steps; the window shows it in the status bar with Cancel.

Failures all go through ``failed``: a ``MemoryDeskError`` is shown as its own sentence,
anything else is logged with its traceback and shown as our bug. A flow that awaits a
call gets the exception raised at its ``await`` as well (after ``failed``), so it can stop;
``start`` swallows what reaches it, since the person was already told.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject, Signal

from memorydesk.core.errors import MemoryDeskError
from memorydesk.crashlog import desk_log

log = logging.getLogger("memorydesk.ui.operations")
T = TypeVar("T")


def describe_error(exc: BaseException) -> str:
    if isinstance(exc, MemoryDeskError):
        return str(exc)
    log_file = desk_log()
    where = (f"The details are in the log file {log_file}." if log_file is not None else
             "The details could not be written to a log file; they went to the terminal.")
    return f"Unexpected error ({type(exc).__name__}: {exc}). {where}"


class Cancelled(MemoryDeskError):
    """The person stopped a job; whatever it finished is kept."""


class Job(QObject):
    """Progress and cancellation of one long operation (demo build, indexing, an import).

    The worker calls ``report`` (any thread) and checks ``cancelled``; the UI listens to
    ``progressed`` (delivered on the UI thread) and calls ``cancel``.
    """

    progressed = Signal(int, int, str)  # done, total (0: unknown), what is being done

    def __init__(self, title: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self._cancel = threading.Event()
        self.done = 0
        self.total = 0
        self.text = ""

    def report(self, done: int, total: int = 0, text: str = "") -> None:
        self.done, self.total, self.text = done, total, text or self.text
        try:
            self.progressed.emit(done, total, self.text)
        except RuntimeError:  # the window is gone; the worker finishes its step and stops
            self._cancel.set()

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        """Raise ``Cancelled`` when the person asked to stop (call between steps)."""
        if self._cancel.is_set():
            raise Cancelled(f"{self.title}: stopped")


class Operations(QObject):
    """The desk's one queue of background work."""

    failed = Signal(str, str)  # label, message for a person
    busy_changed = Signal(bool)
    job_started = Signal(object)  # a Job, when work with progress begins
    job_finished = Signal(object)
    _finished = Signal(object, object, object, object)  # on_success, on_failure, result, error

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._executor: ThreadPoolExecutor | None = ThreadPoolExecutor(1, thread_name_prefix="memorydesk-op")
        self._pending = 0
        self._tasks: set[asyncio.Task] = set()
        self._finished.connect(self._deliver)

    @property
    def pending(self) -> int:
        """Calls queued or running on the worker."""
        return self._pending

    @property
    def flows(self) -> int:
        """UI flows not finished (one waiting for a dialog counts)."""
        return len(self._tasks)

    def run(self, fn: Callable[[], Any], on_success: Callable[[Any], None] | None = None, *,
            on_failure: Callable[[BaseException], None] | None = None, label: str = "",
            quiet: bool = False) -> None:
        """Run ``fn()`` on the worker; call ``on_success(result)`` on the UI thread.

        On failure ``on_failure(exc)`` runs (if given) and, unless ``quiet``, ``failed``
        is emitted with ``label`` (what was being done) and a sentence for a person.
        """
        if self._executor is None:
            return
        self._pending += 1
        if self._pending == 1:
            self.busy_changed.emit(True)
        future = self._executor.submit(fn)
        future.add_done_callback(lambda f: self._from_worker(f, on_success, on_failure, (label, quiet)))

    def run_for(self, owner: QObject, fn: Callable[[], Any], on_success: Callable[[Any], None] | None = None,
                **kwargs: Any) -> None:
        """``run`` for a widget that may be gone when the result arrives (then it is dropped)."""
        if on_success is None:
            self.run(fn, None, **kwargs)
            return

        def deliver(result: Any) -> None:
            if shiboken6.isValid(owner):
                on_success(result)
            else:
                log.debug("dropped a result for a closed view")

        self.run(fn, deliver, **kwargs)

    def call(self, fn: Callable[[], T], *, label: str = "", quiet: bool = False) -> Awaitable[T]:
        """``await ops.call(fn)``: ``fn()`` on the worker, its result (or exception) back in the flow."""
        loop = asyncio.get_event_loop()
        future: asyncio.Future = loop.create_future()

        def ok(result: Any) -> None:
            if not future.done():
                future.set_result(result)

        def bad(error: BaseException) -> None:
            if not future.done():
                future.set_exception(error)

        if self._executor is None:
            future.set_exception(Cancelled("the workspace was closed"))
        else:
            self.run(fn, ok, on_failure=bad, label=label, quiet=quiet)
        return future

    def job(self, title: str, fn: Callable[[Job], T], *, label: str = "") -> tuple[Job, Awaitable[T]]:
        """Long work with progress and Cancel: ``fn(job)`` on the worker."""
        job = Job(title, self)
        self.job_started.emit(job)
        awaitable = self.call(lambda: fn(job), label=label or title, quiet=False)

        async def finish() -> T:
            try:
                return await awaitable
            finally:
                self.job_finished.emit(job)

        return job, finish()

    def start(self, flow: Coroutine[Any, Any, Any], owner: QObject | None = None) -> asyncio.Task:
        """Run a UI flow (a coroutine) on the Qt event loop.

        Exceptions that reach here were already shown by ``failed`` (a call that failed),
        or are our bugs (logged and shown).
        """
        task = asyncio.ensure_future(flow)
        self._tasks.add(task)

        def done(t: asyncio.Task) -> None:
            self._tasks.discard(t)
            if t.cancelled():
                return
            error = t.exception()
            if error is None or isinstance(error, MemoryDeskError):
                return  # a MemoryDeskError raised at an await was already shown
            log.error("a desk flow failed", exc_info=error)
            if owner is None or shiboken6.isValid(owner):
                self.failed.emit("", describe_error(error))

        task.add_done_callback(done)
        return task

    def _from_worker(self, future: Future, on_success: Any, on_failure: Any, how: tuple[str, bool]) -> None:
        # worker thread: only emit; the queued signal delivers on the UI thread
        if future.cancelled():  # shut down before it ran: nobody waits for it any more
            return
        error = future.exception()
        result = None if error is not None else future.result()
        try:
            self._finished.emit(on_success, (on_failure, how), result, error)
        except RuntimeError:  # the window is gone
            pass

    def _deliver(self, on_success: Any, failure: Any, result: Any, error: Any) -> None:
        on_failure, (label, quiet) = failure
        self._pending -= 1
        if self._pending == 0:
            self.busy_changed.emit(False)
        if error is None:
            if on_success is not None:
                on_success(result)
            return
        if not isinstance(error, MemoryDeskError):
            log.error("operation failed: %s", label or "?", exc_info=error)
        if on_failure is not None:
            on_failure(error)
        if not quiet and not isinstance(error, Cancelled):
            self.failed.emit(label, describe_error(error))

    def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self._tasks.clear()
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


async def dialog_result(dialog: Any) -> bool:
    """Open a dialog window-modally and wait (without blocking the loop) until it closes.

    True when it was accepted.
    """
    loop = asyncio.get_event_loop()
    future: asyncio.Future = loop.create_future()

    def finished(code: int) -> None:
        if not future.done():
            future.set_result(code == 1)

    dialog.finished.connect(finished)
    dialog.open()
    return await future


__all__ = ["Cancelled", "Job", "Operations", "describe_error", "dialog_result"]
