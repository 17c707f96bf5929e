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

Failures all go through ``report`` and ``failed`` (every runner of the desk, ``ui.runner``, reports
there): a ``MemoryDeskError`` is shown as its own sentence, anything else is logged with its
traceback and shown as our bug. A flow that awaits a
call gets the exception raised at its ``await`` as well (after ``failed``), so it can stop;
``start`` swallows what reaches it, since the person was already told.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject, Signal

from memorydesk.core.errors import MemoryDeskError
from memorydesk.crashlog import desk_log
from memorydesk.ui.runner import Runner

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
    stopped = Signal()  # Cancel was pressed (work that can be abandoned at once listens)

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
        first = not self._cancel.is_set()
        self._cancel.set()
        if first:
            try:
                self.stopped.emit()
            except RuntimeError:  # the window is gone
                pass

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        """Raise ``Cancelled`` when the person asked to stop (call between steps)."""
        if self._cancel.is_set():
            raise Cancelled(f"{self.title}: stopped")


class Operations(QObject):
    """The desk's one queue of database work (a ``Runner``), the UI flows, the long jobs, and
    the one error path every runner of the desk reports to (``report``)."""

    failed = Signal(str, str)  # label, message for a person
    busy_changed = Signal(bool)
    job_started = Signal(object)  # a Job, when work with progress begins
    job_finished = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._db = Runner("memorydesk-op", self.report, self)
        self._db.busy_changed.connect(self.busy_changed)
        self._tasks: set[asyncio.Task] = set()
        self._jobs: set[Job] = set()

    @property
    def pending(self) -> int:
        """Calls queued or running on the worker."""
        return self._db.pending

    @property
    def running(self) -> bool:
        """Not shut down (the window is open)."""
        return self._db.running

    @property
    def flows(self) -> int:
        """UI flows not finished (one waiting for a dialog counts)."""
        return len(self._tasks)

    def report(self, label: str, error: BaseException, quiet: bool = False) -> None:
        """The one error path: a failure of any runner, or of a flow, reaches the person here
        (``failed``) as one sentence, and the log with its traceback when it is our bug."""
        if not isinstance(error, MemoryDeskError):
            log.error("operation failed: %s", label or "?", exc_info=error)
        if not quiet and not isinstance(error, Cancelled):
            self.failed.emit(label, describe_error(error))

    def thread(self, name: str, parent: QObject | None = None) -> Runner:
        """A worker thread of its own (numpy work that must not wait behind the database),
        whose failures take the same path as the database worker's."""
        return Runner(name, self.report, parent)

    def run(self, fn: Callable[[], Any], on_success: Callable[[Any], None] | None = None, *,
            on_failure: Callable[[BaseException], None] | None = None, label: str = "",
            quiet: bool = False) -> None:
        """Run ``fn()`` on the worker; call ``on_success(result)`` on the UI thread.

        On failure ``on_failure(exc)`` runs (if given) and, unless ``quiet``, ``failed``
        is emitted with ``label`` (what was being done) and a sentence for a person.
        """
        self._db.run(fn, on_success, on_failure=on_failure, label=label, quiet=quiet)

    def run_for(self, owner: QObject, fn: Callable[[], Any], on_success: Callable[[Any], None] | None = None,
                **kwargs: Any) -> None:
        """``run`` for a widget that may be gone when the result arrives (then it is dropped)."""
        self.run(fn, None if on_success is None else for_live(owner, on_success), **kwargs)

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

        if not self._db.run(fn, ok, on_failure=bad, label=label, quiet=quiet):
            future.set_exception(Cancelled("the workspace was closed"))
        return future

    def begin_job(self, title: str) -> Job:
        """A long piece of work begins: the status bar shows it with progress and Cancel."""
        job = Job(title, self)
        self._jobs.add(job)
        self.job_started.emit(job)
        return job

    def end_job(self, job: Job) -> None:
        """It ended (done, failed or stopped); said once however often it is called."""
        if job in self._jobs:
            self._jobs.discard(job)
            self.job_finished.emit(job)

    def job(self, title: str, fn: Callable[[Job], T], *, label: str = "") -> tuple[Job, Awaitable[T]]:
        """Long work with progress and Cancel: ``fn(job)`` on the worker."""
        job = self.begin_job(title)
        awaitable = self.call(lambda: fn(job), label=label or title, quiet=False)

        async def finish() -> T:
            try:
                return await awaitable
            finally:
                self.end_job(job)

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
            if owner is None or shiboken6.isValid(owner):
                self.report("", error)
            else:
                log.error("a desk flow failed", exc_info=error)

        task.add_done_callback(done)
        return task

    def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self._tasks.clear()
        self._db.shutdown(wait=True)


def for_live(owner: QObject, on_success: Callable[[Any], None]) -> Callable[[Any], None]:
    """``on_success`` unless ``owner`` (a widget) is gone by the time the result arrives."""

    def deliver(result: Any) -> None:
        if shiboken6.isValid(owner):
            on_success(result)
        else:
            log.debug("dropped a result for a closed view")

    return deliver


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
