"""The tab contract: what every tab of the desk implements, and nothing more.

A tab is a widget with a ``name`` (the command line's ``--tab``), a ``title``, and what it
shows, stated once: the ``kinds`` of entity (``core.changes.Kind``), whether it lists the
history (``shows_history``), and, where it shows only some of a kind, which ids
(``showing(kind)``). The window makes one per open workspace from the list in ``ui.tabs``,
and calls:

- ``open(session)`` the first time the tab is shown (a tab nobody looks at reads nothing);
- ``refresh(change)`` when a change reaches it (``ChangeSet.reaches``: one of its kinds at
  an id it shows, the history it lists, or another process wrote the file:
  ``change.external``) — only while the tab is shown; a hidden tab is handed the changes
  it missed, merged, when it is shown again;
- ``navigate(target)`` when another tab asks to show something here ("show in graph",
  "show its conflicts"), after ``open``;
- ``close()`` when the workspace closes or is replaced.

``prepare_shot()`` is a hook for ``memory-desk shot``: select something representative
so the picture shows the tab at work.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, ClassVar, TypeVar

from PySide6.QtWidgets import QWidget

from memorydesk.core.changes import Kind, Shown, kinds
from memorydesk.store.workspace import Workspace
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

    def open(self, session: DeskSession) -> None:
        """Start showing the session's workspace (read in the background)."""
        self.session = session

    def showing(self, kind: Kind) -> Shown:
        """The ids of ``kind`` this tab shows now (any container of ids); None: all of them."""
        return None

    def refresh(self, change: Change) -> None:
        """Something this tab shows changed: read again what it must."""

    def navigate(self, target: dict[str, Any]) -> None:
        """Show ``target`` (e.g. ``{"fact": id}``); tabs that take no target ignore it."""

    def close(self) -> bool:
        """The workspace is going away: results still on their way are dropped (and the
        widget closes, as ``QWidget.close`` does)."""
        self.closed = True
        return super().close()

    # --- helpers for tabs ---------------------------------------------------------------

    def run(self, fn: Callable[[Workspace], T], on_done: Callable[[T], None], *, label: str = "",
            on_failure: Callable[[BaseException], None] | None = None) -> None:
        """``fn(ws)`` on the worker, ``on_done(result)`` back here unless the tab closed meanwhile."""
        session = self.session
        if session is None or self.closed:
            return
        ws = session.ws

        def deliver(result: T) -> None:
            if not self.closed:
                on_done(result)

        session.ops.run_for(self, lambda: fn(ws), deliver, label=label, on_failure=on_failure)

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
