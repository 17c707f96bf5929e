"""What the window remembers between runs (QSettings, through ``ui.shell.settings``).

- **The window**: size, position and maximised state (``window/size``, ``window/pos``,
  ``window/maximized``; the size and place it had before it was maximised).
- **Per workspace** (``workspaces/<key>/…``, the key a hash of the file's path): the tab
  that was shown.
- **The layout of each tab**: every splitter a person moved (``layout/<tab>/<splitter>``)
  and the widths of table columns a person resized (``layout/<tab>/<view>/columns``).
  Views whose columns a ``ColumnFitter`` fits keep only the widths the person gave
  (the rest are fitted to the window, as before); other views keep their header's state.

A splitter that was moved or restored carries the property ``placed_by_person``, so a tab
that places its splitter by the window's size leaves it alone.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QMargins, QObject, QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMainWindow, QSplitter, QWidget

from memorydesk.ui.shell import settings
from memorydesk.ui.widgets.columns import ColumnFitter

PERSON = "placed_by_person"


def workspace_key(path: str | Path) -> str:
    return hashlib.sha1(str(Path(path).resolve()).encode("utf-8")).hexdigest()[:16]


def _name(widget: QWidget, kind: str, k: int) -> str:
    return widget.objectName() or f"{kind}{k}"


def _splitters(tab: QWidget) -> list[tuple[str, QSplitter]]:
    return [(_name(s, "splitter", k), s) for k, s in enumerate(tab.findChildren(QSplitter))]


def _views(tab: QWidget) -> list[tuple[str, QAbstractItemView, QHeaderView]]:
    out = []
    for k, view in enumerate(tab.findChildren(QAbstractItemView)):
        header = getattr(view, "horizontalHeader", None) or getattr(view, "header", None)
        if header is not None and isinstance(header(), QHeaderView) and not isinstance(view, QHeaderView):
            out.append((_name(view, "view", k), view, header()))
    return out


# --- the window -----------------------------------------------------------------------------

#: what a window manager's frame takes, guessed until the window is shown and its frame is known
FRAME_GUESS = QMargins(4, 32, 4, 4)


def fitted_size(wanted: QSize, room: QRect, frame: QMargins, least: QSize) -> QSize:
    """The size to give a window that wants ``wanted``: no larger than the screen's ``room`` (its
    available geometry, panels left out) less the frame around it, never below ``least``."""
    width = min(wanted.width(), room.width() - frame.left() - frame.right())
    height = min(wanted.height(), room.height() - frame.top() - frame.bottom())
    return QSize(max(width, least.width()), max(height, least.height()))


class _OnScreen(QObject):
    """Fits the window again once it is shown and once its window manager's frame is known (the
    frame arrives after the show, with the first move the manager makes)."""

    def __init__(self, win: QMainWindow) -> None:
        super().__init__(win)
        self.setObjectName("window-on-screen")
        self.win, self.shown, self.framed = win, False, False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Show and not self.shown:
            self.shown = True
            QTimer.singleShot(0, self, lambda: fit_to_screen(self.win))
        elif kind == QEvent.Type.Move and self.shown and not self.framed \
                and self.win.frameGeometry() != self.win.geometry():
            self.framed = True
            fit_to_screen(self.win)
        return False


def keep_on_screen(win: QMainWindow) -> None:
    """Fit the window to its screen now (``fit_to_screen``), and again when it is shown and framed."""
    fit_to_screen(win)
    win.installEventFilter(_OnScreen(win))


def fit_to_screen(win: QMainWindow) -> None:
    """Keep the window, frame included, on its screen's available geometry: a first size (or a
    size kept from a larger screen) that would put the status bar below the screen's edge is
    made smaller and the window moved into the room. Maximised windows are the window
    manager's to place; an off-screen render (``shot``) has no screen to fit."""
    if QGuiApplication.platformName() == "offscreen" or win.isMaximized() or win.isFullScreen():
        return
    screen = win.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return
    room = screen.availableGeometry()
    frame, inner = win.frameGeometry(), win.geometry()
    known = frame != inner
    margins = QMargins(inner.left() - frame.left(), inner.top() - frame.top(), frame.right() - inner.right(),
                       frame.bottom() - inner.bottom()) if known else FRAME_GUESS
    size = fitted_size(win.size(), room, margins, win.minimumSize())
    if size != win.size():
        win.resize(size)
    if known:
        frame = win.frameGeometry()
        x = min(max(frame.left(), room.left()), max(room.left(), room.right() - frame.width() + 1))
        y = min(max(frame.top(), room.top()), max(room.top(), room.bottom() - frame.height() + 1))
        if (x, y) != (frame.left(), frame.top()):
            win.move(x, y)


def restore_window(win: QMainWindow) -> None:
    """Size and place as last time (a place no screen shows any more is left to the system),
    then maximised if it was."""
    store = settings.store()
    size, pos = store.value("window/size"), store.value("window/pos")
    if isinstance(size, QSize) and size.isValid():
        win.resize(size.expandedTo(win.minimumSize()))
    if isinstance(pos, QPoint) and QGuiApplication.screenAt(pos + QPoint(40, 20)) is not None:
        win.move(pos)
    if str(store.value("window/maximized", "false")).lower() == "true":
        win.setWindowState(win.windowState() | Qt.WindowState.WindowMaximized)


def save_window(win: QMainWindow) -> None:
    store = settings.store()
    maximized = win.isMaximized()
    normal = win.normalGeometry() if maximized and win.normalGeometry().isValid() else None
    store.setValue("window/size", normal.size() if normal is not None else win.size())
    store.setValue("window/pos", normal.topLeft() if normal is not None else win.frameGeometry().topLeft())
    store.setValue("window/maximized", bool(maximized))
    store.sync()


# --- per workspace ----------------------------------------------------------------------------


def saved_tab(path: str | Path) -> str | None:
    value = settings.store().value(f"workspaces/{workspace_key(path)}/tab")
    return str(value) if value else None


def save_tab(path: str | Path, name: str | None) -> None:
    if not name:
        return
    store = settings.store()
    key = workspace_key(path)
    store.setValue(f"workspaces/{key}/path", str(Path(path).resolve()))
    store.setValue(f"workspaces/{key}/tab", name)
    store.sync()


# --- each tab's layout ------------------------------------------------------------------------


class _Layout(QObject):
    """Puts a tab's layout back the first time the tab is shown, once it has its real size
    (a splitter restored before would be stretched out of shape by the first layout), and
    marks the splitters a person moves."""

    def __init__(self, tab: QWidget, name: str) -> None:
        super().__init__(tab)
        self.setObjectName("window-state-layout")
        self.tab, self.name, self.restored = tab, name, False
        for _key, split in _splitters(tab):
            split.splitterMoved.connect(lambda *_a, s=split: s.setProperty(PERSON, True))
        tab.installEventFilter(self)
        if tab.isVisible():  # shown already (the first tab of a window that is up)
            self._restore()

    def _restore(self) -> None:
        self.restored = True
        QTimer.singleShot(0, self, lambda: restore_tab(self.tab, self.name))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tab and event.type() == QEvent.Type.Show and not self.restored:
            self._restore()
        return False


def restore_tab(tab: QWidget, name: str) -> None:
    store = settings.store()
    for key, split in _splitters(tab):
        state = store.value(f"layout/{name}/{key}")
        if isinstance(state, QByteArray) and not state.isEmpty() and split.restoreState(state):
            split.setProperty(PERSON, True)
    for key, view, header in _views(tab):
        value = store.value(f"layout/{name}/{key}/columns")
        if not value:
            continue
        fitter = next(iter(view.findChildren(ColumnFitter)), None)
        if fitter is not None:
            try:
                widths = json.loads(str(value))
            except ValueError:
                continue
            if isinstance(widths, dict):
                fitter.restore_widths({str(k): int(v) for k, v in widths.items() if isinstance(v, (int, float))})
        elif isinstance(value, QByteArray):
            header.restoreState(value)


def save_tab_layout(tab: QWidget, name: str) -> None:
    """Keep what a person set in a tab that was shown (a tab never shown keeps what was kept)."""
    layout = tab.findChild(_Layout, "window-state-layout")
    if layout is None or not layout.restored:
        return
    store = settings.store()
    for key, split in _splitters(tab):
        if split.property(PERSON):
            store.setValue(f"layout/{name}/{key}", split.saveState())
    for key, view, header in _views(tab):
        fitter = next(iter(view.findChildren(ColumnFitter)), None)
        value: Any
        if fitter is not None:
            value = json.dumps({n: fitter.widths[n] for n in sorted(fitter.user_sized)})
        else:
            value = header.saveState()
        store.setValue(f"layout/{name}/{key}/columns", value)
    store.sync()


# --- the main window's calls ----------------------------------------------------------------------


def remember(win: Any) -> None:
    """Keep the shown workspace's tab and every tab's layout (before the tabs go away)."""
    if win.ws is None:
        return
    save_tab(win.ws.path, win.current_tab_name())
    for slot in win.slots:
        save_tab_layout(slot.tab, slot.tab.name)


def track_layout(tab: QWidget) -> None:
    """A tab built after the others (``ui.shell.startup``): its layout is put back when it is first shown."""
    _Layout(tab, tab.name)  # type: ignore[attr-defined]


def recall(win: Any) -> str | None:
    """Put every new tab's layout back; the tab to show for this workspace, if one was kept."""
    for slot in win.slots:
        _Layout(slot.tab, slot.tab.name)
    return saved_tab(win.ws.path) if win.ws is not None else None
