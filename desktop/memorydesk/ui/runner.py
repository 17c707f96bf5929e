"""The desk's one way to run work off the UI thread, and to drop results that came too late.

``Runner`` is one worker thread whose results come back on the UI thread through a queued
signal. Every runner of the desk — the database worker (``ui.operations.Operations``) and a
tab's own thread for numpy work (``DeskTab.compute``: the graph's layouts, the lineage
timeline) — hands every failure to the same function, ``Operations.report``: a
``MemoryDeskError`` is shown as its own sentence, anything else is logged with its traceback
and shown as our bug, a ``Cancelled`` job is not an error.

``Latest`` holds a tab's (or a model's) stale-result tokens: ``take(what)`` starts a newer
read of ``what`` and returns its ``Token``; a result delivered with a token that is no
longer ``fresh`` is dropped (``DeskTab.run(..., token=)``), so a slow read never overwrites
a newer one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

log = logging.getLogger("memorydesk.ui.runner")

#: ``report(label, error, quiet)``: the one error path every runner hands its failures to
Report = Callable[[str, BaseException, bool], None]


@dataclass
class _Call:
    on_success: Callable[[Any], None] | None
    on_failure: Callable[[BaseException], None] | None
    label: str
    quiet: bool
    result: Any = None
    error: BaseException | None = None


class Runner(QObject):
    """One worker thread; ``run(fn, on_success)`` calls ``fn()`` there and ``on_success(result)``
    back on the UI thread; a failure goes to ``on_failure`` (if given) and then to ``report``."""

    busy_changed = Signal(bool)
    _finished = Signal(object)  # a _Call, from the worker

    def __init__(self, name: str, report: Report, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._executor: ThreadPoolExecutor | None = ThreadPoolExecutor(1, thread_name_prefix=name)
        self._report = report
        self._pending = 0
        # queued even when the call ended before its callback was attached (then the callback runs
        # on this thread): a result never arrives inside ``run``, always from the event loop
        self._finished.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @property
    def pending(self) -> int:
        """Calls queued or running."""
        return self._pending

    @property
    def running(self) -> bool:
        return self._executor is not None

    def run(self, fn: Callable[[], Any], on_success: Callable[[Any], None] | None = None, *,
            on_failure: Callable[[BaseException], None] | None = None, label: str = "",
            quiet: bool = False) -> bool:
        """Queue ``fn()``; False when the runner was shut down (nothing will be called)."""
        if self._executor is None:
            return False
        self._pending += 1
        if self._pending == 1:
            self.busy_changed.emit(True)
        call = _Call(on_success, on_failure, label, quiet)
        self._executor.submit(fn).add_done_callback(lambda f: self._from_worker(f, call))
        return True

    def _from_worker(self, future: Future, call: _Call) -> None:
        # worker thread: only emit; the queued signal delivers on the UI thread
        if future.cancelled():  # shut down before it ran: nobody waits for it any more
            return
        call.error = future.exception()
        call.result = None if call.error is not None else future.result()
        try:
            self._finished.emit(call)
        except RuntimeError:  # the window is gone
            pass

    def _deliver(self, call: _Call) -> None:
        self._pending -= 1
        if self._pending == 0:
            self.busy_changed.emit(False)
        if call.error is None:
            if call.on_success is not None:
                call.on_success(call.result)
            return
        if call.on_failure is not None:
            call.on_failure(call.error)
        self._report(call.label, call.error, call.quiet)

    def shutdown(self, wait: bool = True) -> None:
        """No more calls; those not started are dropped (``wait``: until the running one ends)."""
        if self._executor is not None:
            executor, self._executor = self._executor, None
            executor.shutdown(wait=wait, cancel_futures=True)


@dataclass(frozen=True)
class Token:
    """One read's claim to be the latest of its kind (``Latest.take``)."""

    latest: Latest = field(repr=False, compare=False)
    what: str
    number: int

    @property
    def fresh(self) -> bool:
        """No newer read of the same thing was started since this one."""
        return self.latest.number(self.what) == self.number


class Latest:
    """Stale-result tokens, one counter per thing read (``"list"``, ``"focus"``, …)."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}

    def take(self, what: str = "list") -> Token:
        """A newer read of ``what`` begins: tokens taken before are stale from now on."""
        self._numbers[what] = self._numbers.get(what, 0) + 1
        return Token(self, what, self._numbers[what])

    def current(self, what: str = "list") -> Token:
        """The token of the read of ``what`` now current (a follow-up read that belongs to it)."""
        return Token(self, what, self.number(what))

    def number(self, what: str) -> int:
        return self._numbers.get(what, 0)


__all__ = ["Latest", "Report", "Runner", "Token"]
