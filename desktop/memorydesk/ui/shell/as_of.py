"""Time in the window: one *as of* for every tab, with its banner, and File ▸ Compare With….

``TimeControls`` adds View ▸ Memory As Of… / Back to Now and File ▸ Compare With… to the
window and puts the banner ("Memory as of 12 Nov 2026 14:00 — Back to now") above the
tabs. Setting a time hands it to every opened tab that has the hook
``show_as_of(at: int | None)`` (Facts, Conflicts, Knowledge Graph, Lineage — where it is
*Evaluate at*), and to each tab opened later; None is "now".
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.history.diff import backups
from memorydesk.core.errors import BadInput
from memorydesk.core.moments import read_local, utc_text
from memorydesk.ui.session import DeskSession
from memorydesk.ui.widgets.timefield import TimeField


def banner_text(at: int) -> str:
    local = dt.datetime.fromtimestamp(at).astimezone()
    clock = f"{local:%H:%M:%S}" if local.second else f"{local:%H:%M}"
    return f"Memory as of {local.day} {local:%b %Y} {clock} {local:%Z} ({utc_text(at)})"


class AsOfDialog(QDialog):
    """The time typed is the time used: a line edit read by ``core.moments.read_local`` (never a
    sectioned spinner, which kept parts of the old time), in this computer's time zone unless
    an offset is typed; what it reads is shown live, in local time and UTC, before OK."""

    def __init__(self, at: int | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("as-of-dialog")
        self.setWindowTitle("Memory as of")
        zone = dt.datetime.now().astimezone().strftime("%Z, UTC%z")
        words = QLabel(f"Show memory as it stood at this time, typed as YYYY-MM-DD HH:MM:SS in this computer's "
                       f"time zone ({zone}) — or with an offset such as +01:00, or Z for UTC. Every tab follows: "
                       "Facts, Conflicts, Knowledge Graph, and the Lineage tab's Evaluate at.")
        words.setWordWrap(True)
        start = at if at is not None else int(time.time()) - 86400
        self.when = TimeField("as-of-when")
        self.when.set_moment(dt.datetime.fromtimestamp(start, dt.UTC))
        self.reads = QLabel("")
        self.reads.setObjectName("as-of-reads")
        self.reads.setWordWrap(True)
        self.when.edit.textChanged.connect(lambda _t: self._read())
        self.buttons = buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                                  | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._ok)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(words)
        layout.addWidget(self.when)
        layout.addWidget(self.reads)
        layout.addWidget(buttons)
        # wide enough for the title bar to hold "Memory as of" whole, and the sentence in few lines
        self.setMinimumWidth(max(520, self.fontMetrics().horizontalAdvance(self.windowTitle()) * 4))
        self._read()

    def _read(self) -> None:
        try:
            moment, note = read_local(self.when.edit.text())
        except BadInput as exc:
            self.reads.setText(str(exc))
            return
        seconds = int(moment.timestamp())
        local = dt.datetime.fromtimestamp(seconds).astimezone()
        self.reads.setText(f"Reads as {local:%Y-%m-%d %H:%M:%S %Z} — {utc_text(seconds)}" +
                           (f". {note}." if note else ""))

    def _ok(self) -> None:
        """Take the typed time; a time that cannot be read keeps the dialog open, saying why."""
        self.when.take()
        try:
            read_local(self.when.edit.text())
        except BadInput:
            self.when.edit.setFocus()
            return
        self.accept()

    def moment(self) -> int:
        return int(self.when.moment().timestamp())


class TimeControls:
    """The window's *as of* and its Compare With…; the window calls ``open_tab(tab, session)``
    for each tab it opens.

    Handed what it works on, not the window: ``window`` to put the banner above its central
    widget and the actions in its menus (``file_menu`` gets Compare With…), ``session()`` the
    open workspace's session (None: none is open) and ``opened_tabs()`` the tabs opened so far."""

    def __init__(self, window: QMainWindow, file_menu: QMenu, session: Callable[[], DeskSession | None],
                 opened_tabs: Callable[[], Iterable[Any]]) -> None:
        self.window = window
        self.session, self.opened_tabs = session, opened_tabs
        self.at: int | None = None
        self.dialog: Any = None
        self.compare_views: list[Any] = []
        self.banner = QFrame()
        self.banner.setObjectName("as-of-banner")
        self.banner.setStyleSheet("#as-of-banner { background: #fff3c4; border-bottom: 1px solid #d8b84a; }")
        self.label = QLabel("")
        self.label.setObjectName("as-of-label")
        self.back = QPushButton("Back to now")
        self.back.setObjectName("as-of-back")
        self.back.clicked.connect(lambda: self.set_as_of(None))
        row = QHBoxLayout(self.banner)
        row.setContentsMargins(10, 4, 10, 4)
        row.addWidget(self.label, 1)
        row.addWidget(self.back)
        self.banner.hide()
        tabs = window.takeCentralWidget()
        holder = QWidget()
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.banner)
        column.addWidget(tabs, 1)
        window.setCentralWidget(holder)
        bar = window.menuBar()
        view = next((a.menu() for a in bar.actions() if a.menu() is not None and a.text() == "&View"), None)
        if view is None:
            view = QMenu("&View", bar)
            bar.insertMenu(bar.actions()[-1], view)  # before Help
        else:
            view.addSeparator()
        self.act_as_of = self._action(view, "Memory &As Of…", self.ask, "Ctrl+Shift+T", "as-of")
        self.act_now = self._action(view, "Back to &Now", lambda: self.set_as_of(None), None, "as-of-now")
        first = file_menu.actions()[4] if len(file_menu.actions()) > 4 else None
        self.act_compare = QAction("Compare &With…", window)
        self.act_compare.setObjectName("compare-with")
        self.act_compare.triggered.connect(lambda _c=False: self.compare_dialog())
        file_menu.insertAction(first, self.act_compare)

    def _action(self, menu: Any, text: str, slot: Any, key: str | None, name: str) -> QAction:
        action = QAction(text, self.window)
        action.setObjectName(name)
        if key:
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _c=False: slot())
        menu.addAction(action)
        self.window.addAction(action)
        return action

    # --- as of ----------------------------------------------------------------------------

    def ask(self) -> None:
        self.dialog = AsOfDialog(self.at, self.window)
        self.dialog.accepted.connect(lambda: self.set_as_of(self.dialog.moment()))
        self.dialog.open()

    def set_as_of(self, at: int | None) -> None:
        self.at = at
        self.banner.setVisible(at is not None)
        if at is not None:
            self.label.setText(f"<b>{banner_text(at)}</b> — the tabs show memory as it stood then "
                               "(the Facts rules are in the guide)")
        for tab in self.opened_tabs():
            self.opened(tab)

    def open_tab(self, tab: Any, session: Any) -> None:
        """The window opens a tab: comparisons of another workspace close, the tab opens, then
        follows the window's *as of*."""
        if any(view.session is not session for view in self.compare_views):
            self.workspace_changed()
        tab.open(session)
        self.opened(tab)

    def opened(self, tab: Any) -> None:
        hook = getattr(tab, "show_as_of", None)
        if hook is not None and (self.at is not None or getattr(tab, "as_of", None) is not None):
            hook(self.at)

    # --- compare --------------------------------------------------------------------------

    def workspace_changed(self) -> None:
        """Another workspace replaces the open one: its comparisons close."""
        for view in self.compare_views:
            view.close()
        self.compare_views = []

    def compare_dialog(self) -> None:
        from memorydesk.ui.compare.chooser import CompareChooser

        session = self.session()
        if session is None:
            return
        self.dialog = CompareChooser(session.ws.path, backups(session.ws.path), self.window)
        self.dialog.accepted.connect(lambda: self.compare(self.dialog.chosen))
        self.dialog.open()

    def compare(self, other: Any) -> Any:
        from memorydesk.ui.compare.view import CompareView

        session = self.session()
        if other is None or session is None:
            return None
        view = CompareView(session, other, self.window)
        self.compare_views.append(view)
        view.show()
        return view
