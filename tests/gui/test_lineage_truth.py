"""The Lineage tab says only what is true (issue 22, the operator's points) on real widgets:
evaluate-at judges as of that time, typed times mean what was typed, + and − zoom where the
person is looking, the axes read at any span, loading says so, the sourceVersion filter shows
the whole version with its at-risk runs, a hidden run's detail is cleared, and Run Canary says
what it will write and can be cancelled or stopped."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import desk_sample
import numpy as np
import pytest
from lineage_sample import END, lineage_path, ready, receipts, settle  # noqa: F401 - fixtures
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

from fixtures.receipts import complete_lineage
from memorydesk.core.health.scalar import as_of, classify
from memorydesk.core.health.table import Color
from memorydesk.core.receipt_codes import to_us
from memorydesk.core.receipts import receipt_from_json
from memorydesk.demo import lineage as demo
from memorydesk.lineage import receipt_store
from memorydesk.store import open_workspace
from memorydesk.ui.lineage.tab import LineageTab


def type_time(qtbot, tab, text: str) -> None:
    edit = tab.controls.evaluate.edit
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def test_evaluate_at_shows_what_an_operator_saw_then(open_window, lineage_path, qtbot, receipts) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    everything = len(tab.tl.table)
    moment = END - timedelta(days=3, hours=5)
    tab.controls.set_evaluate_at(moment)
    settle(qtbot, win, tab)
    qtbot.waitUntil(lambda: tab.tl.now_us == to_us(moment), timeout=10000)
    tl = tab.tl
    expected = classify(receipts, now=moment)
    # only runs with a receipt by then are drawn and counted, each in the classifier's state as of then
    assert len(tl.table) == len(expected) < everything
    assert {tl.table.run_ids[i]: int(s) for i, s in enumerate(tl.state)} == {v.run_id: v.state.rule for v in expected}
    assert sum(tl.color_counts.values()) == len(expected)
    assert f"{len(expected):,} runs" in tab.controls.legend.text()
    assert int(tl.table.end.max()) <= to_us(moment) and int(tl.table.tr_time.max()) <= to_us(moment)
    lo, hi = tl.whole.span()
    _edges, total, _risky, hours = tl.transitions(lo, hi)
    seen = as_of(receipts, moment)
    moved = sum(1 for r in seen if r.tier in ("mtm", "lpm", "retrieval", "generation") and r.status in
                ("committed", "verified"))
    assert round(float(total.sum()) * hours) == moved  # the tier flow counts only what had happened
    assert tab.panel.item.x_of(lo) <= tab.panel.x_range()[1]  # the axis still spans every stored run


def test_a_typed_time_is_exactly_that_time_and_a_bad_one_is_said(open_window, lineage_path, qtbot) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    type_time(qtbot, tab, "2026-11-13 21:40:00")
    assert tab.controls.evaluate_at() == datetime(2026, 11, 13, 21, 40, 0).astimezone().astimezone(UTC)
    assert not tab.controls.follow.isChecked() and not tab.controls.evaluate.error.isVisibleTo(tab)
    before = tab.controls.evaluate_at()
    type_time(qtbot, tab, "13.11.2026 kurz vor zehn")
    error = tab.controls.evaluate.error
    assert error.isVisibleTo(tab) and "is not a time like 2026-11-13 21:40:00" in error.text()
    assert tab.controls.evaluate_at() == before  # the last good time stays in force
    type_time(qtbot, tab, "2026-11-14")  # a day alone is midnight of that day, not ignored
    assert tab.controls.evaluate_at() == datetime(2026, 11, 14).astimezone().astimezone(UTC)
    assert not error.isVisibleTo(tab)


def test_plus_and_minus_zoom_around_the_selected_run(open_window, lineage_path, qtbot) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    tl, panel = tab.tl, tab.panel
    x0, x1 = panel.x_range()
    pos = int(np.flatnonzero(tl.end < tl.start.min() + (tl.end.max() - tl.start.min()) // 5)[0])  # an early run
    run = int(tl.idx[pos])
    panel.select_position(pos)
    middle = panel.item.x_of((tl.start[pos] + tl.end[pos]) / 2)
    share = (middle - x0) / (x1 - x0)
    assert share < 0.3  # far from the centre
    panel.plot.setFocus()
    for _ in range(4):
        qtbot.keyClick(panel.plot, Qt.Key.Key_Plus)
    a, b = panel.x_range()
    assert (b - a) == pytest.approx((x1 - x0) / 16, rel=1e-6)
    # the run stays about where it was — moved only as much as keeps it from being cut at the edge
    xs, xe = panel.item.x_of(tl.start[pos]), panel.item.x_of(tl.end[pos])
    assert a <= xs and xe <= b and (middle - a) / (b - a) == pytest.approx(share, abs=0.01)
    assert tab.panel.item.selected == run
    qtbot.keyClick(panel.plot, Qt.Key.Key_Minus)
    c, d = panel.x_range()
    assert (d - c) == pytest.approx((b - a) * 2, rel=1e-6) and c <= middle <= d
    # nothing selected (and the pointer elsewhere): around the middle of the view
    panel.item.selected = None
    centre = (c + d) / 2
    qtbot.keyClick(panel.plot, Qt.Key.Key_Plus)
    e, f = panel.x_range()
    assert (e + f) / 2 == pytest.approx(centre, abs=1e-6)


def _labels_fit(axis, lo: float, hi: float, size: float) -> list[str]:
    _spacing, values, texts = axis.layout(lo, hi, size)
    metrics = QFontMetrics(axis.font())
    for (v0, t0), (v1, t1) in zip(zip(values, texts), zip(values[1:], texts[1:])):
        px = (v1 - v0) / (hi - lo) * size
        assert px >= (metrics.horizontalAdvance(t0) + metrics.horizontalAdvance(t1)) / 2, (t0, t1)
    return texts


def test_the_axes_read_at_a_twenty_month_span(open_window, tmp_path, qtbot) -> None:
    path = desk_sample.build(tmp_path / "long.db")
    old, new = datetime(2025, 3, 10, 9, tzinfo=UTC), datetime(2026, 11, 20, 9, tzinfo=UTC)
    with open_workspace(path) as ws:
        rows = complete_lineage("run-2025", now=old) + complete_lineage("run-2026", now=new)
        receipt_store.ingest(ws, [receipt_from_json(r, line=n) for n, r in enumerate(rows, 1)])
    win = open_window(path)
    win.resize(1280, 800)
    tab = ready(qtbot, win)
    tab.panel.fit_all()
    settle(qtbot, win, tab)
    x0, x1 = tab.panel.x_range()
    texts = _labels_fit(tab.panel.time_axis, x0, x1, tab.panel.time_axis.width())
    assert 3 <= len(texts) and any("2025" in t for t in texts) and any("2026" in t for t in texts)
    assert texts[0][-4:] == "2025"  # the first label drawn says the year
    flow = tab.flow
    f0, f1 = flow.rates.getViewBox().viewRange()[0]
    assert (f0, f1) == pytest.approx((x0, x1))  # the tier-flow axis shows the timeline's range
    flow_texts = _labels_fit(flow.time_axis, f0, f1, flow.time_axis.width())
    assert flow_texts and any(t[-4:].isdigit() for t in flow_texts)  # a year on the narrow axis too


def test_loading_says_loading(qtbot) -> None:
    tab = LineageTab()
    qtbot.addWidget(tab)
    assert tab.pages.currentWidget() is tab.waiting and "Reading lineage receipts" in tab.waiting.text()
    assert "No lineage receipts" not in tab.waiting.text()


def test_the_source_filter_shows_the_whole_version_with_its_at_risk_runs(open_window, lineage_path, qtbot,
                                                                         receipts) -> None:
    win = open_window(lineage_path)
    win.resize(1280, 800)
    tab = ready(qtbot, win)
    box = tab.controls.source
    verdicts = {v.run_id: v for v in classify(receipts, now=tab.controls.evaluate_at())}
    runs_of = Counter()
    risky_of = Counter()
    for run_id, version in {(r.run_id, r.source_version) for r in receipts if r.source_version}:
        runs_of[version] += 1
        risky_of[version] += verdicts[run_id].color == Color.AT_RISK
    assert box.count() == len(runs_of) + 1
    for i in range(1, box.count()):
        name = box.itemData(i)
        runs = runs_of[name]
        assert box.itemText(i) == f"{name} — {runs:,} run{'' if runs == 1 else 's'}, {risky_of[name]:,} at-risk"
    assert tab.controls.select_source(demo.ADAPTER_BAD)
    settle(qtbot, win, tab)
    shown = box.currentText()
    assert demo.ADAPTER_BAD in shown
    assert box.width() >= QFontMetrics(box.font()).horizontalAdvance(shown)  # the whole text fits the box


def test_the_detail_pane_clears_when_a_filter_hides_its_run(open_window, lineage_path, qtbot) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    tab.panel.step_at_risk(1)
    qtbot.waitUntil(lambda: tab.detail.detail is not None, timeout=10000)
    run_id = tab.selected_id
    index = tab.controls.color.findText(str(Color.HEALTHY))
    tab.controls.color.setCurrentIndex(index)
    settle(qtbot, win, tab)
    qtbot.waitUntil(lambda: tab.detail.detail is None, timeout=10000)
    assert tab.selected_id is None and tab.panel.item.selected is None
    assert f"Run {run_id} is hidden by the filters" in tab.detail.header.text()


@pytest.mark.slow
def test_run_canary_says_what_it_writes_and_cancel_or_stop_leave_nothing(open_window, lineage_path, qtbot) -> None:
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    before = len(tab.table.run_ids)
    with open_workspace(lineage_path, read_only=True) as ws:
        stored = receipt_store.count(ws)
    win.act_canary.trigger()
    qtbot.waitUntil(lambda: tab.dialog is not None and tab.dialog.isVisible(), timeout=10000)
    dialog = tab.dialog
    text = dialog.explain.text()
    assert "24 canary memories" in text and str(lineage_path) in text and "removed" in text
    dialog.close_button.click()  # Cancel: nothing runs
    settle(qtbot, win, tab)
    with open_workspace(lineage_path, read_only=True) as ws:
        assert receipt_store.count(ws) == stored
    win.act_canary.trigger()
    qtbot.waitUntil(lambda: tab.dialog is not dialog and tab.dialog.isVisible(), timeout=10000)
    dialog = tab.dialog
    dialog.run_button.click()
    assert dialog.stop_button.isVisible() and not dialog.close_button.isEnabled()
    qtbot.waitUntil(lambda: "batch 1" in dialog.step.text(), timeout=60000)
    dialog.stop_button.click()
    qtbot.waitUntil(lambda: dialog.finished_with is not None, timeout=120000)
    assert "Stopped" in dialog.verdict.text() and "removed" in dialog.verdict.text()
    assert dialog.close_button.isEnabled()
    settle(qtbot, win, tab)
    with open_workspace(lineage_path, read_only=True) as ws, ws.read() as conn:
        assert receipt_store.count(ws) == stored
        items = ws.layout.items
        from sqlalchemy import func, select
        assert conn.execute(select(func.count()).select_from(items).where(items.c.session_id.like("canary-%"))
                            ).scalar() == 0
    assert len(tab.table.run_ids) == before


def test_labels_carry_the_year_where_it_changes_at_any_step() -> None:
    from memorydesk.ui.lineage import ticks

    def width(text: str) -> float:
        return 7.0 * len(text)

    eve = datetime(2026, 12, 31, 20, 0).astimezone().timestamp()
    _s, _t, hours = ticks.layout(eve, eve + 8 * 3600, 900, width)
    assert any("2027" in t for t in hours) and hours[0].startswith("31 Dec 2026 ")
    _s, _t, days = ticks.layout(eve - 5 * 86400, eve + 5 * 86400, 900, width)
    assert any("2027" in t for t in days) and "2026" in days[0]
    _s, _t, within = ticks.layout(eve - 30 * 86400, eve - 20 * 86400, 900, width)
    assert not any(t[-4:].isdigit() for t in within)  # no year when the span stays inside one
    for span_days, size in ((600, 300), (600, 1600), (3650, 400), (1 / 24, 900), (1 / 1440, 900)):
        lo = eve - span_days * 86400
        _s, values, texts = ticks.layout(lo, eve, size, width)
        per = size / (eve - lo)
        assert 1 <= len(values) <= size / 24
        for (a, ta), (b, tb) in zip(zip(values, texts), zip(values[1:], texts[1:])):
            assert (b - a) * per >= (width(ta) + width(tb)) / 2  # never overlapping
