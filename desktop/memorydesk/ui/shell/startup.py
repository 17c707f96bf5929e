"""The window first, the rest after: what the window started by ``memory-desk`` defers until
the Facts rows are on the screen.

The window builds the one tab it shows first; every other tab is a ``PendingTab`` (its
name on the tab bar, nothing behind it). Once the first rows are painted (``FirstPaint``
says so, in the desk's log too), ``Warmup`` loads, off the UI thread and one after another:
the other tabs' modules (each tab is then built on the UI thread, in its place), the
embedding model, and search's copies of the file. A tab clicked before its turn is built
at once. Nothing here changes what a tab shows, only when its code is loaded.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from memorydesk import STARTED_AT
from memorydesk.ui.shell.tabs import TabSpec

if TYPE_CHECKING:
    from memorydesk.store.workspace import Workspace

log = logging.getLogger("memorydesk.ui.shell.startup")
#: the warm-up starts by then even when no rows were painted (an empty workspace, another tab shown)
WARM_UP_AFTER_MS = 3000


class PendingTab(QWidget):
    """The place of a tab whose module is not loaded yet."""

    def __init__(self, spec: TabSpec) -> None:
        super().__init__()
        self.spec, self.name, self.title = spec, spec.name, spec.title
        self.setObjectName(f"{spec.name}-pending")

    def wants_keyboard(self) -> QWidget | None:
        return None


class FirstPaint(QObject):
    """Calls ``then`` once, right after the view's viewport painted with rows in it."""

    def __init__(self, view: Any, then: Callable[[float], None]) -> None:
        super().__init__(view)
        self.view, self.then, self.done = view, then, False
        view.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (not self.done and event.type() == QEvent.Type.Paint and watched is self.view.viewport()
                and self.view.model() is not None and self.view.model().rowCount() > 0):
            self.done = True
            QTimer.singleShot(0, self, self._painted)  # after this paint has reached the screen
        return False

    def _painted(self) -> None:
        seconds = time.perf_counter() - STARTED_AT
        log.info("first Facts rows painted %.2f s after start", seconds)
        self.view.viewport().removeEventFilter(self)
        self.then(seconds)


class Warmup(QObject):
    """Loads, off the UI thread, what the first paint did not need (see the module's docstring)."""

    loaded = Signal(object)  # a TabSpec whose module is imported (build it now, on the UI thread)
    finished = Signal()

    def __init__(self, build: Callable[[TabSpec], None], specs: list[TabSpec], ws: Workspace,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.specs, self.ws, self.build, self.stopped, self.done = specs, ws, build, False, False
        self.loaded.connect(self._loaded)  # queued: emitted on the warm-up thread, run on the UI thread
        self.finished.connect(self._finished)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="memorydesk-warmup", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """The workspace is going: nothing more is built for it (a load under way finishes alone)."""
        self.stopped = True

    def _run(self) -> None:
        started = time.perf_counter()
        try:
            for spec in self.specs:
                if self.stopped:
                    return
                importlib.import_module(spec.module)
                self._emit(self.loaded, spec)
            if not self.stopped:
                from memorydesk.embedding.embedder import embedder_status

                ok, reason = embedder_status()  # the model's session, built once for the process
                if not ok:
                    log.info("warm-up: %s", reason)
            if not self.stopped:
                from memorydesk.search.copies import follow

                follow.prepare(self.ws)  # search's copies, built on their own thread
        except Exception:  # noqa: BLE001 - a tab whose module fails is built (and fails visibly) when shown
            log.warning("warm-up stopped", exc_info=True)
        log.info("warm-up done in %.2f s", time.perf_counter() - started)
        self._emit(self.finished)

    def _emit(self, signal: Any, *args: Any) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:  # the window is gone
            self.stopped = True

    def _loaded(self, spec: TabSpec) -> None:
        if not self.stopped:
            self.build(spec)

    def _finished(self) -> None:
        self.done = True


def build_tab(win: Any, spec: TabSpec) -> None:
    """Put the real tab in a pending tab's place in the window; its layout as kept."""
    from memorydesk.ui.shell import window_state

    slot = next((s for s in win.slots if s.tab.name == spec.name), None)
    if slot is None or slot.built:
        return
    pending, tab = slot.tab, spec.load()()
    tabs = win.tabs
    index, shown = tabs.indexOf(pending), tabs.currentWidget() is pending
    tabs.blockSignals(True)
    tabs.removeTab(index)
    tabs.insertTab(index, tab, spec.title)
    if shown:
        tabs.setCurrentIndex(index)
    tabs.blockSignals(False)
    slot.tab = tab
    pending.deleteLater()
    if win.remember:
        window_state.track_layout(tab)


def warm_up_after_first_paint(win: Any, ws: Workspace) -> Warmup:
    """The warm-up of a window's workspace: started once the Facts rows are painted (at the
    latest ``WARM_UP_AFTER_MS`` later), at once when another tab is shown first."""
    warmup = Warmup(lambda spec: build_tab(win, spec), [s.tab.spec for s in win.slots if not s.built], ws, win)
    facts = win.tab("facts") if win.current_tab_name() == "facts" else None
    if facts is not None:
        FirstPaint(facts.view, lambda _seconds: warmup.start())
    QTimer.singleShot(WARM_UP_AFTER_MS if facts is not None else 0, warmup, warmup.start)
    return warmup
