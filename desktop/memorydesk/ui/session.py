"""The desk session every tab is handed: the open workspace, the operations queue,
whether writing is allowed, who the person is, and the way back to the window.

``write`` is the only way a tab changes memory: it builds a ``Reviewer`` for the person
on the worker, runs one call, and hands the result to the window, which routes the
change (``ChangeResult.changes``, a ``core.changes.ChangeSet``) to the tabs it reaches.
Tabs never talk to each other; ``navigate`` asks the window to show another tab at a target.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QObject, Signal

from memorydesk.core.changes import ChangeSet, Kind
from memorydesk.store.workspace import Workspace
from memorydesk.ui.operations import Job, Operations

if TYPE_CHECKING:  # the reviewer is loaded by the first write, not by the window's first paint
    from memorydesk.memory.history.record import ChangeResult

T = TypeVar("T")

#: what a write changed, routed by the window to the tabs that show it (``core.changes``)
Change = ChangeSet


#: characters of a change's result the status bar shows whole at 1280 px (beside the progress)
SHORT_RESULT = 110


class DeskSession(QObject):
    """One open workspace as the tabs see it. Made by the window on the UI thread."""

    changed = Signal(object)  # a Change made by the desk (routed by the window)
    status = Signal(str)  # a sentence for the status bar
    withdrawn = Signal(str)  # a status line taken back (a why-not, once the selection it was about changed)
    noticed = Signal(str)  # what the first change did to the file and where its backup is (a bar that stays)
    navigate_to = Signal(str, dict)  # tab name, target (e.g. {"fact": id})

    def __init__(self, ws: Workspace, ops: Operations, actor: str, write_block: str | None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ws = ws
        self.ops = ops
        self.actor = actor  # read once, on the UI thread (QSettings never on the worker)
        self.write_block = write_block  # why nothing can be written, or None

    @property
    def read_only(self) -> bool:
        return self.write_block is not None

    def read(self, fn: Callable[[Workspace], T], *, label: str = "", quiet: bool = False):
        """``await session.read(lambda ws: ...)``: a read on the worker."""
        ws = self.ws
        return self.ops.call(lambda: fn(ws), label=label, quiet=quiet)

    async def write(self, label: str, call: Callable[..., ChangeResult], *args: Any, **kwargs: Any) -> ChangeResult:
        """``call(reviewer, *args, **kwargs)`` on the worker — a ``Reviewer`` method named as
        such (``Reviewer.edit_fact, fact_id, …``), or any function of the reviewer; the change
        is routed to the tabs before this returns.

        Raises (after the window has shown the error) when the call fails or writing is
        not allowed.
        """
        if self.write_block is not None:
            from memorydesk.core.errors import ReadOnlyWorkspace

            self.status.emit(f"Nothing was changed: {self.write_block}")
            raise ReadOnlyWorkspace(self.write_block)
        from memorydesk.memory.reviewer import Reviewer

        ws, actor = self.ws, self.actor

        def work() -> ChangeResult:
            with ws.own_commits():
                return call(Reviewer(ws, actor), *args, **kwargs)

        result = await self.ops.call(work, label=label)
        self.say_result(getattr(result, "message", "") or f"{label}: done", self.ws.take_notice())
        self.changed.emit(result.changes)
        return result

    def say_result(self, message: str, notice: str = "") -> str:
        """A change's result in the status bar; a long one (it would be cut at 1280 px: a backup
        that still holds a secret, say) whole in the bar above the tabs, which wraps and stays,
        with what the first change did to the file after it — the one never hides the other.
        Gives back the line the status bar shows."""
        if len(message) <= SHORT_RESULT and not notice:
            self.status.emit(message)
            return message
        whole = message if len(message) > SHORT_RESULT else ""
        self.noticed.emit("\n\n".join(t for t in (whole, notice) if t))
        head = message.split("; ")[0]
        head = head if len(head) <= SHORT_RESULT else head[:SHORT_RESULT - 1] + "…"
        line = head + (" — see the note above the tabs" if whole or notice else "")
        self.status.emit(line)
        return line

    def _say_notice(self) -> None:
        """What the first change added to the file and where its backup is (said once)."""
        self.say_notice(self.ws.take_notice())

    def say_notice(self, notice: str) -> None:
        """What the first change added to the file and where its backup is: in the window's bar
        (``ui.shell.notice``), which stays until closed, with a short line in the status bar."""
        if notice:
            self.noticed.emit(notice)
            self.status.emit("Backup made before the first change: see the note above the tabs.")

    async def job(self, title: str, fn: Callable[[Workspace, Job], T], *, kinds: Iterable[str | Kind] = (),
                  label: str = "") -> T:
        """Long work with progress and Cancel in the status bar; when it writes (``kinds``
        names what it changes) its commits are ours and the change is routed at the end,
        finished or stopped."""
        ws = self.ws
        writes = ChangeSet.of_kinds(kinds) if kinds else None  # a kind that is no Kind fails here, at once

        def work(job: Job) -> T:
            if writes is None:
                return fn(ws, job)
            with ws.own_commits():
                return fn(ws, job)

        _job, awaitable = self.ops.job(title, work, label=label)
        try:
            return await awaitable
        finally:
            if writes is not None:
                self._say_notice()
                self.changed.emit(writes)

    def refused(self, what: str) -> None:
        """Say in the status bar why an action did nothing (read-only, say)."""
        self.status.emit(f"{what}: unavailable — {self.write_block}" if self.write_block else what)

    def navigate(self, tab: str, **target: Any) -> None:
        self.navigate_to.emit(tab, target)
