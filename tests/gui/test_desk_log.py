"""The error dialog keeps its word: the window logs to a rotating file in the user log folder
(the crash log's folder), the dialog names that file, the traceback is in it, and Help ▸ About
names it too."""

from __future__ import annotations

import html
import logging
import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from memorydesk import crashlog


@pytest.mark.logs_error("operation failed: doing something")
def test_an_unexpected_error_names_the_log_file_that_holds_its_traceback(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    log_file = crashlog.desk_log()
    assert log_file is not None and log_file.parent == crashlog.log_dir()
    assert log_file.is_relative_to(Path(os.environ["XDG_STATE_HOME"]))  # the user log folder (here, the suite's)

    def broken() -> None:
        raise ZeroDivisionError("a bug of ours, on purpose")

    win.ops.run(broken, lambda _r: None, label="doing something")
    qtbot.waitUntil(lambda: win.error_box is not None and win.error_box.isVisible(), timeout=10000)
    shown = win.error_box.text()
    assert shown.startswith("Unexpected error (ZeroDivisionError: a bug of ours, on purpose).")
    assert f"The details are in the log file {log_file}." in shown
    written = log_file.read_text(encoding="utf-8")
    assert "ERROR memorydesk.ui.operations" in written and "operation failed: doing something" in written
    assert "Traceback (most recent call last)" in written and "ZeroDivisionError: a bug of ours, on purpose" in written
    win.error_box.done(0)


def test_about_names_the_log_file(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    win.act_about.trigger()
    box = win.dialog
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert "Log file" in box.text() and html.escape(str(crashlog.desk_log())) in box.text()
    box.accept()


def test_the_log_rotates_and_keeps_three_older_files(tmp_path: Path) -> None:
    path = tmp_path / "log" / crashlog.LOG_NAME
    handler = crashlog.rotating_handler(path, max_bytes=2_000)
    logger = logging.getLogger("memorydesk.test-rotation")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        for n in range(200):
            logger.warning("line %d of a log that outgrows its file: %s", n, "x" * 40)
    finally:
        logger.removeHandler(handler)
        handler.close()
    names = sorted(p.name for p in path.parent.iterdir())
    assert names == [crashlog.LOG_NAME, f"{crashlog.LOG_NAME}.1", f"{crashlog.LOG_NAME}.2", f"{crashlog.LOG_NAME}.3"]
    assert all(p.stat().st_size <= 2_000 for p in path.parent.iterdir())
    assert "line 199 of a log" in path.read_text(encoding="utf-8")  # the newest in the file itself
