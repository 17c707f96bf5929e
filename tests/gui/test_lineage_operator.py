"""The operator's second run through the Lineage tab, on the real widgets: what they found false,
cut off or out of view, each shown fixed — the clock in the field, the imported runs in view
when opened from the import, Home on the runs shown, ``+`` keeping the selected run, a live
lane kept in view, lanes of two canary runs told apart, overlapping runs of a lone lane given
the room, the tier-flow labels whole, the run list without a horizontal scroll, a long
sourceVersion not breaking the filter row, and ``&`` shown as itself in Open Receipts Source."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import desk_sample
import guihelp
import pytest
from lineage_sample import lineage_path, ready, receipts, settle  # noqa: F401 - fixtures
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLabel

from fixtures.receipts import receipt
from helpers import SHARED_DATA
from memorydesk.core.receipt_codes import to_us
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage import receipt_store
from memorydesk.store import open_workspace

pytestmark = pytest.mark.gui


def store(path: Path, lines: list[dict]) -> None:
    """Another connection stores receipts (the window sees the commit)."""
    with open_workspace(path) as ws:
        receipt_store.ingest(ws, [receipt_from_json(line) for line in lines])


def run_of(run: str, user: str, start: datetime, minutes: float, *, assistant: str = "agent:one") -> list[dict]:
    """A healthy run of ``minutes``: stored, moved on with its target, retrieved."""
    return [receipt("stm", "committed", "v1", run=run, user=user, assistant=assistant, now=start, minutes=0,
                    sourcePresent=True),
            receipt("stm", "committed", "v1", run=run, user=user, assistant=assistant, now=start,
                    minutes=minutes / 2, sourcePresent=False),
            receipt("mtm", "committed", "v1", run=run, user=user, assistant=assistant, now=start, minutes=minutes / 2),
            receipt("retrieval", "verified", "v1", run=run, user=user, assistant=assistant, now=start,
                    minutes=minutes, expectedVersion="v1")]


def in_view(tab, run_id: str) -> tuple[float, float, float, float]:
    """(run start x, run end x, view left, view right)."""
    tl = tab.tl
    pos = tl.position(tl.table.index[run_id])
    x0, x1 = tab.panel.x_range()
    return tab.panel.item.x_of(tl.start[pos]), tab.panel.item.x_of(tl.end[pos]), x0, x1


@pytest.fixture
def lanes_path(tmp_path: Path) -> Path:
    """A week of one busy lane, and a short lane with three runs in one hour in its middle."""
    path = desk_sample.build(tmp_path / "lanes.db")
    end = datetime.now(UTC).replace(microsecond=0)
    lines = []
    for k in range(40):
        lines += run_of(f"busy-{k}", "user:busy", end - timedelta(days=7) + timedelta(hours=4 * k), 30)
    middle = end - timedelta(days=3)
    for k in range(3):
        lines += run_of(f"short-{k}", "user:short", middle + timedelta(minutes=20 * k), 10)
    store(path, lines)
    return path


def test_following_the_clock_the_field_shows_the_clock(open_window, lanes_path, qtbot) -> None:
    """It showed 08:25:25 until 08:25:47: the field moved only when the picture was judged again (here
    nothing changes for hours: old runs, no waiting window)."""
    win = open_window(lanes_path)
    tab = ready(qtbot, win)
    tab.clock.stop()  # no judging again meanwhile: the field still shows the clock
    shown = tab.controls.evaluate.edit.text()
    qtbot.waitUntil(lambda: tab.controls.evaluate.edit.text() != shown, timeout=2_500)
    moment = tab.controls.evaluate_at()
    assert abs((datetime.now(UTC) - moment).total_seconds()) <= 1.5
    # the dashed line stays at the time shown
    assert abs(tab.panel.item.t_of(tab.panel.now_line.value()) - to_us(moment)) < 1_000_000


def test_open_imported_runs_shows_them_even_evaluated_before_them(open_window, lineage_path, qtbot) -> None:
    """Evaluated at a time before the imported runs, "Open Imported Runs in Lineage" landed on "0 of 0
    lanes" with the detail still explaining another run, and the view was not on the imported runs."""
    data = SHARED_DATA / "memoryos" / "normal" / "data"
    if not data.exists():
        pytest.skip("../shared/data/memoryos is not present in this checkout")
    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    tab.panel.step_at_risk(1)  # a demo run explained below
    qtbot.waitUntil(lambda: tab.selected_id is not None, timeout=10_000)
    tab.controls.set_evaluate_at(datetime(2025, 1, 1, tzinfo=UTC))  # before March 2025, when the sample ran
    settle(qtbot, win, tab)
    win.act_import_memoryos.trigger()
    dialog = guihelp.wait_dialog(qtbot, win)
    dialog.folder.setText(str(data))
    dialog.zone.setCurrentText("Europe/Berlin")
    dialog.capacity.setValue(5)
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=60_000)
    result = dialog.result
    qtbot.mouseClick(dialog.lineage_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.tl is not None and tab.tl.runs_shown == len(result.runs) and not tab.busy()
                    and tab.selected_id == result.runs[0], timeout=30_000)
    settle(qtbot, win, tab)
    shown = {tab.tl.table.run_ids[int(i)] for i in tab.tl.idx}
    assert shown == set(result.runs) and tab.controls.following
    assert tab.selected_detail() is not None and tab.selected_detail().run_id == result.runs[0]
    # the view is on the imported runs: all of them in it, and not a year around them
    x0, x1 = tab.panel.x_range()
    lo, hi = (tab.panel.item.x_of(v) for v in tab.panel.shown_span())
    assert x0 <= lo and hi <= x1 and (x1 - x0) <= 1.1 * (hi - lo)


def test_home_shows_the_runs_the_filters_leave_and_plus_keeps_the_selected_run(open_window, lanes_path, qtbot) -> None:
    win = open_window(lanes_path)
    win.resize(1280, 800)
    tab = ready(qtbot, win)
    tab.controls.scope.setText("user:short")
    qtbot.waitUntil(lambda: tab.tl.filters.scope == "user:short" and not tab.busy(), timeout=10_000)
    tab.panel.key(Qt.Key.Key_Home, Qt.KeyboardModifier.NoModifier)
    x0, x1 = tab.panel.x_range()
    assert (x1 - x0) < 2 * 3600  # the short lane's hour (and a margin), not the busy lane's week
    # a run cut at the left edge: + brings it into view whole, rather than cutting more of it off
    tab.controls.scope.setText("")
    qtbot.waitUntil(lambda: tab.tl.filters.scope == "" and not tab.busy(), timeout=10_000)
    run = tab.tl.table.index["busy-20"]
    tab.panel.show_run(run)
    tab.select_run(run)
    xs, xe, _x0, _x1 = in_view(tab, "busy-20")
    tab.panel.vb.setXRange(xs + (xe - xs) * 0.6, xs + (xe - xs) * 0.6 + 3 * 86_400, padding=0)
    for _ in range(3):
        tab.panel.key(Qt.Key.Key_Plus, Qt.KeyboardModifier.NoModifier)
        xs, xe, x0, x1 = in_view(tab, "busy-20")
        assert x0 <= xs and xe <= x1


def test_a_live_lane_stays_in_view_when_new_runs_arrive(open_window, tmp_path: Path, qtbot) -> None:
    """Following the clock, new runs reached the legend and the run list while the timeline stayed
    on the old span: the live lane looked empty."""
    path = desk_sample.build(tmp_path / "live.db")
    two_days_ago = datetime.now(UTC).replace(microsecond=0) - timedelta(days=2)
    store(path, [line for k in range(6) for line in run_of(f"old-{k}", "user:live", two_days_ago
                                                            - timedelta(hours=k), 20)])
    win = open_window(path)
    tab = ready(qtbot, win)
    _x0, x1 = tab.panel.x_range()
    assert x1 < tab.panel.item.x_of(to_us(datetime.now(UTC) - timedelta(days=1)))  # Home: the old runs only
    store(path, run_of("new-1", "user:live", datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=2), 1))
    qtbot.waitUntil(lambda: tab.tl is not None and "new-1" in tab.tl.table.index and not tab.busy(), timeout=15_000)
    xs, xe, x0, x1 = in_view(tab, "new-1")
    assert x0 <= xs and xe <= x1


def test_a_lone_lane_gives_its_overlapping_runs_the_room(open_window, tmp_path: Path, qtbot) -> None:
    """A single lane stayed 38 px tall with 3–4 px sub-tracks though the timeline had room."""
    path = desk_sample.build(tmp_path / "lone.db")
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=3)
    store(path, [line for k in range(5) for line in run_of(f"over-{k}", "user:lone", start + timedelta(minutes=k),
                                                            60)])
    win = open_window(path)
    win.resize(1280, 800)
    tab = ready(qtbot, win)
    tracks = int(tab.tl.row_tracks.max())
    assert tracks == 5
    qtbot.waitUntil(lambda: tab.panel.lane_px >= tracks * tab.panel.base_px, timeout=5_000)


def test_lanes_of_two_canary_runs_stay_told_apart(qapp) -> None:
    """At 1280 two canary runs' lanes both read "canar…ser-a / canar…ant-1": their ids are in the
    middle of the scope, which the middle cut took away."""
    from memorydesk.ui.lineage.axes import LaneAxis, lane_labels

    axis = LaneAxis()
    axis.setWidth(150)
    lanes = [(f"{c}/user-{u}", f"{c}/assistant-{a}") for c in ("canary-b80e0d003041", "canary-972bb16450e9")
             for u in "ab" for a in "12"] + [("user:tomas", "agent:farah"), ("omar_c", "daily")]
    labels = lane_labels(axis, lanes)
    assert len(set(labels.values())) == len(lanes)
    assert labels[("omar_c", "daily")] == "omar_c / daily"  # what fits is left whole


def test_the_tier_flow_labels_are_whole(open_window, tmp_path: Path, qtbot) -> None:
    """They read "STM→MT….077/h": the rate cut out of the label's middle (few moves over months, as an
    imported MemoryOS folder has them)."""
    path = desk_sample.build(tmp_path / "sparse.db")
    end = datetime.now(UTC).replace(microsecond=0)
    store(path, [line for k in range(30) for line in run_of(f"sparse-{k}", "user:sparse",
                                                             end - timedelta(days=3 * k + 1), 30)])
    win = open_window(path)
    win.resize(1280, 800)
    tab = ready(qtbot, win)
    tab.side.setCurrentWidget(tab.flow)
    qtbot.waitUntil(lambda: tab.flow.last_rates is not None, timeout=10_000)
    settle(qtbot, win, tab)
    axis = tab.flow.rates.getAxis("left")
    labels = [text for _value, text in axis._tickLevels[0]]
    assert len(labels) == 4 and all("…" not in text and text.endswith("/h") for text in labels), labels


def test_the_run_list_fits_beside_the_timeline_at_1280(open_window, lineage_path, qtbot) -> None:
    """It cut run ids and needed a horizontal scroll for First, Last, Lane and Receipts."""
    win = open_window(lineage_path)
    win.resize(1280, 800)
    tab = ready(qtbot, win)
    qtbot.wait(100)
    view = tab.runs.view
    shown = [c for c in range(view.model().columnCount()) if not view.isColumnHidden(c)]
    keys = [view.model().headerData(c, Qt.Orientation.Horizontal) for c in shown]
    assert keys[:3] == ["State", "Run", "First receipt"]
    assert sum(view.columnWidth(c) for c in shown) <= view.viewport().width()
    assert not view.horizontalScrollBar().isVisible()
    widest = max(view.fontMetrics().horizontalAdvance(r) for r in tab.tl.table.run_ids)
    assert view.columnWidth(1) >= widest
    # what a narrow list leaves out is in the run's tooltip
    tip = view.model().data(view.model().index(0, 1), Qt.ItemDataRole.ToolTipRole)
    assert "lane " in tip and "last " in tip and "receipts" in tip


def test_a_long_source_version_does_not_break_the_filter_row(open_window, lineage_path, qtbot) -> None:
    long = "memoryos 0.1.4 stm=5 mtm=2000 lpm=100 queue=7 heat=5 similarity=0.6 llm=gpt-4o-mini " \
           "embedding=all-MiniLM-L6-v2; receipts memorydesk 0.3.0"
    store(lineage_path, [{**line, "sourceVersion": long} for line in run_of("long-1", "user:sam",
                                                                             datetime.now(UTC) - timedelta(hours=1),
                                                                             5)])
    win = open_window(lineage_path)
    win.resize(1280, 800)
    tab = ready(qtbot, win)
    assert tab.controls.select_source(long)
    qtbot.waitUntil(lambda: tab.tl.filters.source_version == long and not tab.busy(), timeout=10_000)
    qtbot.wait(100)
    controls = tab.controls
    source, canary, clear = controls.source.geometry(), controls.canary.geometry(), controls.clear.geometry()
    assert source.right() < canary.left() and clear.right() <= controls.width()
    assert controls.source.toolTip() == long
    legend = controls.legend
    assert legend.height() >= legend.heightForWidth(legend.width())  # its last line ("… runs") not cut


def test_open_receipts_source_shows_the_ampersand(open_window, lineage_path, qtbot) -> None:
    """It read ``chdb:PATH[?database=Dtable=T]`` with an underlined "t": the & taken as a shortcut."""
    from memorydesk.ui.lineage.fleet_bar import PROMPT

    win = open_window(lineage_path)
    tab = ready(qtbot, win)
    dialog = tab.fleet_bar.source_dialog()
    qtbot.addWidget(dialog)
    dialog.show()
    label = next(w for w in dialog.findChildren(QLabel) if "chdb:" in w.text())
    assert QKeySequence.mnemonic(label.text()).isEmpty()  # no shortcut made of it
    assert label.text().replace("&&", "&") == PROMPT and "?database=D&table=T" in PROMPT
    dialog.reject()


def test_the_time_shown_is_never_past_a_change_the_picture_has_not_judged(open_window, tmp_path: Path,
                                                                           qtbot) -> None:
    """Following the clock the field moves with it, but only as far as the picture is true: up to the
    next moment a state changes (here a waiting window closing), where it is judged again. So
    ``lineage classify --now <the time shown>`` always says what the tab shows."""
    from memorydesk.core.health.scalar import classify
    from memorydesk.core.health.table import HealthState

    path = desk_sample.build(tmp_path / "closing.db")
    now = datetime.now(UTC).replace(microsecond=0)
    closes = now + timedelta(seconds=8)
    store(path, [receipt("stm", "committed", "v1", run="closing-1", user="user:wait", now=now, minutes=-1,
                         sourcePresent=True, waitingUntil=closes.isoformat().replace("+00:00", "Z"))])
    win = open_window(path)
    tab = ready(qtbot, win)
    assert tab.live.same_until == to_us(closes)
    tab.clock.stop()  # the judging held back: the field must not run past the change
    qtbot.waitUntil(lambda: datetime.now(UTC) > closes + timedelta(seconds=2), timeout=20_000)
    qtbot.wait(1_100)
    assert tab.controls.evaluate_at() < closes
    with open_workspace(path, read_only=True) as ws:
        stored = receipt_store.load(ws)
    [verdict] = classify(stored, now=tab.controls.evaluate_at())
    shown = list(HealthState)[int(tab.tl.state[tab.tl.table.index["closing-1"]]) - 1]
    assert verdict.state == shown == HealthState.WAITING


def test_evaluated_before_every_receipt_the_empty_timeline_is_explained(open_window, lanes_path, qtbot) -> None:
    """"0 of 0 lanes", and nothing said why: the time evaluated is before the first receipt."""
    from memorydesk.ui.lineage import notice

    win = open_window(lanes_path)
    tab = ready(qtbot, win)
    tab.controls.set_evaluate_at(datetime(2020, 1, 1, tzinfo=UTC))
    qtbot.waitUntil(lambda: tab.tl.now_us == to_us(datetime(2020, 1, 1, tzinfo=UTC)) and not tab.busy(),
                    timeout=10_000)
    assert tab.tl.runs_shown == 0
    text = tab.controls.notice.text()
    assert tab.controls.notice.isVisibleTo(tab) and "No run has begun at the evaluated time" in text
    tab.controls.notice.linkActivated.emit(notice.NOW_LINK)
    qtbot.waitUntil(lambda: tab.controls.following and tab.tl.runs_shown > 0 and not tab.busy(), timeout=10_000)
    assert not tab.controls.notice.isVisibleTo(tab) or "No run has begun" not in tab.controls.notice.text()


def test_the_occupancy_chart_names_canary_lanes_apart(qtbot) -> None:
    """Its lane names were cut to the chart's first width, and two canary runs' lanes read alike."""
    import numpy as np
    from PySide6.QtGui import QFontMetrics

    from memorydesk.ui.lineage.flow import FlowPanel

    panel = FlowPanel()
    qtbot.addWidget(panel)
    panel.resize(490, 400)
    panel.show()
    names = [f"{c}/user-a / {c}/assistant-1" for c in ("canary", "canary-198d944a5385", "canary-b45ff291ee80")]
    panel.set_occupancy(names, np.array([[1, 2, 3, 0], [0, 1, 1, 0], [1, 0, 2, 0]]))
    axis = panel.occupancy.getAxis("left")
    labels = [text for _y, text in axis._tickLevels[0]]
    assert len(set(labels)) == 3 and all(labels)
    qtbot.waitUntil(lambda: axis.width() > 120, timeout=2_000)  # more room than the first 120 px, when there is
    assert all(QFontMetrics(axis.font()).horizontalAdvance(t) <= axis.width() for t in labels)


def test_the_occupancy_chart_shows_as_many_lanes_as_its_room_holds(open_window, lineage_path, qtbot) -> None:
    """Counted while the Tier flow tab was hidden, the chart drew 12 lanes into a few pixels each."""
    win = open_window(lineage_path)
    win.resize(1280, 800)
    tab = ready(qtbot, win)
    tab.side.setCurrentWidget(tab.flow)
    qtbot.waitUntil(lambda: tab.flow.last_occupancy is not None and not tab.busy(), timeout=10_000)
    settle(qtbot, win, tab)
    qtbot.wait(300)
    settle(qtbot, win, tab)
    names, _counts = tab.flow.last_occupancy
    assert len(names) == tab.flow.occupancy_rows()
    assert tab.flow.occupancy.height() / max(1, len(names)) >= tab.flow.fontMetrics().height()
