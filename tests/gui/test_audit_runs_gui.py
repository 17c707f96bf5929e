"""The audit window keeps every run in the workspace: the Runs page and its recall@10 trend
(a click on a point opens that run), and the Compare page, checked against
``memory-desk audit compare``'s own answer (``browse.audit.compare``) — real widgets."""

from __future__ import annotations

import sqlite3
import uuid

from guihelp import wait_idle
from PySide6.QtCore import Qt

from memorydesk.browse.audit import compare as audit_compare
from memorydesk.browse.audit import runs as audit_runs


def _run(dialog, qtbot) -> None:
    before = dialog.report
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.report is not before and dialog.job is None, timeout=60000)


def test_runs_are_kept_trended_opened_and_compared(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    win.act_audit.trigger()
    dialog = win.dialog
    qtbot.addWidget(dialog)
    dialog.all_facts.setChecked(True)
    _run(dialog, qtbot)
    first = audit_runs.get_run(win.ws, "latest")
    assert f"Run {first.id}" in dialog.summary.text() and first.origin == "window"
    assert [f.fact_id for f in audit_runs.run_facts(win.ws, first)] == [f["id"] for f in dialog.report["facts"]]
    # another program writes a closer twin of three facts that came back
    found = [f for f in dialog.report["facts"] if f["lost_at"] == "found"][:3]
    with sqlite3.connect(sample_path) as conn:
        for f in found:
            ws_id, domain, topic, content, at = conn.execute(
                "SELECT workspace_id, domain, topic, content, created_at FROM memory_facts_table WHERE id = ?",
                (f["id"],)).fetchone()
            conn.execute("INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, confidence, "
                         "memory_type, veracity, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1.0, 'fact', "
                         "'stated', ?, ?)", (str(uuid.uuid4()), ws_id, domain, topic, content.rsplit(" ", 1)[0],
                                             int(first.at) + 1, int(first.at) + 1))
    _run(dialog, qtbot)
    second = audit_runs.get_run(win.ws, "latest")
    assert second.id != first.id

    # the Runs page: both runs, and a point per run on the trend
    dialog.pages.setCurrentWidget(dialog.runs_page)
    page = dialog.runs_page
    qtbot.waitUntil(lambda: page.table.rowCount() == 2, timeout=10000)
    assert [page.table.item(r, 0).text() for r in range(2)] == [first.id, second.id]
    assert page.table.item(1, 5).text() == "changed"
    trend = page.trend
    assert [r.id for r in trend.shown] == [first.id, second.id]
    xs, ys = trend.points.getData()
    assert list(ys) == [first.recall, second.recall]
    # the memory job's finding 15: the origin in words, and a y-axis scaled to the runs (saying so when not 0–100 %)
    assert "run in the window" in page.table.item(0, 4).text() and ", window" not in page.table.item(0, 4).text()
    lo, hi = trend.y_range
    assert lo <= min(ys) and max(ys) <= hi and hi - lo < 1.0 or (lo, hi) == (0.0, 1.02)
    view_lo, view_hi = trend.plot.plotItem.vb.viewRange()[1]
    assert (round(view_lo, 6), round(view_hi, 6)) == (round(lo, 6), round(hi, 6))
    # a group on demand: its recall in each run, as each run's audit printed it
    trend.group.setCurrentIndex(trend.group.findData(("memory_type", "fact")))
    assert list(trend.points.getData()[1]) == [r.summary["by_memory_type"]["fact"]["recall_at_10"]
                                               for r in (first, second)]
    trend.group.setCurrentIndex(0)
    # a click on the first run's point opens it on This run
    qtbot.waitUntil(lambda: trend.plot.isVisible(), timeout=5000)
    wait_idle(qtbot, win)
    with qtbot.waitSignal(trend.opened, timeout=5000) as clicked:
        qtbot.mouseClick(trend.plot.viewport(), Qt.MouseButton.LeftButton, pos=trend.point_pos(first.id))
    assert clicked.args == [first.id]
    qtbot.waitUntil(lambda: f"Run {first.id}" in dialog.summary.text(), timeout=10000)
    assert dialog.pages.currentIndex() == 0
    assert dialog.model.rowCount() == first.facts

    # Compare: what the page says is what audit compare says
    page.table.selectRow(1)
    qtbot.mouseClick(page.compare_button, Qt.MouseButton.LeftButton)
    compare = dialog.compare_page
    assert dialog.pages.currentWidget() is compare
    qtbot.waitUntil(lambda: compare.report is not None, timeout=20000)
    expected = audit_compare.compare(win.ws, first.id, second.id)
    assert compare.report == expected
    assert expected["newly_lost"]  # the twins cost their originals the place
    assert compare.lost.rowCount() == len(expected["newly_lost"])
    assert [compare.lost.item(r, 0).text() for r in range(compare.lost.rowCount())] == \
        [e["id"] for e in expected["newly_lost"]]
    assert compare.lost.item(0, 3).text() == expected["newly_lost"][0]["why"]
    assert compare.groups.rowCount() == len(expected["groups"])
    both = expected["both"]  # the headline counts the facts in both runs only, and says so
    assert (f"recall@10 on the {both['facts']} facts in both runs: {100 * both['a']:.1f} % in run {first.id} → "
            f"{100 * both['b']:.1f} % in run {second.id}") in compare.head.text()
    assert f"run {second.id} {100 * second.recall:.1f} % of {second.facts}" in compare.head.text()
    assert compare.lists.tabText(0) == f"Newly lost ({len(expected['newly_lost'])})"
    target = compare.lost.item(0, 0).text()
    compare.lost.cellDoubleClicked.emit(0, 0)
    qtbot.waitUntil(lambda: win.tab("facts").detail.fact_id == target, timeout=10000)
    dialog.close()


def test_a_read_only_workspace_lists_no_runs_and_keeps_none(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path, read_only=True)
    win.act_audit.trigger()
    dialog = win.dialog
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: "No runs kept" in dialog.runs_page.note.text(), timeout=10000)
    assert dialog.runs_page.table.rowCount() == 0 and not dialog.compare_page.go.isEnabled()
    _run(dialog, qtbot)
    assert "Not kept in the workspace: it is open read-only." in dialog.summary.text()
    assert audit_runs.list_runs(win.ws) == ([], 0)
    dialog.close()


def test_the_recall_trend_axis_is_scaled_to_the_runs() -> None:
    """The memory job's finding 15: 7.0 % → 6.9 % is drawn on an axis around them, not on 0–100 %."""
    from memorydesk.ui.audit.trend import scaled_range

    lo, hi = scaled_range([0.070, 0.069])
    assert 0.05 < lo < 0.069 and 0.070 < hi < 0.09
    assert scaled_range([0.0, 1.0]) == (0.0, 1.02)
