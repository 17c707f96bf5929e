"""Memory over time in the real window: the History tab (filters, Undo This Change, export),
the window-wide *as of* (banner, Facts, Lineage's Evaluate at, Back to now) and Compare
With… (items, both versions, Restore from Backup…), on the product-format fixture."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from guihelp import give_reason, wait_dialog, wait_idle
from PySide6.QtCore import Qt

from fixtures.product_changes import change_like_the_product
from fixtures.product_fixture import T0
from memorydesk.browse.history.as_of import facts_as_of
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store import open_workspace


def fact_state(path: Path, fact_id: str) -> str | None:
    with open_workspace(path, read_only=True) as ws, ws.read() as conn:
        return conn.exec_driver_sql(f"SELECT coalesce(superseded_by, 'active') FROM {ws.layout.facts.name} "
                                    "WHERE id = ?", (fact_id,)).scalar()


def test_history_tab_lists_filters_undoes_and_exports(open_window, product_db: Path, qtbot, qtmodeltester,
                                                      tmp_path: Path) -> None:
    with open_workspace(product_db) as ws:
        Reviewer(ws, "Ann", embedder=False).delete_facts(["f-04"], reason="out of date")
    win = open_window(product_db)
    tab = win.show_tab("history")
    qtbot.waitUntil(lambda: tab.model.rowCount() > 10, timeout=15000)
    qtmodeltester.check(tab.model)
    top = tab.model.row_at(0)
    assert (top.actor, top.actor_kind, top.action, top.ids) == ("Ann", "reviewer", "delete", ("f-04",))
    who = [k for k, _l in tab.model.COLUMNS].index("who")
    assert tab.model.data(tab.model.index(0, who)) == "Ann (reviewer)"
    tab.view.selectRow(0)
    qtbot.waitUntil(tab.undo_button.isEnabled, timeout=10000)
    assert "out of date" in tab.detail.toPlainText()
    tab.undo_button.click()
    give_reason(qtbot, wait_dialog(qtbot, tab), "deleted by mistake")  # it asks why, as every change does
    qtbot.waitUntil(lambda: fact_state(product_db, "f-04") == "active", timeout=10000)
    qtbot.waitUntil(lambda: tab.model.row_at(0) is not None and tab.model.row_at(0).action == "undo", timeout=10000)
    tab.kind.setCurrentIndex(tab.kind.findData("policy"))
    qtbot.waitUntil(lambda: tab.model.rowCount() > 0 and all(
        tab.model.row_at(r).kind == "policy" for r in range(tab.model.rowCount())), timeout=10000)
    tab.kind.setCurrentIndex(0)
    tab.since.setCurrentIndex(tab.since.findData("backup"))  # since the backup the adoption made
    qtbot.waitUntil(lambda: [(tab.model.row_at(r).action, tab.model.row_at(r).actor_kind)
                             for r in range(tab.model.rowCount())] == [("undo", "reviewer"), ("delete", "reviewer")],
                    timeout=10000)
    out = tmp_path / "history.json"
    tab.export_to(out, "json", content_free=True)
    qtbot.waitUntil(out.exists, timeout=10000)
    wait_idle(qtbot, win)
    rows = json.loads(out.read_text())
    assert [r["action"] for r in rows] == ["undo", "delete"] and rows[1]["reason"].startswith("sha256:")



def test_history_export_never_writes_over_the_backup(open_window, product_db: Path, qtbot) -> None:
    """Issue 35, point 1: the export's Save dialog goes through the output guard like every writer."""
    from memorydesk.store import files

    with open_workspace(product_db) as ws:
        Reviewer(ws, "Ann", embedder=False).delete_facts(["f-04"], reason="out of date")  # the backup is made
    [backup] = files.backups_beside(product_db)
    before = backup.read_bytes()
    win = open_window(product_db)
    tab = win.show_tab("history")
    qtbot.waitUntil(lambda: tab.model.rowCount() > 0, timeout=15000)
    with qtbot.waitSignal(tab.session.status, timeout=5000) as said:
        tab.export_to(backup, "markdown", content_free=False)
    wait_idle(qtbot, win)
    assert "a backup Memory Desk made" in said.args[0] and "nothing was written" in said.args[0]
    assert backup.read_bytes() == before

def test_as_of_sets_every_tab_with_a_banner(open_window, product_db: Path, qtbot, tmp_path: Path) -> None:
    changed = tmp_path / "changed.db"
    shutil.copyfile(product_db, changed)
    change_like_the_product(changed, T0 + 3600)
    win = open_window(changed, read_only=True)
    at = T0 + 3599
    win.time.set_as_of(at)
    assert win.time.banner.isVisible() and "Memory as of" in win.time.label.text()
    facts = win.tab("facts")
    wait_idle(qtbot, win)
    with open_workspace(changed, read_only=True) as ws:
        expected = [f.id for f in facts_as_of(ws, at, "active")]
    qtbot.waitUntil(lambda: facts.model.rowCount() == len(expected), timeout=10000)
    shown = [facts.model.fact(r).id for r in range(facts.model.rowCount())]
    assert shown == expected and "f-03" in shown and "f-new" not in shown
    row = shown.index("f-03")
    state_col = next(i for i in range(facts.model.columnCount())
                     if facts.model.headerData(i, Qt.Orientation.Horizontal) == "State")
    assert facts.model.data(facts.model.index(row, state_col)) == "active · changed since"
    lineage = win.show_tab("lineage")
    wait_idle(qtbot, win)
    assert lineage.controls.evaluate_at() == datetime.fromtimestamp(at, UTC)
    conflicts = win.show_tab("conflicts")  # c-1 and c-2 were recorded by then, c-new an hour later
    qtbot.waitUntil(lambda: conflicts.model.rowCount() == 2, timeout=10000)
    win.time.back.click()
    assert not win.time.banner.isVisible()
    qtbot.waitUntil(lambda: "f-new" in [facts.model.fact(r).id for r in range(facts.model.rowCount())
                                        if facts.model.fact(r) is not None], timeout=10000)


def test_compare_with_a_backup_and_restore_one_fact(open_window, product_db: Path, qtbot) -> None:
    win = open_window(product_db)
    assert win.ws.backup is None  # opening changes nothing
    win.ws.adopt()  # what the first change does first: a backup beside it, then our tables
    backup = win.ws.backup
    assert backup is not None
    with open_workspace(product_db) as ws, ws.write() as conn:  # the product removes a fact for real
        conn.exec_driver_sql("DELETE FROM memory_facts_table WHERE id = 'f-04'")
    view = win.time.compare(backup)
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: view.result is not None, timeout=15000)
    assert view.result.facts["removed"] == ["f-04"]
    item = next(view.tree.topLevelItem(i) for i in range(view.tree.topLevelItemCount())
                if view.tree.topLevelItem(i).text(0).startswith("Facts removed"))
    assert item.text(0) == "Facts removed (1)"
    view.tree.setCurrentItem(item.child(0))
    qtbot.waitUntil(lambda: "Playwright" in view.old_side.toPlainText(), timeout=10000)
    assert "Not in this file" in view.new_side.toPlainText()
    assert view.restore.isEnabled()
    view.restore.click()
    dialog = wait_dialog(qtbot, view)
    dialog.reason.setText("the product removed it by mistake")
    dialog.restore.click()
    qtbot.waitUntil(lambda: fact_state(product_db, "f-04") == "active", timeout=10000)
    qtbot.waitUntil(lambda: view.result is not None and view.result.facts["removed"] == [], timeout=10000)
    view.close()


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_every_history_column_is_in_view_why_included(open_window, product_db: Path, qtbot, size) -> None:
    """At 1280 px the Why column used to start past the right edge of the list."""
    win = open_window(product_db)
    win.resize(*size)
    tab = win.show_tab("history")
    qtbot.waitUntil(lambda: tab.model.rowCount() > 0 and win.ops.pending == 0, timeout=15000)
    qtbot.wait(50)
    header, view = tab.view.horizontalHeader(), tab.view
    why = [k for k, _l in tab.model.COLUMNS].index("why")
    assert not view.isColumnHidden(why) and header.sectionSize(why) >= 120
    right = header.sectionViewportPosition(why) + header.sectionSize(why)
    assert 0 <= header.sectionViewportPosition(why) and right <= view.viewport().width()
    utc = [k for k, _l in tab.model.COLUMNS].index("utc")
    text = tab.model.index(0, utc).data()
    assert view.isColumnHidden(utc) or header.sectionSize(utc) >= view.fontMetrics().horizontalAdvance(text) + 8
