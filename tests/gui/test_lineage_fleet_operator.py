"""The Lineage tab on a ClickHouse source as an operator uses it, on the real engine (chDB): the
sourceVersion list's counts, a source that cannot be read, a switch that fails, leaving a source."""

from __future__ import annotations

import re
import socket
import threading
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import desk_sample
import pytest

from fixtures.clickhouse_traces import ChdbTarget, exporter_row, sdk_spans_of
from memorydesk.core.health.scalar import classify
from memorydesk.core.health.table import Color
from memorydesk.core.receipt_codes import from_us
from memorydesk.demo import lineage as demo

pytestmark = pytest.mark.gui
END = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
ITEM = re.compile(r"(.+) — ([\d,]+) runs?, ([\d,]+) at-risk")


def settled(qtbot, win, tab) -> None:
    qtbot.waitUntil(lambda: tab.tl is not None and not tab.busy() and win.ops.pending == 0, timeout=60000)


def fleet_of(tmp_path: Path, hours: int = 30) -> tuple[ChdbTarget, list]:
    receipts = [r for r in demo.history(5, END) if r.at_utc >= END - timedelta(hours=hours)]
    folder = tmp_path / "clickhouse"
    folder.mkdir()
    target = ChdbTarget(folder)
    target.write([exporter_row(span) for span in sdk_spans_of(receipts)])
    return target, receipts


def test_the_source_version_list_counts_at_risk_as_the_classifier(open_window, tmp_path: Path, qtbot) -> None:
    target, receipts = fleet_of(tmp_path)
    win = open_window(desk_sample.build(tmp_path / "ws.db"))
    tab = win.show_tab("lineage")
    settled(qtbot, win, tab)
    assert tab.fleet_bar.open_source(target.name)
    last = max(r.at_utc for r in receipts)
    tab.controls.since.set_moment(last - timedelta(hours=24))
    tab.controls.until.set_moment(last)
    tab.controls.range_on.setChecked(True)
    since, until = tab.controls.since.moment(), tab.controls.until.moment()
    inside = {r.run_id for r in receipts if since <= r.at_utc <= until}
    qtbot.waitUntil(lambda: tab.table is not None and set(tab.table.run_ids) == inside, timeout=60000)
    settled(qtbot, win, tab)
    qtbot.waitUntil(lambda: "ClickHouse judges" in tab.fleet_bar.label.text(), timeout=60000)

    now = from_us(tab.tl.now_us)
    mine = [r for r in receipts if r.run_id in inside and r.at_utc <= now]
    verdicts = {v.run_id: v.state for v in classify(mine, now=now)}
    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    kinds = defaultdict(set)
    for run_id, name in {(r.run_id, r.source_version) for r in mine if r.source_version}:
        expected[name][0] += 1
        expected[name][1] += verdicts[run_id].color is Color.AT_RISK
        kinds[name].add(verdicts[run_id].color)
    # the case that was miscounted: runs neither healthy nor at-risk (stale, uncertain) under a version
    assert any(colours & {Color.STALE, Color.UNCERTAIN} for colours in kinds.values())
    box = tab.controls.source
    shown = {}
    for k in range(1, box.count()):
        name, runs, risky = ITEM.fullmatch(box.itemText(k)).groups()
        shown[name] = [int(runs.replace(",", "")), int(risky.replace(",", ""))]
    assert shown == dict(expected)


def test_a_source_that_fails_is_said_once_and_shows_nothing_of_the_one_before(open_window, tmp_path: Path,
                                                                               qtbot) -> None:
    target, _receipts = fleet_of(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    win = open_window(desk_sample.build(tmp_path / "ws.db"))
    tab = win.show_tab("lineage")
    settled(qtbot, win, tab)
    workspace_runs = set(tab.table.run_ids)
    assert tab.fleet_bar.open_source(target.name)
    qtbot.waitUntil(lambda: tab.receipts.window is not None, timeout=60000)
    settled(qtbot, win, tab)
    assert tab.runs.model.rowCount() > 0 and tab.controls.source.count() > 1

    # a folder with no otel_traces, opened while following the clock
    assert tab.controls.follow.isChecked()
    assert tab.fleet_bar.open_source(f"chdb:{empty}")
    bar = tab.fleet_bar
    qtbot.waitUntil(lambda: bar.retry.isVisible(), timeout=60000)
    # said once, on the bar, with Retry and Back; no dialog, no status-bar line; not asked again
    assert "cannot be read" in bar.label.text() and "is not a ClickHouse data directory" in bar.label.text()
    assert list(empty.iterdir()) == []  # nothing written into the folder
    assert bar.back.isVisible() and not bar.poll.isActive()
    assert win.error_box is None and "Failed" not in win.statusBar().currentMessage()
    # nothing of the source before: no runs, no counts, no versions, the page says nothing was read
    assert tab.table is None and tab.runs.model.rowCount() == 0 and tab.runs.count.text() == ""
    assert tab.controls.legend.text() == "" and tab.controls.source.count() == 1
    assert tab.pages.currentWidget() is tab.failed
    assert "Nothing was read from the receipts source" in tab.failed.text.text()

    # Retry asks once more and says it once more (one bar, still no dialog)
    bar.retry.click()
    assert not bar.retry.isVisible()
    qtbot.waitUntil(lambda: bar.retry.isVisible(), timeout=60000)
    assert win.error_box is None and not bar.poll.isActive()

    bar.back.click()
    qtbot.waitUntil(lambda: tab.table is not None and set(tab.table.run_ids) == workspace_runs, timeout=60000)
    assert not bar.isVisible() and win.error_box is None


@pytest.fixture
def silent_host():
    """A host that accepts a connection and never answers: a real socket of this process (no
    ClickHouse server can run here; what is tested is the desk's handling of the silence)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"clickhouse://127.0.0.1:{server.getsockname()[1]}/otel"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def test_a_host_that_never_answers_is_left_at_once(open_window, silent_host: str, tmp_path: Path, qtbot) -> None:
    win = open_window(desk_sample.build(tmp_path / "ws.db"))
    tab = win.show_tab("lineage")
    settled(qtbot, win, tab)
    workspace_runs = set(tab.table.run_ids)
    evaluated = tab.controls.evaluate_at()

    # Cancel: the read is abandoned at once (its job gone from the status bar), said as stopped
    assert tab.fleet_bar.open_source(silent_host)
    qtbot.waitUntil(lambda: len(win.ops._jobs) == 1, timeout=10000)
    (job,) = win.ops._jobs
    job.cancel()
    assert not win.ops._jobs
    qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.failed, timeout=2000)
    assert "stopped" in tab.failed.text.text()

    # Back while it is read: the workspace's runs at once (its worker is not held by the host), and the
    # host's error, when it comes, is dropped
    tab.fleet_bar.try_again()
    qtbot.wait(300)
    tab.fleet_bar.back.click()
    assert tab.pages.currentWidget() is not tab.panel or tab.table is None  # not the source's runs
    qtbot.waitUntil(lambda: tab.table is not None and set(tab.table.run_ids) == workspace_runs, timeout=3000)
    assert tab.controls.evaluate_at() >= evaluated
    qtbot.wait(6000)  # past the host's first-byte time limit: its error arrives and is dropped
    assert win.error_box is None and "did not answer" not in win.statusBar().currentMessage()
    assert tab.pages.currentWidget() in (tab.panel, tab.empty) and not tab.fleet_bar.isVisible()

    # left alone, the host's silence is said in the connection's time limit, as not answering
    assert tab.fleet_bar.open_source(silent_host)
    qtbot.waitUntil(lambda: tab.fleet_bar.retry.isVisible(), timeout=15000)
    assert "the host did not answer within 5 s" in tab.fleet_bar.label.text()


def test_a_time_range_read_is_shown_and_back_restores_the_workspace_as_left(open_window, tmp_path: Path,
                                                                            qtbot) -> None:
    target, receipts = fleet_of(tmp_path, hours=24 * 6)
    win = open_window(desk_sample.build(tmp_path / "ws.db"))
    tab = win.show_tab("lineage")
    settled(qtbot, win, tab)
    left_at = tab.controls.evaluate_at() - timedelta(days=2)
    tab.controls.set_evaluate_at(left_at)
    assert not tab.controls.following
    assert tab.fleet_bar.open_source(target.name)
    qtbot.waitUntil(lambda: tab.receipts.window is not None, timeout=60000)
    settled(qtbot, win, tab)

    # a day two days before the newest receipt: once read, the timeline shows that day
    last = max(r.at_utc for r in receipts)
    tab.controls.since.set_moment(last - timedelta(days=3))
    tab.controls.until.set_moment(last - timedelta(days=2))
    tab.controls.range_on.setChecked(True)
    since, until = (int(m.timestamp() * 1e6) for m in (tab.controls.since.moment(), tab.controls.until.moment()))
    qtbot.waitUntil(lambda: tab.receipts.window is not None and tab.receipts.window.since_us == since, timeout=60000)
    settled(qtbot, win, tab)
    x0, x1 = tab.panel.x_range()
    t0, t1 = tab.panel.item.t_of(x0), tab.panel.item.t_of(x1)
    assert min(t1, until) - max(t0, since) >= 0.8 * (until - since)  # the range is in view
    assert t1 - t0 <= 2 * (until - since)  # and not lost in a wider stretch

    # Show all says what it shows: the runs read, not the whole source
    tab.controls.fit.click()
    assert "Showing every run read from the source" in win.statusBar().currentMessage()

    # Back: the evaluated time, range and following as the workspace was left
    tab.fleet_bar.back.click()
    qtbot.waitUntil(lambda: tab.fleet_bar.fleet is None and not tab.busy(), timeout=60000)
    assert not tab.controls.range_on.isChecked() and not tab.controls.following
    assert abs((tab.controls.evaluate_at() - left_at).total_seconds()) < 1



@pytest.mark.qt_log_ignore("This plugin does not support")  # the offscreen platform on a popup menu
def test_tab_in_the_time_range_popup_goes_to_the_end_field_and_enter_takes_it(qtbot) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from memorydesk.ui.lineage.controls import Controls

    controls = Controls()
    qtbot.addWidget(controls)
    controls.show()
    controls.range_on.setChecked(True)
    menu = controls.range_button.menu()
    menu.popup(controls.range_button.mapToGlobal(controls.range_button.rect().bottomLeft()))
    qtbot.waitUntil(menu.isVisible)
    controls.since.edit.setFocus()
    controls.since.edit.selectAll()
    qtbot.keyClicks(controls.since.edit, "2026-11-10 00:00:00")
    qtbot.keyClick(controls.since.edit, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is controls.until.edit
    controls.until.edit.selectAll()
    qtbot.keyClicks(controls.until.edit, "2026-11-12 00:00:00")
    qtbot.keyClick(controls.until.edit, Qt.Key.Key_Return)
    assert controls.until.edit.text() == "2026-11-12 00:00:00"
    assert controls.filters().until_us - controls.filters().since_us == 2 * 86_400_000_000


def test_the_lane_names_column_is_as_wide_as_the_widest_name_measured(qtbot) -> None:
    from PySide6.QtGui import QFontMetrics

    from memorydesk.ui.lineage.axes import LaneAxis

    axis = LaneAxis()
    narrow, wide = ("user:iiiiiii", "agent:iiiiiii"), ("user:mmmm", "agent:mmmm")  # more letters, fewer pixels
    axis.set_lanes([narrow, wide])
    advance = QFontMetrics(axis.font()).horizontalAdvance
    assert advance("user:mmmm / agent:mmmm") > advance("user:iiiiiii / agent:iiiiiii")
    assert axis.widest() == advance("user:mmmm / agent:mmmm")


def test_a_timeline_laid_out_behind_the_clock_does_not_stop_following_it(open_window, tmp_path: Path,
                                                                         qtbot) -> None:
    """Opening a source lays its timeline out at the time it was judged, seconds behind the clock the
    field follows: the line put there by the tab is not a drag, and following goes on."""
    target, _receipts = fleet_of(tmp_path)
    win = open_window(desk_sample.build(tmp_path / "ws.db"))
    tab = win.show_tab("lineage")
    settled(qtbot, win, tab)
    assert tab.fleet_bar.open_source(target.name)
    qtbot.waitUntil(lambda: tab.receipts.window is not None, timeout=60000)
    settled(qtbot, win, tab)
    assert tab.controls.following
    qtbot.waitUntil(lambda: tab.controls.evaluate_us() - tab.tl.now_us >= 2_000_000, timeout=10000)
    tab.panel.set_timeline(tab.tl, tab.origin_us, keep_view=True)  # what a layout finished late does
    qtbot.wait(400)  # past the line's 120 ms read
    assert tab.controls.following

    # a drag of the line is still taken: the evaluated time moves there, following stops
    dragged = tab.tl.now_us - 3_600_000_000
    tab.panel.now_line.setValue(tab.panel.item.x_of(dragged))
    qtbot.waitUntil(lambda: not tab.controls.following, timeout=3000)
    assert abs(tab.controls.evaluate_us() - dragged) < 1_000_000
