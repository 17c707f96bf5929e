"""The Lineage tab on a ClickHouse source (File ▸ Open Receipts Source…), in the real window, on the
real engine (chDB): it shows the runs of the time in view, judged as ``lineage classify`` judges the
same source; new receipts appear while it follows the clock; Back returns to the workspace."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import desk_sample
import pytest

from fixtures.clickhouse_traces import ChdbTarget, exporter_row, sdk_spans_of
from memorydesk.core.health.scalar import classify
from memorydesk.core.health.table import HealthState
from memorydesk.core.receipt_codes import from_us
from memorydesk.demo import lineage as demo
from memorydesk.lineage.fleet import source as fleet_source
from memorydesk.lineage.fleet.read import read_receipts
from memorydesk.lineage.fleet.source import parse_source

pytestmark = pytest.mark.gui
END = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
RULES = {state.rule: state.value for state in HealthState}


def settled(qtbot, win, tab) -> None:
    qtbot.waitUntil(lambda: tab.tl is not None and not tab.busy() and win.ops.pending == 0, timeout=60000)


def test_the_lineage_tab_reads_a_fleet_from_clickhouse(open_window, tmp_path: Path, qtbot) -> None:
    receipts = [r for r in demo.history(5, END) if r.at_utc >= END - timedelta(hours=30)]
    folder = tmp_path / "clickhouse"
    folder.mkdir()
    target = ChdbTarget(folder)
    target.write([exporter_row(span) for span in sdk_spans_of(receipts)])
    win = open_window(desk_sample.build(tmp_path / "ws.db"))
    assert win.act_receipts_source in win.file_menu.actions()
    tab = win.show_tab("lineage")
    settled(qtbot, win, tab)
    workspace_runs = set(tab.table.run_ids)
    assert tab.fleet_bar.open_source(target.name) and tab.fleet_bar.isVisible()
    qtbot.waitUntil(lambda: tab.table is not None and tab.receipts.window is not None, timeout=60000)
    settled(qtbot, win, tab)

    # the time in view: the runs with a receipt in the source's last hour
    last = max(r.at_utc for r in receipts)
    inside = {r.run_id for r in receipts if r.at_utc >= last - timedelta(hours=1)}
    assert set(tab.table.run_ids) == inside and inside and set(tab.table.run_ids) != workspace_runs
    assert "Receipts from" in tab.fleet_bar.label.text()
    # then ClickHouse's counts per state of the same runs, judged in the engine: the states the tab drew
    qtbot.waitUntil(lambda: "ClickHouse judges" in tab.fleet_bar.label.text(), timeout=60000)
    drawn = Counter(int(s) for s in tab.tl.state.tolist())
    said = ", ".join(f"{drawn[rule]:,} {RULES[rule].replace('_', ' ')}" for rule in sorted(drawn))
    assert f"ClickHouse judges {len(inside):,} runs there, with receipts in " in tab.fleet_bar.label.text()
    assert f" lanes: {said}." in tab.fleet_bar.label.text()

    # another time range is another read: the runs with a receipt in the day before the last receipt
    since = last - timedelta(hours=24)
    tab.controls.since.set_moment(since)
    tab.controls.until.set_moment(last)
    tab.controls.range_on.setChecked(True)
    since, last = tab.controls.since.moment(), tab.controls.until.moment()  # as the fields hold them
    inside = {r.run_id for r in receipts if since <= r.at_utc <= last}
    qtbot.waitUntil(lambda: tab.table is not None and set(tab.table.run_ids) == inside, timeout=60000)
    settled(qtbot, win, tab)

    # each run's colour is the state the classifier gives it on the same source (what `lineage classify
    # SOURCE --json` prints; the window holds the chDB directory, so it is read here, in this process)
    now = from_us(tab.tl.now_us)
    verdicts = {v.run_id: v.state.value for v in classify(read_receipts(parse_source(target.name)), now=now)}
    shown = {run_id: RULES[int(state)] for run_id, state in zip(tab.tl.table.run_ids, tab.tl.state.tolist())}
    assert shown == {run_id: verdicts[run_id] for run_id in shown}
    assert len(set(shown.values())) > 1  # the demo's mix of colours, not one
    drawn = Counter(shown.values())  # and ClickHouse's counts per state of the window are the same mix
    said = ", ".join(f"{drawn[state]:,} {state.replace('_', ' ')}" for state in RULES.values() if drawn[state])
    qtbot.waitUntil(lambda: f": {said}" in tab.fleet_bar.label.text(), timeout=60000)

    # a run's detail comes from all its receipts in the source
    run = tab.tl.table.index[sorted(shown)[0]]
    tab.select_run(run)
    qtbot.waitUntil(lambda: tab.selected_detail() is not None
                    and tab.selected_detail().run_id == sorted(shown)[0], timeout=30000)
    assert tab.selected_detail().health.state == shown[sorted(shown)[0]]

    # the scope in view is what is read: lanes whose name holds the scope filter's text
    lane = sorted({f"{r.user_scope} / {r.assistant_scope}" for r in receipts if r.run_id in inside})[0]
    tab.controls.set_scope(lane)
    mine = {r.run_id for r in receipts if since <= r.at_utc <= last
            and f"{r.user_scope} / {r.assistant_scope}" == lane}
    qtbot.waitUntil(lambda: tab.receipts.scope == lane and not tab.busy() and set(tab.table.run_ids) == mine,
                    timeout=60000)
    tab.controls.set_scope("")
    qtbot.waitUntil(lambda: tab.receipts.scope == "" and not tab.busy() and set(tab.table.run_ids) == inside,
                    timeout=60000)

    # following the clock (no time range: the last hour, moving with the newest receipt): new receipts appear
    tab.controls.range_on.setChecked(False)
    qtbot.waitUntil(lambda: tab.receipts.since_us is None and not tab.busy(), timeout=60000)
    fresh = [r for r in demo.history(6, END + timedelta(minutes=4)) if r.at_utc > max(x.at_utc for x in receipts)][:40]
    fresh = [type(r)(**{**r.__dict__, "run_id": "new-" + r.run_id}) for r in fresh]
    assert fresh
    target.write([exporter_row(span) for span in sdk_spans_of(fresh)])
    assert tab.fleet_bar.poll.isActive()
    tab.reload(whole=False)  # what the poll does every 15 s
    qtbot.waitUntil(lambda: {r.run_id for r in fresh} <= set(tab.table.run_ids), timeout=60000)
    settled(qtbot, win, tab)

    tab.fleet_bar.use_workspace()
    qtbot.waitUntil(lambda: tab.table is not None and set(tab.table.run_ids) == workspace_runs, timeout=60000)
    assert not tab.fleet_bar.isVisible() and not tab.fleet_bar.poll.isActive()
    path = str(folder.resolve())
    qtbot.waitUntil(lambda: not fleet_source._chdb_open.get(path), timeout=30000)  # the directory let go

    # closing the window while it shows a source lets the directory go too
    assert tab.fleet_bar.open_source(target.name)
    qtbot.waitUntil(lambda: tab.receipts.window is not None and fleet_source._chdb_open.get(path), timeout=60000)
    settled(qtbot, win, tab)
    win.close()
    assert not fleet_source._chdb_open.get(path)


def test_a_source_that_cannot_be_read_is_said_on_the_tab(open_window, tmp_path: Path, qtbot) -> None:
    win = open_window(desk_sample.build(tmp_path / "ws.db"))
    tab = win.show_tab("lineage")
    settled(qtbot, win, tab)
    assert tab.fleet_bar.open_source("clickhouse://127.0.0.1:9/otel")
    qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.failed, timeout=60000)
    assert "the server cannot be reached" in tab.failed.text.text()
    assert not tab.fleet_bar.open_source("postgres://x")
    assert "not a ClickHouse source" in win.statusBar().currentMessage()
