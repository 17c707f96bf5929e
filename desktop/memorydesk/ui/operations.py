"""Operations: every service call runs on one worker thread; results come back as signals.

Like Anki's ``CollectionOp``/``QueryOp``: a UI action builds a call, hands it to
``Operations.run`` and reacts to the result on the UI thread. One single-worker
executor per open workspace keeps database work in order and off the UI thread.
Failures all go through ``failed``: a ``MemoryDeskError`` is shown as its own
sentence, anything else is logged with its traceback and shown as our bug.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from memorydesk.core.errors import MemoryDeskError

log = logging.getLogger("memorydesk.ui.operations")


def describe_error(exc: BaseException) -> str:
    if isinstance(exc, MemoryDeskError):
        return str(exc)
    return f"Unexpected error ({type(exc).__name__}: {exc}). Details are in the log."


class Operations(QObject):
    """The desk's one queue of background work."""

    failed = Signal(str, str)  # label, message for a person
    busy_changed = Signal(bool)
    _finished = Signal(object, object, object, object)  # on_success, on_failure, result, error

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._executor: ThreadPoolExecutor | None = ThreadPoolExecutor(1, thread_name_prefix="memorydesk-op")
        self._pending = 0
        self._finished.connect(self._deliver)

    @property
    def pending(self) -> int:
        return self._pending

    def run(self, fn: Callable[[], Any], on_success: Callable[[Any], None] | None = None, *,
            on_failure: Callable[[BaseException], None] | None = None, label: str = "") -> None:
        """Run ``fn()`` on the worker; call ``on_success(result)`` on the UI thread.

        On failure ``on_failure(exc)`` runs (if given) and ``failed`` is emitted with
        ``label`` (what was being done) and a sentence for a person.
        """
        if self._executor is None:
            return
        self._pending += 1
        if self._pending == 1:
            self.busy_changed.emit(True)
        future = self._executor.submit(fn)
        future.add_done_callback(lambda f: self._from_worker(f, on_success, on_failure, label))

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

    def _from_worker(self, future: Future, on_success: Any, on_failure: Any, label: str) -> None:
        # worker thread: only emit; the queued signal delivers on the UI thread
        if future.cancelled():  # shut down before it ran: nobody waits for it any more
            return
        error = future.exception()
        result = None if error is not None else future.result()
        try:
            self._finished.emit(on_success, (on_failure, label), result, error)
        except RuntimeError:  # the window is gone
            pass

    def _deliver(self, on_success: Any, failure: Any, result: Any, error: Any) -> None:
        on_failure, label = failure
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
        self.failed.emit(label, describe_error(error))

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
