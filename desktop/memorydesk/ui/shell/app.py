"""Application bootstrap: one QApplication, a palette that follows the system scheme,
and one place where unexpected errors and Qt's own messages end up (``logging``)."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from types import TracebackType

import qasync
from PySide6.QtCore import Qt, QtMsgType, qInstallMessageHandler
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from memorydesk.crashlog import start_desk_log

log = logging.getLogger("memorydesk.ui")
qt_log = logging.getLogger("memorydesk.qt")

ORGANIZATION = "MemoryDesk"
APPLICATION = "memory-desk"
_hooks_installed = False


def ensure_offscreen_if_headless() -> None:
    """Render off-screen when there is no display (must run before the QApplication exists)."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def ensure_app(argv: list[str] | None = None) -> QApplication:
    """The QApplication, created once, with names, style and palette set, and the asyncio
    loop that runs on Qt's own event loop (qasync), so UI flows can ``await``."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv or [APPLICATION])
    assert isinstance(app, QApplication)
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName("Memory Desk")
    apply_palette(app)
    start_desk_log()  # the error dialog says where the details are: they must be there
    install_hooks()
    ensure_loop(app)
    return app


def ensure_loop(app: QApplication) -> asyncio.AbstractEventLoop:
    """One qasync loop for the application, set as running: Qt's event loop (``exec()`` or a
    test's ``processEvents``) runs its callbacks, on the UI thread."""
    loop = getattr(app, "_memdesk_loop", None)
    if loop is None:
        loop = qasync.QEventLoop(app, already_running=True)
        asyncio.set_event_loop(loop)
        app._memdesk_loop = loop  # type: ignore[attr-defined]
    return loop


def dark_scheme() -> bool:
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def apply_palette(app: QApplication) -> None:
    """Fusion with the system's light or dark palette; follows scheme changes."""
    app.setStyle("Fusion")
    app.setPalette(_palette(dark_scheme()))
    hints = QGuiApplication.styleHints()
    if not getattr(app, "_memdesk_scheme_hooked", False):
        hints.colorSchemeChanged.connect(lambda scheme: app.setPalette(_palette(scheme == Qt.ColorScheme.Dark)))
        app._memdesk_scheme_hooked = True  # type: ignore[attr-defined]


def _palette(dark: bool) -> QPalette:
    from PySide6.QtGui import QColor

    p = QPalette()
    if not dark:
        return QApplication.style().standardPalette() if QApplication.style() else p
    colors = {
        QPalette.ColorRole.Window: "#2b2d30", QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1e1f22", QPalette.ColorRole.AlternateBase: "#26282b",
        QPalette.ColorRole.Text: "#e6e6e6", QPalette.ColorRole.Button: "#35373b",
        QPalette.ColorRole.ButtonText: "#e6e6e6", QPalette.ColorRole.Highlight: "#2f65ca",
        QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.ToolTipBase: "#35373b",
        QPalette.ColorRole.ToolTipText: "#e6e6e6", QPalette.ColorRole.PlaceholderText: "#8c8c8c",
        QPalette.ColorRole.Link: "#6ea0ff",
    }
    for role, value in colors.items():
        p.setColor(role, QColor(value))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    return p


def _excepthook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    log.error("unexpected error", exc_info=(kind, exc, tb))


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is not None:
        log.error("unexpected error in thread %s", getattr(args.thread, "name", "?"),
                  exc_info=(args.exc_type, args.exc_value, args.exc_traceback))


_QT_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING, QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}


# The offscreen platform (shots, tests) says this for every top-level window; it is not ours.
_PLATFORM_NOISE = ("This plugin does not support propagateSizeHints()",)


def _qt_message(kind: QtMsgType, context: object, message: str) -> None:
    level = logging.DEBUG if message in _PLATFORM_NOISE else _QT_LEVELS.get(kind, logging.WARNING)
    qt_log.log(level, "%s", message)


def install_hooks() -> None:
    """``sys.excepthook``, ``threading.excepthook`` and Qt's message handler, once.

    Under pytest-qt the test harness owns Qt messages (so it can fail a test on a
    warning); the hooks are then left alone.
    """
    global _hooks_installed
    if _hooks_installed or "pytestqt" in sys.modules:
        return
    _hooks_installed = True
    sys.excepthook = _excepthook
    threading.excepthook = _thread_excepthook
    qInstallMessageHandler(_qt_message)
