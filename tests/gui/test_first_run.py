"""First run on real widgets: the window is there at once, the demo builds behind its
progress bar (facts, then vectors), and the rows show as soon as the facts are written.
A second start reuses the demo (and finishes its vectors); Cancel keeps nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog, QLabel

from memorydesk.demo.place import create
from memorydesk.embedding.embedder import get_embedder
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.vector_index import missing_count
from memorydesk.store import open_workspace
from memorydesk.ui.shell.first_run import BUILD_TITLE, VECTORS_TITLE, DemoSetup, demo_path
from memorydesk.ui.shell.mainwindow import MainWindow


@pytest.fixture(autouse=True)
def model_available() -> None:
    ok, reason = get_embedder().status()
    if not ok:
        pytest.skip(reason)


@pytest.fixture
def window(qtbot, qapp) -> MainWindow:
    from memorydesk.ui.shell.app import ensure_app

    ensure_app()
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    yield win
    win.close()


def jobs_of(win: MainWindow) -> list[str]:
    titles: list[str] = []
    win.ops.job_started.connect(lambda job: titles.append(job.title))
    return titles


def missing(path: Path) -> int:
    with open_workspace(path, read_only=True) as ws:
        return missing_count(ws)


def test_the_window_comes_first_and_the_demo_builds_behind_a_progress_bar(qtbot, window, tmp_path) -> None:
    path = demo_path(tmp_path / "data")
    said: list[str] = []
    titles = jobs_of(window)
    setup = DemoSetup(window, path, echo=said.append, facts=300)
    setup.start()
    qtbot.waitUntil(lambda: window.progress.isVisible(), timeout=10_000)
    placeholder = window.findChild(QLabel, "demo-placeholder")
    assert placeholder is not None and placeholder.isVisible() and "about 300 facts" in placeholder.text()
    assert window.progress.label.text().startswith(BUILD_TITLE)
    assert window.ws is None  # nothing open yet, the window is already there

    qtbot.waitUntil(lambda: window.ws is not None, timeout=120_000)
    facts = window.tab("facts")
    qtbot.waitUntil(lambda: facts.model.rowCount() > 0, timeout=30_000)  # rows before the vectors are in
    assert window.findChild(QLabel, "demo-placeholder") is None
    assert window.ws.path == path and not window.ws.read_only
    qtbot.waitUntil(lambda: setup.outcome == "built", timeout=180_000)
    assert titles == [BUILD_TITLE, VECTORS_TITLE]
    assert not window.progress.isVisible()
    assert missing(path) == 0  # search as the agent sees it is complete
    # the desk building its demo is no person's change: no dialog asked for a reason, no history of it
    assert window.dialog is None and not [w for w in QApplication.topLevelWidgets()
                                          if isinstance(w, QDialog) and w.isVisible()]
    with open_workspace(path, read_only=True) as ws:
        assert [h for h in Reviewer(ws, "x").history() if h["action"] == "embed"] == []
    assert f"demo workspace ready: {path}" in said
    assert f"{BUILD_TITLE}: writing facts 300 / 300" in said
    assert any(line.startswith(f"{VECTORS_TITLE}: ") for line in said)
    assert [p.name for p in path.parent.iterdir() if "building" in p.name] == []


def test_a_later_start_reuses_the_demo_and_finishes_its_vectors(qtbot, window, tmp_path) -> None:
    path = demo_path(tmp_path)
    path.parent.mkdir(parents=True)
    create(path, facts=200, embed=0)  # as a build stopped before its vectors leaves it
    assert missing(path) > 0
    built = path.stat().st_ino
    titles = jobs_of(window)
    setup = DemoSetup(window, path, facts=200)
    setup.start()
    qtbot.waitUntil(lambda: setup.outcome != "", timeout=120_000)
    assert setup.outcome == "reused" and titles == [VECTORS_TITLE]
    assert path.stat().st_ino == built
    assert missing(path) == 0


def test_fresh_builds_a_new_demo(qtbot, window, tmp_path) -> None:
    path = demo_path(tmp_path)
    path.parent.mkdir(parents=True)
    create(path, facts=200, embed=200)
    built = path.stat().st_ino
    setup = DemoSetup(window, path, fresh=True, read_only=True, facts=200)
    titles = jobs_of(window)
    setup.start()
    qtbot.waitUntil(lambda: setup.outcome != "", timeout=120_000)
    assert setup.outcome == "built" and path.stat().st_ino != built
    assert titles == [BUILD_TITLE]  # read-only: the vectors are not written
    assert window.ws.read_only


def test_cancel_stops_the_build_and_keeps_nothing(qtbot, window, tmp_path) -> None:
    path = demo_path(tmp_path)
    said: list[str] = []
    setup = DemoSetup(window, path, echo=said.append, facts=20_000)
    setup.start()
    qtbot.waitUntil(lambda: window.progress.bar.value() > 0, timeout=60_000)
    qtbot.mouseClick(window.progress.cancel, Qt.MouseButton.LeftButton)  # the person presses Cancel
    qtbot.waitUntil(lambda: setup.outcome != "", timeout=60_000)
    assert setup.outcome == "stopped" and window.ws is None
    assert list(path.parent.iterdir()) == []
    assert "stopped" in window.findChild(QLabel, "demo-placeholder").text()
    assert "demo build stopped; nothing was kept" in said
    assert window.last_error == ""  # a stop is not an error
