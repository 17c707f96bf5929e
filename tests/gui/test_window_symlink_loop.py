"""The window on a loop of symbolic links (issue 26, point 10).

``memory-desk LOOP`` used to exit 70 (``Path.resolve`` in ``commands/window.py``); the
command line says "a loop of symbolic links", exit 2. The window now says the same
sentence: on the terminal with exit 2 at start, in a dialog when it is already open.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _loop(tmp_path: Path) -> Path:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    a.symlink_to(b)
    b.symlink_to(a)
    return a


def test_starting_the_window_on_a_loop_is_the_command_lines_sentence(tmp_path: Path) -> None:
    loop = _loop(tmp_path)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path),
           "XDG_DATA_HOME": str(tmp_path)}
    window = subprocess.run([sys.executable, "-m", "memorydesk", str(loop)], capture_output=True, text=True,
                            timeout=60, env=env)
    check = subprocess.run([sys.executable, "-m", "memorydesk", "check", str(loop)], capture_output=True, text=True,
                           timeout=60, env=env)
    assert window.returncode == 2 == check.returncode
    assert window.stderr == check.stderr and "a loop of symbolic links" in window.stderr
    assert window.stderr.count("\n") == 1


def test_opening_a_loop_in_the_open_window_says_it_in_a_dialog(qtbot, tmp_path: Path) -> None:
    from memorydesk.ui.shell.app import ensure_app
    from memorydesk.ui.shell.mainwindow import MainWindow

    ensure_app()
    loop = _loop(tmp_path)
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    win.open_path(loop)
    qtbot.waitUntil(lambda: bool(getattr(win, "last_error", None)), timeout=10000)
    assert win.last_error == f"{loop}: a loop of symbolic links; point it at a real workspace file"
    assert win.error_box is not None and win.last_error in win.error_box.text()
    win.error_box.close()
