"""File ▸ Import MemoryOS Directory… on real widgets: the zone must be chosen, the import
runs as a job with progress, the anomaly table holds the rows ``--json`` prints, Cancel
stops it before it writes, and the imported runs open in the Lineage tab."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import guihelp
import pytest
from PySide6.QtCore import Qt
from sqlalchemy import func, select

from fixtures.memoryos_dir import MemoryOSDir, knowledge, page, qa, session
from helpers import SHARED_DATA
from memorydesk.core.health.table import Color
from memorydesk.lineage import receipt_store
from memorydesk.store import guard, open_workspace


@pytest.fixture
def memoryos(tmp_path: Path) -> MemoryOSDir:
    """Two QAs in STM, one session with a page whose link dangles, a knowledge line stored twice."""
    folder = MemoryOSDir(tmp_path / "memoryos")
    folder.short_term = [qa(2, "2025-05-01 10:05:00"), qa(3, "2025-05-01 10:10:00")]
    folder.add_session(session("session_a", [page("page_1", qa(1, "2025-05-01 10:00:00"), nxt="page_9")],
                               "2025-05-01 10:06:00"))
    folder.user_knowledge = [knowledge("- Likes tea", "2025-05-01 11:00:00"),
                             knowledge("- Likes tea", "2025-05-01 12:00:00")]
    folder.write()
    return folder


def open_dialog(qtbot, win):
    win.act_import_memoryos.trigger()
    return guihelp.wait_dialog(qtbot, win)


def hot_items(path: Path) -> int:
    with open_workspace(path, read_only=True) as ws, ws.read() as conn:
        return conn.execute(select(func.count()).select_from(ws.layout.items)).scalar()


def test_the_zone_must_be_chosen_before_import(qtbot, open_window, sample_path: Path, memoryos) -> None:
    win = open_window(sample_path)
    dialog = open_dialog(qtbot, win)
    assert dialog.zone.currentIndex() == -1 and dialog.zone_name == ""
    dialog.folder.setText(str(memoryos.root))
    assert not dialog.import_button.isEnabled() and "time zone" in dialog.import_button.toolTip()
    dialog.zone.setEditText("Europe/Berl")  # typed (the completer's popup is not drawn offscreen)
    assert not dialog.import_button.isEnabled()  # not a zone yet
    dialog.zone.setEditText("Europe/Berlin")
    assert dialog.zone_name == "Europe/Berlin" and dialog.import_button.isEnabled()


def test_import_shows_progress_the_anomaly_table_and_opens_lineage(qtbot, qtmodeltester, open_window,
                                                                   sample_path: Path, memoryos,
                                                                   ui_thread_guarded) -> None:
    guard.allow(threading.get_ident())
    win = open_window(sample_path)
    guard.forbid(threading.get_ident())  # from here on the UI thread must not touch the database
    dialog = open_dialog(qtbot, win)
    dialog.folder.setText(str(memoryos.root))
    dialog.zone.setCurrentText("UTC")
    progress: list[tuple[int, int, str]] = []
    win.ops.job_started.connect(lambda job: job.progressed.connect(lambda *step: progress.append(step)))
    with qtbot.waitSignal(dialog.imported, timeout=30_000) as done:
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    result = done.args[0]
    assert [text for _d, _t, text in progress][-1] == "writing" and progress[0][1] == 5  # 3 files + 2 stages
    assert dialog.table.isVisible() and dialog.model.rowCount() == len(result.anomalies) == 2
    qtmodeltester.check(dialog.model)
    rows = [[dialog.model.data(dialog.model.index(r, c)) for c in range(5)] for r in range(dialog.model.rowCount())]
    assert rows == [
        ["dangling_page_link", "ana", "users/ana/mid_term.json",
         "sessions.session_a.details[page_id=page_1].next_page", result.anomalies[0].detail],
        ["duplicate_knowledge", "ana", "users/ana/long_term_user.json", "knowledge_base[1].knowledge",
         result.anomalies[1].detail]]
    assert "ana (lane ana × helper): 2 STM · 1 session · 1 page · 2 knowledge" in dialog.summary.text()
    guihelp.wait_idle(qtbot, win)
    assert ui_thread_guarded == []
    guard.allow(threading.get_ident())  # the test's own checks read the file
    assert hot_items(sample_path) == 2
    with open_workspace(sample_path, read_only=True) as ws:
        assert {r.run_id for r in receipt_store.load(ws)} == set(result.runs)
    assert dialog.lineage_button.isEnabled()
    qtbot.mouseClick(dialog.lineage_button, Qt.MouseButton.LeftButton)
    assert win.current_tab_name() == "lineage" and not dialog.isVisible()


def test_cancel_stops_before_anything_is_written(qtbot, open_window, sample_path: Path, memoryos) -> None:
    win = open_window(sample_path)
    dialog = open_dialog(qtbot, win)
    dialog.folder.setText(str(memoryos.root))
    dialog.zone.setCurrentText("UTC")
    win.ops.job_started.connect(lambda job: job.cancel())  # the person presses Cancel at once
    with qtbot.waitSignal(win.ops.job_finished, timeout=30_000):
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=10_000)
    assert dialog.stage.text() == "Stopped before anything was written."
    assert dialog.result is None and hot_items(sample_path) == 0 and win.error_box is None


def test_unusable_input_is_said_in_the_dialog(qtbot, open_window, sample_path: Path, tmp_path: Path) -> None:
    win = open_window(sample_path)
    dialog = open_dialog(qtbot, win)
    (tmp_path / "notes").mkdir()
    dialog.folder.setText(str(tmp_path / "notes"))
    dialog.zone.setCurrentText("UTC")
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Nothing was imported" in dialog.stage.text(), timeout=10_000)
    assert "not a MemoryOS data directory" in dialog.stage.text() and dialog.import_button.isEnabled()
    assert hot_items(sample_path) == 0


def test_read_only_disables_the_menu_entry(qtbot, open_window, sample_path: Path) -> None:
    win = open_window(sample_path, read_only=True)
    assert not win.act_import_memoryos.isEnabled() and "read-only" in win.act_import_memoryos.toolTip()
    win.act_import_memoryos.trigger()
    qtbot.wait(50)
    assert win.dialog is None


@pytest.mark.shared
def test_the_table_has_the_rows_the_command_prints(qtbot, open_window, sample_path: Path, tmp_path: Path) -> None:
    data = SHARED_DATA / "memoryos" / "llm_down" / "data"
    if not data.exists():
        pytest.skip("../shared/data/memoryos is not present in this checkout")
    printed = subprocess.run([sys.executable, "-m", "memorydesk", "import", "memoryos", str(data),
                              str(tmp_path / "cli.db"), "--timezone", "UTC", "--json"],
                             capture_output=True, text=True, timeout=120, check=False)
    want = json.loads(printed.stdout)["anomalies"]
    win = open_window(sample_path)
    dialog = open_dialog(qtbot, win)
    dialog.folder.setText(str(data))
    dialog.zone.setCurrentText("UTC")
    with qtbot.waitSignal(dialog.imported, timeout=30_000):
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    got = [dict(zip(("kind", "user", "file", "path", "detail"),
                    [dialog.model.data(dialog.model.index(r, c)) for c in range(5)], strict=True))
           for r in range(dialog.model.rowCount())]
    assert got == want and "profile error_text" in dialog.summary.text()
    guihelp.wait_idle(qtbot, win)


def test_a_capacity_lets_the_dialog_see_an_interrupted_migration(qtbot, open_window, sample_path: Path,
                                                                 tmp_path: Path) -> None:
    """STM below its capacity while MTM holds pages: the anomaly row names the interval."""
    folder = MemoryOSDir(tmp_path / "crashed")
    folder.short_term = [qa(3, "2025-05-01 10:10:00")]  # capacity 2: the QA between 10:00 and 10:10 was lost
    folder.add_session(session("session_a", [page("page_1", qa(1, "2025-05-01 10:00:00"))], "2025-05-01 10:06:00"))
    folder.write()
    win = open_window(sample_path)
    dialog = open_dialog(qtbot, win)
    dialog.folder.setText(str(folder.root))
    dialog.zone.setCurrentText("UTC")
    assert dialog.stm_capacity is None and dialog.capacity.specialValueText() == "not given"
    dialog.capacity.setValue(2)
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    kinds = [dialog.model.data(dialog.model.index(r, 0)) for r in range(dialog.model.rowCount())]
    assert kinds == ["interrupted_migration"]
    detail = dialog.model.data(dialog.model.index(0, 4))
    assert "2025-05-01 10:00:00" in detail and "2025-05-01 10:10:00" in detail
    assert "holds 1 of 2" in dialog.summary.text()


def test_the_dialog_remembers_the_last_folder_zone_and_capacity(qtbot, open_window, sample_path: Path,
                                                                memoryos) -> None:
    win = open_window(sample_path)
    dialog = open_dialog(qtbot, win)
    dialog.folder.setText(str(memoryos.root))
    dialog.zone.setCurrentText("Europe/Berlin")
    dialog.capacity.setValue(3)
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    again = open_dialog(qtbot, win)
    assert again is not dialog
    assert again.folder.text() == str(memoryos.root) and again.zone_name == "Europe/Berlin"
    assert again.stm_capacity == 3 and again.import_button.isEnabled()


def test_a_long_error_wraps_and_keeps_the_buttons_on_screen(qtbot, open_window, sample_path: Path,
                                                            tmp_path: Path) -> None:
    win = open_window(sample_path)
    win.resize(1280, 800)
    dialog = open_dialog(qtbot, win)
    deep = tmp_path.joinpath(*["a-rather-long-folder-name-%02d" % k for k in range(12)])
    deep.mkdir(parents=True)
    dialog.folder.setText(str(deep))
    dialog.zone.setCurrentText("UTC")
    width = dialog.width()
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Nothing was imported" in dialog.stage.text(), timeout=10_000)
    assert len(dialog.stage.text()) > 300  # the long path is in the sentence
    qtbot.wait(50)
    assert dialog.minimumSizeHint().width() < 900 and dialog.width() <= max(width, 900)
    close = dialog.close_button.geometry()
    assert close.right() <= dialog.rect().right() and close.bottom() <= dialog.rect().bottom()


def test_the_dialog_names_its_workspace_wraps_long_sentences_and_says_what_it_cannot_see(
        qtbot, open_window, sample_path: Path, tmp_path: Path) -> None:
    """Issue 34, point 6 (and 3): where it writes, no sentence cut off, and the import's blind spots."""
    truth = SHARED_DATA / "memoryos" / "crash_mid_migration"
    if not truth.exists():
        pytest.skip("../shared/data/memoryos is not present in this checkout")
    win = open_window(sample_path)
    win.resize(1280, 800)
    dialog = open_dialog(qtbot, win)
    assert sample_path.name in dialog.target.text() and str(sample_path.resolve().parent) in dialog.target.text()
    dialog.folder.setText(str(truth / "data"))
    dialog.zone.setCurrentText("Europe/Berlin")
    dialog.capacity.setValue(5)
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=30_000)
    result = dialog.result
    [run] = result.at_risk_runs.values()
    # the anomaly's whole sentence is in its row: wrapped over several lines, not elided
    row = next(r for r in range(dialog.model.rowCount()) if dialog.model.row_at(r).kind == "interrupted_migration")
    detail = dialog.model.row_at(row).detail
    assert run in detail and len(detail) > 400
    qtbot.wait(50)
    lines = dialog.table.rowHeight(row) / dialog.table.fontMetrics().lineSpacing()
    column = dialog.table.columnWidth(4)
    needed = dialog.table.fontMetrics().horizontalAdvance(detail) / max(column, 1)
    assert lines >= min(needed, 4) > 1.5
    # what a one-shot import cannot see, and where to see it
    assert dialog.blind.isVisible() and "reopened with a smaller short-term capacity" in dialog.blind.text()
    assert "with_receipts" in dialog.blind.text()
    assert f"interrupted migration is the at-risk run {run}" in dialog.summary.text()
    assert "1 anomaly." in dialog.summary.text()
    # the link to the crash: the Lineage tab, that run selected and explained, at risk
    assert dialog.at_risk_button.isVisible()
    qtbot.mouseClick(dialog.at_risk_button, Qt.MouseButton.LeftButton)
    tab = win.show_tab("lineage")
    qtbot.waitUntil(lambda: tab.detail.detail is not None and tab.detail.detail.run_id == run, timeout=30_000)
    assert str(tab.detail.detail.health.state) == "source_at_risk"
    assert tab.tl.color_counts[Color.AT_RISK] == 1 and tab.tl.runs_shown == len(result.runs)
