"""The main window: no create path, read-only mode, opening files, recent list, live refresh."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import desk_sample
import pytest
from guihelp import focus, row_of_topic, wait_dialog, wait_idle
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QAction, QDropEvent, QGuiApplication
from PySide6.QtWidgets import QAbstractItemView

from memorydesk.ui.shell import settings

CREATE_WORDS = re.compile(r"\b(new|add|create|insert|duplicate|import)\b", re.IGNORECASE)
# File ▸ Import MemoryOS Directory… brings in memory another agent system wrote, whole and
# as it was (issue 15); it gives a person no way to type memory, so it is the one exception
NOT_A_CREATE_PATH = {"window-import-memoryos", "import-receipts", "lineage-import"}  # data in, not edits


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_there_is_no_create_path(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    actions = win.findChildren(QAction)
    assert actions
    offending = [a.text() for a in actions
                 if CREATE_WORDS.search(a.text().replace("&", "")) and a.objectName() not in NOT_A_CREATE_PATH]
    assert offending == []
    for name in ("facts", "policies"):
        tab = win.show_tab(name)
        wait_idle(qtbot, win)
        model, view = tab.model, tab.view
        before = model.rowCount()
        assert model.insertRows(0, 1) is False and model.insertRow(0) is False
        assert model.setData(model.index(0, 1), "typed over", Qt.ItemDataRole.EditRole) is False
        assert not (model.flags(model.index(0, 1)) & Qt.ItemFlag.ItemIsEditable)
        assert view.editTriggers() == QAbstractItemView.EditTrigger.NoEditTriggers
        assert view.dragDropMode() == QAbstractItemView.DragDropMode.NoDragDrop
        QGuiApplication.clipboard().setText("domain\ttopic\tcontent\nx\ty\tz")
        focus(qtbot, view)
        qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClick(view, Qt.Key.Key_Insert)
        qtbot.keyClick(view, Qt.Key.Key_Return)
        qtbot.wait(50)
        wait_idle(qtbot, win)
        assert model.rowCount() == before
        if tab.dialog is not None and tab.dialog.isVisible():
            tab.dialog.reject()
    # double-click edits the existing row; it never appends one
    facts = win.tab("facts")
    win.show_tab("facts")
    rect = facts.view.visualRect(facts.model.index(0, 1))
    qtbot.mouseClick(facts.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(facts.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    dialog = wait_dialog(qtbot, facts)
    assert dialog.objectName() == "fact-edit" and dialog.fact_id == facts.model.fact(0).id
    dialog.reject()
    qtbot.waitUntil(lambda: win.ops.flows == 0)
    assert facts.model.rowCount() == 25


def test_read_only_disables_every_write_and_changes_no_byte(open_window, sample_path, qtbot) -> None:
    before = sha256(sample_path)
    win = open_window(sample_path, read_only=True)
    assert "read-only" in win.windowTitle()
    facts = win.tab("facts")
    facts.select_row(row_of_topic(facts, "topic 2"))
    policies = win.show_tab("policies")
    qtbot.waitUntil(lambda: policies.model.rowCount() == 3)
    policies.select_row(0)
    writes = facts.write_actions + policies.write_actions + [win.act_undo, win.act_redo, win.act_index]
    for action in writes:
        assert not action.isEnabled(), action.text()
        assert "read-only" in action.toolTip(), action.toolTip()
    win.show_tab("facts")
    focus(qtbot, facts.view)
    for key, mods, name in ((Qt.Key.Key_Delete, Qt.KeyboardModifier.NoModifier, "Delete"),
                            (Qt.Key.Key_F2, Qt.KeyboardModifier.NoModifier, "Edit"),
                            (Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier, "Undo")):
        win.statusBar().clearMessage()
        qtbot.keyClick(facts.view, key, mods)
        # the key is answered: the status bar says why nothing happened
        assert win.statusBar().currentMessage().startswith(f"{name}: "), win.statusBar().currentMessage()
        assert "read-only" in win.statusBar().currentMessage()
    for action in writes:
        action.trigger()
    facts.start(facts.delete_selected())
    facts.start(facts.purge_selected())
    qtbot.wait(100)
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: win.ops.flows == 0, timeout=5000)  # each refused at once, nothing opened
    assert facts.dialog is None and policies.dialog is None
    win.close()
    assert sha256(sample_path) == before


def test_live_refresh_shows_another_process_write(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    facts = win.tab("facts")
    row = row_of_topic(facts, "topic 4")
    facts.select_row(row)
    qtbot.waitUntil(lambda: facts.detail.fact_id == desk_sample.fid(4))
    script = textwrap.dedent(f"""
        import sqlite3, time
        con = sqlite3.connect({str(sample_path)!r}, timeout=5)
        ws = con.execute("SELECT workspace_id FROM memory_facts_table LIMIT 1").fetchone()[0]
        now = int(time.time()) + 60
        with con:
            con.execute("INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, "
                        "updated_at) VALUES ('agent-written-fact', ?, 'codebase', 'from an agent', "
                        "'written by another process', ?, ?)", (ws, now, now))
        con.close()
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=30)
    qtbot.waitUntil(lambda: facts.model.rowCount() == 26, timeout=10000)
    wait_idle(qtbot, win)
    assert facts.model.fact(0).topic == "from an agent"
    assert [f.id for f in facts.selected_facts()] == [desk_sample.fid(4)]  # selection kept
    assert "31 facts" in win.counts.text()


def test_open_recent_drop_and_copy(open_window, sample_path, tmp_path, qtbot) -> None:
    other = desk_sample.build(tmp_path / "other.db", desk_sample.sample_facts()[:3])
    win = open_window(sample_path)
    assert settings.recent()[0] == str(sample_path.resolve())
    win.open_path(other)
    qtbot.waitUntil(lambda: win.ws.path == other, timeout=10000)
    wait_idle(qtbot, win)
    assert win.tab("facts").model.rowCount() == 3
    assert settings.recent()[:2] == [str(other.resolve()), str(sample_path.resolve())]
    win.recent_menu.aboutToShow.emit()
    labels = [a.text() for a in win.recent_menu.actions()]
    assert labels[:2] == [str(other.resolve()), str(sample_path.resolve())]

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(sample_path))])
    enter = QDropEvent(QPointF(100, 100), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    enter.ignore()
    win.dragEnterEvent(enter)  # the offscreen platform has no drag manager to route these
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(100, 100), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    win.dropEvent(drop)
    qtbot.waitUntil(lambda: win.ws.path == sample_path, timeout=10000)
    wait_idle(qtbot, win)
    assert win.tab("facts").model.rowCount() == 25

    win.open_path(sample_path, read_only=True)
    qtbot.waitUntil(lambda: win.ws.read_only, timeout=10000)
    before = sha256(sample_path)
    win.open_copy()
    qtbot.waitUntil(lambda: not win.ws.read_only and win.ws.path != sample_path, timeout=10000)
    wait_idle(qtbot, win)
    assert "-copy-" in win.ws.path.name and win.tab("facts").act_delete.toolTip() != ""
    assert win.tab("facts").model.rowCount() == 25
    assert sha256(sample_path) == before


def test_opening_a_bad_file_says_why(open_window, sample_path, tmp_path, qtbot) -> None:
    bad = tmp_path / "notes.db"
    bad.write_text("this is not a database")
    win = open_window(sample_path)
    with qtbot.waitSignal(win.ops.failed, timeout=5000):
        win.open_path(bad)
    assert "not an SQLite database" in win.last_error
    assert win.ws.path == sample_path  # still showing the old one
    win.error_box.close()


def test_ctrl_f_focuses_the_search_box(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    win.show_tab("policies")
    focus(qtbot, win.show_tab("policies").view)
    qtbot.keyClick(win.show_tab("policies").view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(win.tab("facts").filters.search.hasFocus)
    assert win.tabs.currentWidget() is win.tab("facts")


def test_open_dialog_opens_the_chosen_file(open_window, sample_path, tmp_path, qtbot, monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    other = desk_sample.build(tmp_path / "chosen.db", desk_sample.sample_facts()[:2])
    win = open_window(sample_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(other), "")))
    focus(qtbot, win.tab("facts").view)
    qtbot.keyClick(win.tab("facts").view, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: win.ws.path == other, timeout=10000)
    wait_idle(qtbot, win)
    assert win.tab("facts").model.rowCount() == 2 and "chosen" in win.windowTitle()


@pytest.mark.shared
def test_the_product_sample_opens_read_only_unchanged(open_window, sample_db, qtbot, qtmodeltester) -> None:
    before = sha256(sample_db)
    win = open_window(sample_db, read_only=True)
    assert "291 facts (249 active)" in win.counts.text()
    facts = win.tab("facts")
    assert facts.model.rowCount() == 249
    qtmodeltester.check(facts.model)
    facts.filters.state.setCurrentIndex(facts.filters.state.findData("all"))
    wait_idle(qtbot, win)
    for row in range(facts.model.rowCount()):  # every row of the awkward sample can be shown
        facts.select_row(row)
        qtbot.waitUntil(lambda: win.ops.pending == 0)
        assert facts.detail.fact_id == facts.model.fact(row).id
    win.close()
    assert sha256(sample_db) == before
