"""The Lineage tab on a ClickHouse source as an operator uses it, on the real engine (chDB): the
sourceVersion list's counts, a source that cannot be read, a switch that fails, leaving a source."""

from __future__ import annotations

import re
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
