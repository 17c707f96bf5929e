"""The tab contract: what every tab of the desk implements, and nothing more.

A tab is a widget with a ``name`` (the command line's ``--tab``), a ``title``, and what it
shows, stated once: the ``kinds`` of entity (``core.changes.Kind``), whether it lists the
history (``shows_history``), and, where it shows only some of a kind, which ids
(``showing(kind)``). The window makes one per open workspace from the list in ``ui.shell.tabs``,
and calls:

- ``open(session)`` the first time the tab is shown (a tab nobody looks at reads nothing);
- ``refresh(change)`` when a change reaches it (``ChangeSet.reaches``: one of its kinds at
  an id it shows, the history it lists, or another process wrote the file:
  ``change.external``) — only while the tab is shown; a hidden tab is handed the changes
  it missed, merged, when it is shown again;
- ``navigate(target)`` when another tab asks to show something here ("show in graph",
  "show its conflicts"), after ``open``;
- ``close()`` when the workspace closes or is replaced.

What every tab needs besides is written here once, and a tab keeps only what is its own:

- **reads** — ``run(fn, on_done)``: ``fn(ws)`` on the database worker, ``on_done`` back here
  unless the tab closed meanwhile; ``compute(fn, on_done)``: numpy work on the tab's own
  thread (made the first time it is asked), with a ``Job`` in the status bar when it has a
  ``title``. Both runners report failures on the one error path (``Operations.report``).
- **stale results** — ``self.latest.take("list")`` starts a newer read of the list; a result
  handed to ``run``/``compute`` with ``token=`` is dropped when a newer one was started.
- **pending navigation** — while a tab is loading (``mark_loading()``) a target it is asked
  to show is held; ``mark_ready()`` (its rows are in) lands it: ``show_target(target)``, the
  tab's own part of ``navigate``. ``hold(target)`` keeps a target for the next ``mark_ready``
  (a selection a reload will make possible).

``prepare_shot()`` is a hook for ``memory-desk shot``: select something representative
so the picture shows the tab at work.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, ClassVar, TypeVar

from PySide6.QtWidgets import QWidget

from memorydesk.core.changes import Kind, Shown, kinds
from memorydesk.store.workspace import Workspace
from memorydesk.ui.operations import Job
from memorydesk.ui.runner import Latest, Runner, Token
from memorydesk.ui.session import Change, DeskSession

T = TypeVar("T")


class DeskTab(QWidget):
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    kinds: ClassVar[frozenset[Kind]] = frozenset()  # the kinds of entity it shows
    shows_history: ClassVar[bool] = False  # it lists the history (every write adds to it)

    def __init_subclass__(cls, **kw: Any) -> None:
        """``kinds`` may be written as names; a name that is no ``Kind`` fails when the class
        is made. "history" is not a kind: naming it is asking for the history flag."""
        super().__init_subclass__(**kw)
        names = set(cls.__dict__.get("kinds", cls.kinds))
        if "history" in names:
            names.discard("history")
            cls.shows_history = True
        cls.kinds = kinds(names)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{self.name}-tab")
        self.session: DeskSession | None = None
        self.closed = False
        self.latest = Latest()  # stale-result tokens (``run(..., token=)``)
        self.ready = True  # False from ``mark_loading`` until ``mark_ready``: targets are held
        self._held: dict[str, Any] | None = None  # a target waiting for ``mark_ready``
        self._thread: Runner | None = None  # the tab's own thread (``compute``), made when first asked
        self._jobs: set[Job] = set()

    def open(self, session: DeskSession) -> None:
        """Start showing the session's workspace (read in the background)."""
        self.session = session

    def showing(self, kind: Kind) -> Shown:
        """The ids of ``kind`` this tab shows now (any container of ids); None: all of them."""
        return None

    def refresh(self, change: Change) -> None:
        """Something this tab shows changed: read again what it must."""

    def navigate(self, target: dict[str, Any]) -> None:
        """Show ``target`` (e.g. ``{"fact": id}``): now when the tab is ready, else when it is
        (the latest target asked for wins)."""
        if self.ready:
            self.show_target(dict(target))
        else:
            self.hold(target)

    def show_target(self, target: dict[str, Any]) -> None:
        """The tab's part of ``navigate``, called once it has loaded; tabs that take no target ignore it."""

    def hold(self, target: dict[str, Any]) -> None:
        """Keep ``target`` until the tab is next ready (``mark_ready``)."""
        self._held = dict(target)

    def hold_nothing(self) -> None:
        """Forget the held target (what it asked for was done another way)."""
        self._held = None

    def mark_loading(self) -> None:
        """What the tab shows is being read: targets asked for meanwhile are held."""
        self.ready = False

    def mark_ready(self) -> bool:
        """What the tab shows is in: a held target lands now. True when one did."""
        self.ready = True
        target, self._held = self._held, None
        if target is not None and not self.closed:
            self.show_target(target)
        return target is not None

    @property
    def holding(self) -> dict[str, Any] | None:
        """The target waiting for the tab to be ready (None: none)."""
        return self._held

    def close(self) -> bool:
        """The workspace is going away: results still on their way are dropped, the tab's
        jobs stopped and its thread ended (and the widget closes, as ``QWidget.close`` does)."""
        self.closed = True
        self._held = None
        ops = self.session.ops if self.session is not None else None
        for job in list(self._jobs):
            job.cancel()
            if ops is not None:
                ops.end_job(job)
        self._jobs.clear()
        if self._thread is not None:
            self._thread.shutdown(wait=True)
        return super().close()

    # --- helpers for tabs ---------------------------------------------------------------

    def _deliver(self, on_done: Callable[[T], None], token: Token | None) -> Callable[[T], None]:
        def deliver(result: T) -> None:
            if not self.closed and (token is None or token.fresh):
                on_done(result)

        return deliver

    def run(self, fn: Callable[[Workspace], T], on_done: Callable[[T], None], *, label: str = "",
            on_failure: Callable[[BaseException], None] | None = None, token: Token | None = None,
            quiet: bool = False) -> None:
        """``fn(ws)`` on the database worker, ``on_done(result)`` back here unless the tab closed
        meanwhile or ``token`` went stale (a newer read of the same thing was started)."""
        session = self.session
        if session is None or self.closed:
            return
        ws = session.ws
        session.ops.run_for(self, lambda: fn(ws), self._deliver(on_done, token), label=label,
                            on_failure=on_failure, quiet=quiet)

    def compute(self, fn: Callable[..., T], on_done: Callable[[T], None], *, label: str = "",
                title: str = "", token: Token | None = None) -> Job | None:
        """Work that reads no database (numpy: a layout, a timeline) on the tab's own thread,
        so it never waits behind reads; ``on_done(result)`` here as with ``run``. With a
        ``title`` it is ``fn(job)`` and the status bar shows it with progress and Cancel;
        without, ``fn()``. Failures take the one error path (``label``: what was being done)."""
        session = self.session
        if session is None or self.closed:
            return None
        if self._thread is None:
            self._thread = session.ops.thread(f"memorydesk-{self.name or 'tab'}", self)
        ops, job = session.ops, None
        deliver = self._deliver(on_done, token)
        work: Callable[[], T] = fn
        if title:
            job = ops.begin_job(title)
            self._jobs.add(job)
            work = lambda: fn(job)  # noqa: E731 - the job is the one argument

            def finish(_result: Any = None) -> None:
                self._jobs.discard(job)
                ops.end_job(job)

            deliver = _then(finish, deliver)
            failure: Callable[[BaseException], None] | None = finish
        else:
            failure = None
        self._thread.run(work, deliver, on_failure=failure, label=label or title)
        return job

    @property
    def computing(self) -> bool:
        """Work is queued or running on the tab's own thread."""
        return self._thread is not None and self._thread.pending > 0

    def start(self, flow: Coroutine[Any, Any, Any]) -> None:
        """Run a UI flow (``async def``) on the operations queue."""
        if self.session is None or self.closed:
            flow.close()
            return
        self.session.ops.start(flow, owner=self)

    def prepare_shot(self) -> None:
        """Select something representative before a screenshot."""

    def wants_keyboard(self) -> QWidget | None:
        """The widget that should have the focus when the tab is shown."""
        return None


def _then(first: Callable[[Any], None], then: Callable[[Any], None]) -> Callable[[Any], None]:
    def both(result: Any) -> None:
        first(result)
        then(result)

    return both
