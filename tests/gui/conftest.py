"""GUI tests: offscreen Qt, temp settings, sample workspaces, a ready main window."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any QApplication exists

from pathlib import Path

import desk_sample
import guihelp
import pytest

OFFSCREEN_NOISE = "This plugin does not support propagateSizeHints()"


def pytest_configure(config: pytest.Config) -> None:
    # the offscreen platform says this for every top-level widget with a layout; it is
    # not a problem of ours, and only this exact message is let through
    config.addinivalue_line("qt_log_ignore", OFFSCREEN_NOISE)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.gui)


@pytest.fixture(autouse=True)
def private_settings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Settings and app data in a temp folder: tests never touch the real profile."""
    from PySide6.QtCore import QSettings, QStandardPaths

    folder = tmp_path_factory.mktemp("settings")
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    QStandardPaths.setTestModeEnabled(True)
    return folder


@pytest.fixture(scope="session")
def conflicts_built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The workspace with known conflicts (``fixtures.conflicts``), written once per process;
    tests take a copy (``conflicts_sample.workspace``)."""
    from fixtures.conflicts import build

    path = tmp_path_factory.mktemp("conflicts") / "ws.db"
    return path, build(path)


@pytest.fixture
def sample_path(tmp_path: Path) -> Path:
    return desk_sample.build(tmp_path / "sample.db")


@pytest.fixture
def open_window(qtbot, qapp):
    """Open a main window on a workspace and wait until the lists are loaded."""
    from memorydesk.store import open_workspace
    from memorydesk.ui.shell.app import ensure_app
    from memorydesk.ui.shell.mainwindow import MainWindow

    ensure_app()
    windows = []

    def make(path: Path, read_only: bool = False) -> MainWindow:
        ws = open_workspace(path, read_only=read_only)
        win = MainWindow(ws)
        qtbot.addWidget(win)
        win.show()
        guihelp.wait_idle(qtbot, win)
        windows.append(win)
        return win

    yield make
    for win in windows:
        win.close()


@pytest.fixture
def ui_thread_guarded():
    """Every database access on this (the UI) thread is recorded and refused while it is on.

    Open the window first with ``guard.allow()``; then ``guard.forbid()`` around the flow."""
    import threading

    from memorydesk.store import guard

    guard.violations.clear()
    guard.forbid(threading.get_ident())
    yield guard.violations
    guard.allow(threading.get_ident())
