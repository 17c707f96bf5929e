"""The window's state kept however the session ends (``ui.shell.window_state`` says what is kept).

A normal close saves it; so do, without a close, a few seconds after each change (the
window resized, moved or maximised, a tab shown, a splitter moved, a column resized), the
application quitting (``aboutToQuit``), the session manager asking to save at logout
(``commitDataRequest``), and — for the window the command line opens — SIGTERM or SIGHUP,
which close the window as File ▸ Quit does (state saved, the workspace closed, exit 0)
instead of killing the process with the state unsaved.
"""

from __future__ import annotations

import signal
from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QSplitter

from memorydesk.ui.shell import window_state

SAVE_AFTER_MS = 2000  # after the last change: a drag or a resize saves once, when it ends
HOOKED = "memorydesk_state_hooked"


class StateKeeper(QObject):
    def __init__(self, win: QMainWindow, remember: bool) -> None:
        super().__init__(win)
        self.setObjectName("state-keeper")
        self.win: Any = win
        self.remember = remember
        self.closed = False
        self.saves = 0  # how many times the state was written (tests read it)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(SAVE_AFTER_MS)
        self.timer.timeout.connect(self.save)
        self._tick: QTimer | None = None
        if not remember:
            return
        window_state.restore_window(win)
        win.installEventFilter(self)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.save)
            app.commitDataRequest.connect(lambda _manager: self.save())

    # -- when to save ---------------------------------------------------------------------------
    def changed(self, *_args: Any) -> None:
        if self.remember and not self.closed:
            self.timer.start()  # restarted by each change: saved once things are still

    def watch(self) -> None:
        """Follow the new tabs' splitters and columns, and which tab is shown (after a workspace opened)."""
        if not self.remember:
            return
        tabs = self.win.tabs
        if not tabs.property(HOOKED):
            tabs.setProperty(HOOKED, True)
            tabs.currentChanged.connect(self._tab_shown)
        for slot in self.win.slots:
            for split in slot.tab.findChildren(QSplitter):
                if not split.property(HOOKED):
                    split.setProperty(HOOKED, True)
                    split.splitterMoved.connect(self.changed)
            for _key, _view, header in window_state._views(slot.tab):
                if not header.property(HOOKED):
                    header.setProperty(HOOKED, True)
                    header.sectionResized.connect(self.changed)

    def _tab_shown(self, *_args: Any) -> None:
        self.watch()  # a tab built after the first paint (``ui.shell.startup``) is followed once it is shown
        self.changed()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.win and event.type() in (QEvent.Type.Resize, QEvent.Type.Move,
                                                    QEvent.Type.WindowStateChange):
            self.changed()
        return False

    # -- saving ---------------------------------------------------------------------------------
    def save(self) -> None:
        """Write the window's size and place, the shown tab and every tab's layout now."""
        if not self.remember or self.closed:
            return
        self.timer.stop()
        window_state.remember(self.win)
        window_state.save_window(self.win)
        self.saves += 1

    def save_on_close(self) -> None:
        """The window closes: save a last time, then nothing more (its tabs are going away)."""
        self.save()
        self.closed = True
        if self._tick is not None:
            self._tick.stop()

    # -- ended from outside ------------------------------------------------------------------------
    def end_on_signals(self) -> None:
        """SIGTERM and SIGHUP close the window as File ▸ Quit does. Python runs a signal handler
        only between its own steps, so a short timer gives it one while Qt waits for events."""
        for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if sig is not None:
                signal.signal(sig, lambda _n, _f: QTimer.singleShot(0, self.win.quit))
        self._tick = QTimer(self)
        self._tick.setInterval(250)
        self._tick.timeout.connect(lambda: None)
        self._tick.start()
