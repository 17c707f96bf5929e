"""The Lineage tab, driven as a person drives it: runs in lanes coloured by the classifier,
a click explains a colour, the keyboard moves around, "evaluate at" and the filters,
import, live refresh, navigation from other tabs — and the database never on the UI thread."""

from __future__ import annotations

import html
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from guihelp import focus
from lineage_sample import END, lineage_path, ready, receipts, settle  # noqa: F401 - fixtures
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QImage

from fixtures.receipts import complete_lineage, to_jsonl
from memorydesk.core.health.scalar import classify, classify_run
from memorydesk.core.health.table import Color, HealthState
from memorydesk.demo import lineage as demo
from memorydesk.store import guard
from memorydesk.ui.lineage import colors


def point_of(tab, run: int) -> QPointF:
    """Where a run's bar is, in the plot's viewport."""
    tl, item = tab.tl, tab.panel.item
    pos = tl.position(run)
    x = item.x_of((tl.start[pos] + tl.end[pos]) / 2)
    scene = tab.panel.vb.mapViewToScene(QPointF(x, float(tl.row[pos]) + 0.5))
    return tab.panel.plot.mapFromScene(scene)


def zoom_to(tab, run: int, seconds: float = 3600.0) -> None:
    tl, item = tab.tl, tab.panel.item
    pos = tl.position(run)
    middle = item.x_of((tl.start[pos] + tl.end[pos]) / 2)
    tab.panel.vb.setXRange(middle - seconds, middle + seconds, padding=0)
    tab.panel.show_run(run)


def test_every_run_in_its_lane_worst_lanes_first(open_window, lineage_path, qtbot, receipts) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    tl = tab.tl
    runs = {r.run_id for r in receipts}
    assert sorted(tl.table.run_ids) == sorted(runs) and tl.runs_shown == len(runs)
    first: dict[str, object] = {}
    for r in receipts:  # a run's lane is the scope of its earliest receipt
        if r.run_id not in first or r.at_utc < first[r.run_id].at_utc:
            first[r.run_id] = r
    lanes = {(r.user_scope, r.assistant_scope) for r in first.values()}
    assert tl.rows == len(lanes)
    assert win.last_error == ""
    shown = int(tab.panel.visible_rows())
    assert tab.panel.lanes_text() == f"{shown} of {tl.rows} lanes shown — {tl.rows - shown} more below"
    assert tl.lane_name(0) in {f"{u} / {a}" for u, a in lanes}
    worst = tl.row_worst.tolist()
    assert worst == sorted(worst, reverse=True) and worst[0] == 4
    # the legend counts what the classifier says, per colour and per rule
    verdicts = classify(receipts, now=tab.controls.evaluate_at())
    legend = tab.controls.legend.text()
    for color in Color:
        assert f'">{color}</a> <b>{sum(v.color == color for v in verdicts):,}</b>' in legend
    for state in (HealthState.SOURCE_AT_RISK, HealthState.STALE_EVIDENCE):
        assert f'">{state}</a> {sum(v.state == state for v in verdicts):,}' in legend
    assert tab.panel.overview.values.max() == 5  # the all-lanes strip holds the at-risk runs


def test_a_click_explains_a_colour_without_touching_the_database_on_the_ui_thread(
        open_window, lineage_path, qtbot, receipts, qtmodeltester, ui_thread_guarded) -> None:
    guard.allow(threading.get_ident())
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    guard.forbid(threading.get_ident())
    tl = tab.tl
    run = int(tl.idx[np.flatnonzero(tl.value == 5)[0]])
    run_id = tl.table.run_ids[run]
    zoom_to(tab, run)
    settle(qtbot, win, tab)
    qtbot.mouseClick(tab.panel.plot.viewport(), Qt.MouseButton.LeftButton, pos=point_of(tab, run))
    qtbot.waitUntil(lambda: tab.detail.detail is not None and tab.detail.detail.run_id == run_id, timeout=10000)
    mine = [r for r in receipts if r.run_id == run_id]
    expected = classify_run(mine, now=tab.controls.evaluate_at())
    d = tab.detail.detail
    assert d.health.state == expected.state and d.health.color == Color.AT_RISK
    assert html.unescape(tab.detail.reason.text()) == expected.reason
    assert f"rule {expected.state.rule}" in tab.detail.header.text() and run_id in tab.detail.header.text()
    assert [r.at_utc for r in d.receipts] == sorted(r.at_utc for r in mine)
    qtmodeltester.check(tab.detail.model)
    assert tab.detail.model.rowCount() == len(mine)
    columns = [tab.detail.model.headerData(c, Qt.Orientation.Horizontal) for c in range(tab.detail.model.columnCount())]
    assert "content" not in " ".join(columns).lower()
    assert tab.detail.reconcile.isVisible() and run_id in tab.detail.reconcile.text()
    assert "retry" not in tab.detail.reconcile.text().lower()
    assert "lost" in tab.detail.swimlane.describe() or "missing" in tab.detail.swimlane.describe()
    tab.detail.copy.click()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text().startswith(f"{run_id}\t")
    assert ui_thread_guarded == []


def test_the_keyboard_moves_around_and_steps_through_at_risk_runs(open_window, lineage_path, qtbot) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    plot = tab.panel.plot
    focus(qtbot, plot)
    tl = tab.tl
    qtbot.keyClick(plot, Qt.Key.Key_N)
    first = tab.panel.item.selected
    assert tl.value[tl.position(first)] == 5
    qtbot.keyClick(plot, Qt.Key.Key_N)
    second = tab.panel.item.selected
    assert second != first and tl.value[tl.position(second)] == 5
    qtbot.keyClick(plot, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    assert tab.panel.item.selected == first
    qtbot.keyClick(plot, Qt.Key.Key_BracketRight)
    after = tab.panel.item.selected
    assert tl.position(after) == tl.position(first) + 1 or tl.row[tl.position(first)] != tl.row[tl.position(after)]
    qtbot.waitUntil(lambda: tab.detail.detail is not None and tab.detail.detail.run_id == tl.table.run_ids[after],
                    timeout=10000)
    x0, x1 = tab.panel.x_range()
    qtbot.keyClick(plot, Qt.Key.Key_Plus)
    z0, z1 = tab.panel.x_range()
    assert z1 - z0 == pytest.approx((x1 - x0) / 2, rel=1e-6)
    qtbot.keyClick(plot, Qt.Key.Key_Right)
    r0, _r1 = tab.panel.x_range()
    assert r0 == pytest.approx(z0 + 0.1 * (z1 - z0), rel=1e-6)
    qtbot.keyClick(plot, Qt.Key.Key_PageDown)
    assert tab.panel.top > 0 and "above" in tab.panel.lanes_text()
    qtbot.keyClick(plot, Qt.Key.Key_Home)
    assert tab.panel.top == 0 and tab.panel.x_range()[1] - tab.panel.x_range()[0] >= x1 - x0 - 1


def test_evaluate_at_shows_the_classifiers_states_then(open_window, lineage_path, qtbot, receipts) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    waiting = {tab.tl.table.run_ids[i] for i in np.flatnonzero(tab.tl.state == HealthState.WAITING.rule)}
    assert waiting
    for moment in (END - timedelta(days=9, hours=4), END + timedelta(hours=8)):
        tab.controls.set_evaluate_at(moment)
        wanted = (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)

        def judged(wanted: int = wanted) -> None:
            assert (tab.tl.now_us, tab.busy()) == (wanted, False)

        qtbot.waitUntil(judged, timeout=10000)
        expected = {v.run_id: v.state.rule for v in classify(receipts, now=moment)}
        assert {rid: int(s) for rid, s in zip(tab.tl.table.run_ids, tab.tl.state.tolist())} == expected
    assert not tab.controls.follow.isChecked()
    # the runs that were waiting have had their window close: promotion_missing now
    now_states = dict(zip(tab.tl.table.run_ids, tab.tl.state.tolist()))
    assert {now_states[r] for r in waiting} == {HealthState.PROMOTION_MISSING.rule}
    tab.controls.fresh.setCurrentText("30d")  # a wider window: old runs are not stale any more
    qtbot.waitUntil(lambda: tab.tl.fresh_us == 30 * 86_400_000_000, timeout=10000)
    assert tab.tl.state_counts[HealthState.STALE_EVIDENCE] == 0
    tab.controls.fresh.setCurrentText("soon")  # not a duration: nothing changes, the box says so
    assert tab.controls.fresh_for() is None and "color" in tab.controls.fresh.styleSheet()
    tab.controls.now_button.click()
    assert tab.controls.follow.isChecked()
    # the dashed "evaluated at" line can be dragged to scrub: the time follows it
    target = END - timedelta(days=2)
    tab.panel.now_line.setValue(tab.panel.item.x_of((target - datetime(1970, 1, 1, tzinfo=UTC))
                                                    / timedelta(microseconds=1)))
    qtbot.waitUntil(lambda: abs((tab.controls.evaluate_at() - target).total_seconds()) < 1 and not tab.busy(),
                    timeout=10000)
    assert not tab.controls.follow.isChecked()


def test_filters_find_the_bad_adapter_and_the_canary(open_window, lineage_path, qtbot, receipts) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    assert tab.controls.select_source(demo.ADAPTER_BAD)
    qtbot.waitUntil(lambda: tab.tl.filters.source_version == demo.ADAPTER_BAD, timeout=10000)
    bad = {r.run_id for r in receipts if r.source_version == demo.ADAPTER_BAD}
    assert {tab.tl.table.run_ids[i] for i in tab.tl.idx} == bad
    assert set(tab.tl.value.tolist()) == {5} and tab.tl.rows == 2
    tab.controls.clear_filters()
    tab.controls.canary.setChecked(True)
    qtbot.waitUntil(lambda: tab.tl.filters.canary_only, timeout=10000)
    assert tab.tl.rows == 4 and tab.tl.canary.all() and tab.tl.runs_shown == 4 * demo.DAYS
    tab.controls.clear_filters()
    tab.controls.legend.linkActivated.emit("state:stale_retrieval")
    qtbot.waitUntil(lambda: tab.tl.filters.states == frozenset({"stale_retrieval"}), timeout=10000)
    assert set(tab.tl.state[tab.tl.idx].tolist()) == {HealthState.STALE_RETRIEVAL.rule}
    tab.controls.clear_filters()
    tab.controls.scope.setText("tomas / agent:farah")
    qtbot.waitUntil(lambda: tab.tl.rows == 1, timeout=10000)
    tab.controls.range_on.setChecked(True)
    qtbot.waitUntil(lambda: tab.tl.filters.since_us is not None, timeout=10000)
    assert tab.tl.rows == 1


def test_the_timeline_draws_a_sub_pixel_at_risk_run(open_window, lineage_path, qtbot) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    tab.controls.scope.setText("user:tomas / agent:farah")  # the quiet lane with its one lost run
    qtbot.waitUntil(lambda: tab.tl.rows == 1 and not tab.busy(), timeout=10000)
    tab.panel.fit_all()
    settle(qtbot, win, tab)
    tl = tab.tl
    pos = int(np.flatnonzero(tl.value == 5)[0])
    x0, x1 = tab.panel.x_range()
    width_px = tab.panel.vb.width()
    assert (tl.end[pos] - tl.start[pos]) / 1e6 < (x1 - x0) / width_px / 4  # a quarter of a pixel wide
    image = tab.panel.plot.grab().toImage()
    center = point_of(tab, int(tl.idx[pos]))
    red = colors.qcolor(Color.AT_RISK)
    found = [image.pixelColor(int(center.x()) + dx, int(center.y())) for dx in range(-2, 3)]
    assert any(c == red for c in found), [c.name() for c in found]
    assert tab.panel.item.mode in ("vector", "raster")
    # every run shown, many runs in view: the raster; zoomed in on one run: rectangles
    tab.controls.scope.clear()
    qtbot.waitUntil(lambda: tab.tl.rows > 1 and not tab.busy(), timeout=10000)
    tab.panel.plot.grab()
    assert tab.panel.item.mode == "raster"
    zoom_to(tab, int(tab.tl.idx[0]), 600)
    tab.panel.plot.grab()
    assert tab.panel.item.mode == "vector"
    assert QColor(colors.HEX[Color.AT_RISK]) == red


def test_navigate_to_a_scope_or_a_run(open_window, lineage_path, qtbot) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    win.session.navigate("lineage", scope="user:tomas/agent:farah")
    qtbot.waitUntil(lambda: tab.tl.rows == 1 and not tab.busy(), timeout=10000)
    assert tab.controls.scope.text() == "user:tomas / agent:farah" and tab.tl.lane_name(0) == tab.controls.scope.text()
    run_id = tab.tl.table.run_ids[int(tab.tl.idx[0])]
    win.show_tab("facts")
    win.session.navigate("lineage", run=run_id)
    assert win.current_tab_name() == "lineage"
    qtbot.waitUntil(lambda: tab.detail.detail is not None and tab.detail.detail.run_id == run_id, timeout=10000)
    assert tab.controls.scope.text() == ""
    # as the MemoryOS import asks: several lanes, and the runs it wrote
    lanes = [{"user": "user:tomas", "assistant": "agent:farah"}, {"user": "canary/user-a",
                                                                   "assistant": "canary/assistant-1"}]
    other = tab.tl.table.run_ids[int(np.flatnonzero(tab.tl.table.canary)[0])]
    win.session.navigate("lineage", scope=lanes, runs=["not-here", other])
    qtbot.waitUntil(lambda: tab.tl.rows == 2 and tab.detail.detail is not None and tab.detail.detail.run_id == other
                    and not tab.busy(), timeout=10000)
    assert tab.controls.lanes_button.isVisible() and "2 lanes" in tab.controls.lanes_button.text()
    tab.controls.lanes_button.click()
    qtbot.waitUntil(lambda: tab.tl.rows > 2, timeout=10000)
    assert not tab.controls.lanes_button.isVisible()


def test_import_is_all_or_nothing_and_live_refresh_sees_another_process(open_window, lineage_path, qtbot,
                                                                        tmp_path) -> None:
    import subprocess
    import sys

    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    before = len(tab.table)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(to_jsonl(complete_lineage("imported-bad")) + '{"runId": "x", "text": "a note"}\n')
    tab.start(tab.import_receipts(str(bad)))
    qtbot.waitUntil(lambda: "nothing was imported" in win.last_error, timeout=15000)
    win.error_box.done(0)
    settle(qtbot, win, tab)
    assert len(tab.table) == before and "imported-bad" not in tab.table.index
    good = tmp_path / "good.jsonl"
    now = datetime.now(UTC)
    good.write_text(to_jsonl(complete_lineage("imported-good", now=now, user="user:new")))
    tab.start(tab.import_receipts(str(good)))
    qtbot.waitUntil(lambda: "imported-good" in tab.table.index and not tab.busy(), timeout=15000)
    assert len(tab.table) == before + 1
    assert "Imported 6 receipts of 1 runs from good.jsonl" in win.statusBar().currentMessage()
    # another process ingests: the watcher routes it here and only the new run is read
    other = tmp_path / "other.jsonl"
    other.write_text(to_jsonl(complete_lineage("from-outside", now=now, user="user:outside")))
    done = subprocess.run([sys.executable, "-m", "memorydesk", "lineage", "ingest", str(lineage_path), str(other)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    qtbot.waitUntil(lambda: "from-outside" in tab.table.index, timeout=15000)
    assert len(tab.table) == before + 2


def test_read_only_refuses_import_and_canary_saying_why(open_window, lineage_path, qtbot) -> None:
    win = open_window(lineage_path, read_only=True)
    tab = ready(qtbot, win)
    for action in (tab.act_import, tab.act_canary, win.act_import_receipts, win.act_canary):
        assert not action.isEnabled() and "read-only" in action.toolTip()
    tab.start(tab.run_canary())
    qtbot.waitUntil(lambda: "read-only" in win.statusBar().currentMessage(), timeout=5000)
    assert tab.dialog is None


@pytest.mark.slow
def test_the_canary_from_the_window_reports_each_check_and_marks_its_runs(open_window, lineage_path, qtbot) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    before = set(tab.table.run_ids)
    win.act_canary.trigger()
    qtbot.waitUntil(lambda: tab.dialog is not None, timeout=10000)
    assert tab.dialog.finished_with is None and "canary memories" in tab.dialog.explain.text()
    tab.dialog.run_button.click()
    qtbot.waitUntil(lambda: tab.dialog.finished_with is not None, timeout=240000)
    dialog = tab.dialog
    assert dialog.finished_with is True, (dialog.results, dialog.verdict.text(), win.last_error)
    assert [name for name, _ok, _d in dialog.results] == [
        "leftovers", "store", "capacity", "restart", "isolation", "promotion", "lineage", "dispatch", "freshness",
        "cleanup"]
    assert dialog.checks.count() == 10 and dialog.checks.item(0).text().startswith("PASS leftovers")
    qtbot.waitUntil(lambda: len(tab.table) > len(before) and not tab.busy(), timeout=30000)
    new = [i for i, run in enumerate(tab.table.run_ids) if run not in before]
    assert new and all(tab.table.canary[i] for i in new)
    dialog.runs_button.click()
    qtbot.waitUntil(lambda: tab.tl.filters.canary_only and not tab.busy(), timeout=10000)
    assert set(new) <= set(tab.tl.idx.tolist())


def test_the_demo_timeline_shows_all_five_colours_at_1280x800(open_window, lineage_path, qtbot) -> None:
    """What ``memory-desk shot WS --tab lineage`` shows of the demo's history: every colour on the
    timeline itself (not only in the legend), the lone sub-pixel loss among them."""
    win = open_window(lineage_path, read_only=True)
    win.resize(1280, 800)
    tab = ready(qtbot, win)
    tab.prepare_shot()
    settle(qtbot, win, tab)
    image = tab.panel.plot.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    pixels = np.frombuffer(image.constBits(), np.uint32).reshape(image.height(), image.width()) & 0xFFFFFF
    counts = {color: int((pixels == int(colors.HEX[color][1:], 16)).sum()) for color in Color}
    assert all(n > 0 for n in counts.values()), counts
    assert tab.detail.detail is not None and tab.detail.detail.health.color == Color.AT_RISK


def test_with_nothing_to_draw_the_flow_charts_say_so(open_window, tmp_path: Path, lineage_path, qtbot) -> None:
    """No receipts: no tier-flow axis from 1970 and no bare 0–1 occupancy scale, a sentence instead;
    with receipts, the charts (and only as many lanes as the chart has room for)."""
    import desk_sample

    from memorydesk.ui.lineage.flow import NO_OCCUPANCY, NO_TRANSITIONS

    win = open_window(desk_sample.build(tmp_path / "no-receipts.db"))
    tab = ready(qtbot, win)
    flow = tab.flow
    qtbot.waitUntil(lambda: flow.last_rates is not None and flow.last_occupancy is not None, timeout=10000)
    assert tab.pages.currentWidget() is tab.empty
    assert flow.rates_stack.currentWidget() is flow.rates_note and flow.rates_note.text() == NO_TRANSITIONS
    assert flow.occupancy_stack.currentWidget() is flow.occupancy_note and flow.occupancy_note.text() == NO_OCCUPANCY
    assert not flow.rates.isVisible() and not flow.occupancy.isVisible()
    win.close()

    full = open_window(lineage_path)  # with receipts the charts are drawn
    tab = ready(qtbot, full)
    tab.side.setCurrentWidget(tab.flow)  # beside the run list
    qtbot.waitUntil(lambda: tab.flow.last_occupancy is not None, timeout=10000)
    settle(qtbot, full, tab)
    assert tab.flow.rates.isVisible() and tab.flow.occupancy.isVisible()
    before = tab.flow.last_occupancy
    tab._update_flow()  # laid out at its final size: as many lanes as the chart has room for
    qtbot.waitUntil(lambda: tab.flow.last_occupancy is not before, timeout=10000)
    names, _counts = tab.flow.last_occupancy
    assert 0 < len(names) <= max(3, (tab.flow.occupancy.height() - 30) // 18)
