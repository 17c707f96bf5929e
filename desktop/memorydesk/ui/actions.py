"""The write actions of a tab (or the window), built one way everywhere.

``WriteActions.add`` makes the ``QAction`` (text, object name, a shortcut scoped to its
owner) and connects it to a slot, plain or ``async def`` (a flow, started on the
operations queue). ``update`` applies the enable rules the owner computes, and the same
read-only rule for all: every write action is off with a tooltip saying why, and its
shortcut still answers — with that sentence in the status bar — instead of doing
nothing silently.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget

from memorydesk.ui.session import DeskSession

Rule = tuple[bool, str]  # enabled?, and when not: why (a few words)


def base_text(action: QAction) -> str:
    return action.text().replace("&", "").rstrip("…")


class WriteActions(QObject):
    def __init__(self, owner: QWidget, prefix: str, session: DeskSession | None = None) -> None:
        super().__init__(owner)
        self.owner, self.prefix = owner, prefix
        self.session = session
        self.all: list[QAction] = []
        self._refusals: dict[QAction, QShortcut] = {}
        self._refused = ""  # the why-not the status bar shows: taken back at the next update (the selection)

    def bind(self, session: DeskSession | None) -> None:
        self.session = session
        self.update({})

    @property
    def block(self) -> str | None:
        if self.session is None:
            return "no workspace is open"
        return self.session.write_block

    def add(self, text: str, slot: Callable[[], Any], *, name: str, key: Any = None,
            context: Qt.ShortcutContext = Qt.ShortcutContext.WidgetWithChildrenShortcut) -> QAction:
        action = QAction(text, self.owner)
        action.setObjectName(f"{self.prefix}-{name}")
        if key is not None:
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(context)
            refusal = QShortcut(QKeySequence(key), self.owner, context=context)
            refusal.setEnabled(False)
            refusal.activated.connect(lambda a=action: self._refuse(a))
            self._refusals[action] = refusal
        action.triggered.connect(lambda _checked=False: self.trigger(action, slot))
        self.owner.addAction(action)
        self.all.append(action)
        return action

    def trigger(self, action: QAction, slot: Callable[[], Any]) -> None:
        """Run the slot if the action is enabled; a coroutine runs as a flow."""
        if not action.isEnabled():
            self._refuse(action)
            return
        result = slot()
        if inspect.iscoroutine(result):
            if self.session is None:
                result.close()
                return
            self.session.ops.start(result, owner=self.owner)

    def update(self, rules: Mapping[QAction, Rule]) -> None:
        """Enable what the rules allow; with writing blocked, nothing, and say why. A why-not said
        for the selection before is taken back: it is about what is no longer selected."""
        if self._refused and self.session is not None:
            self.session.withdrawn.emit(self._refused)
        self._refused = ""
        block = self.block
        for action in self.all:
            base = base_text(action)
            refusal = self._refusals.get(action)
            if block:
                action.setEnabled(False)
                action.setToolTip(f"{base}: unavailable — {block}")
            else:
                ok, why = rules.get(action, (True, ""))
                action.setEnabled(ok)
                action.setToolTip(base if ok else f"{base}: {why[:1].lower() + why[1:]}")
            if refusal is not None:
                refusal.setEnabled(not action.isEnabled())  # its key says why it is off

    def allowed(self, action: QAction) -> bool:
        """For slots called directly: is the action allowed now? (Says why when not.)"""
        if action.isEnabled():
            return True
        self._refuse(action)
        return False

    def _refuse(self, action: QAction) -> None:
        if self.session is not None:
            why = self.block or action.toolTip().partition(": ")[2] or "not available now"
            self._refused = self.session.say_result(f"{base_text(action)}: {why}")  # a long one whole above
