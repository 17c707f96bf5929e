"""The timeline as numbers: judged at a time, filtered, lanes worst first, hit-tested,
charted — on the demo's four weeks of receipts, checked against the classifier."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memorydesk.core.health.scalar import as_of, classify
from memorydesk.core.health.table import RULE_SEVERITY, Color, HealthState
from memorydesk.core.receipt_codes import to_us
from memorydesk.demo import lineage as demo
from memorydesk.lineage import run_reads as run_tables
from memorydesk.lineage.receipt_store import ingest
from memorydesk.lineage.runs import table_of
from memorydesk.lineage.timeline import Filters, build

END = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)
DAY_US = 86_400_000_000


@pytest.fixture(scope="module")
def receipts() -> list:
    return demo.history(7, END)


@pytest.fixture(scope="module")
def table(receipts):
    return table_of(receipts)


@pytest.fixture(scope="module")
def stored(receipts, tmp_path_factory):
    """The receipts in a workspace, and the tab's table of them (every stored receipt)."""
    from memorydesk.store import open_workspace

    ws = open_workspace(tmp_path_factory.mktemp("asof") / "ws.db", create=True)
    ingest(ws, receipts)
    yield ws, run_tables.load_runs(ws)
    ws.close()


def states_by_run(tl) -> dict[str, str]:
    return {tl.table.run_ids[i]: str(HealthState(list(HealthState)[s - 1])) for i, s in enumerate(tl.state.tolist())}


@pytest.mark.parametrize("offset", [timedelta(0), -timedelta(days=9, hours=4), -timedelta(hours=2), 3 * DAY])
@pytest.mark.parametrize("fresh", [DAY, timedelta(days=30)])
def test_evaluate_at_gives_the_classifiers_states_for_that_time(receipts, stored, offset, fresh) -> None:
    """As of ``now``, the way the tab does it: the stored table cut at ``now`` on the worker."""
    ws, whole = stored
    now = END + offset
    cut = run_tables.as_of(ws, whole, to_us(now))
    tl = build(cut, to_us(now), fresh // timedelta(microseconds=1), grid=False, source=whole)
    expected = classify(receipts, now=now, fresh_for=fresh)
    assert states_by_run(tl) == {v.run_id: str(v.state) for v in expected}
    counts = Counter(str(v.state) for v in expected)
    assert {str(s): n for s, n in tl.state_counts.items() if n} == dict(counts)
    if offset < timedelta(0):  # later runs are not drawn; the axis still spans them all
        assert len(cut) < len(whole) and tl.whole is whole
    # the same as the table of the receipts cut at now: bars end, flow and occupancy as of now
    direct = table_of(as_of(receipts, now))
    assert cut.run_ids == direct.run_ids and np.array_equal(cut.end, direct.end)
    assert np.array_equal(cut.tr_time, direct.tr_time) and np.array_equal(cut.tr_kind, direct.tr_kind)
    lo, hi = whole.span()
    a = build(direct, to_us(now), DAY_US, grid=False)
    assert np.array_equal(tl.transitions(lo, hi)[1], a.transitions(lo, hi)[1])
    assert np.array_equal(tl.occupancy(to_us(now))[1], a.occupancy(to_us(now))[1])
    assert {k: v for k, v in tl.source_counts().items() if v[0]} == a.source_counts()


def test_a_waiting_run_becomes_promotion_missing_when_its_window_closes(table) -> None:
    early = build(table, to_us(END), DAY_US, grid=False)
    waiting = np.flatnonzero(early.state == HealthState.WAITING.rule)
    assert len(waiting) >= 5
    later = build(table, to_us(END + timedelta(hours=8)), DAY_US, grid=False)
    assert set(later.state[waiting].tolist()) == {HealthState.PROMOTION_MISSING.rule}


def test_lanes_are_ordered_worst_first_and_hold_the_shown_runs(table) -> None:
    tl = build(table, to_us(END), DAY_US)
    worst = [int(RULE_SEVERITY[tl.state[tl.idx[tl.row_offsets[r]:tl.row_offsets[r + 1]]]].max())
             for r in range(tl.rows)]
    assert worst == sorted(worst, reverse=True) and worst[0] == 4
    assert tl.rows == len(table.lanes) and tl.runs_shown == len(table)
    for r in range(tl.rows):
        part = slice(tl.row_offsets[r], tl.row_offsets[r + 1])
        assert set(table.lane[tl.idx[part]].tolist()) == {int(tl.row_lane[r])}
        assert np.all(np.diff(tl.start[part]) >= 0)
    assert tl.color_counts[Color.AT_RISK] == sum(n for s, n in tl.state_counts.items() if s.color == Color.AT_RISK)


def test_filters(receipts, table) -> None:
    now = to_us(END)
    at_risk = build(table, now, DAY_US, Filters(colors=frozenset({"at-risk"})), grid=False)
    assert set(at_risk.state[at_risk.idx].tolist()) <= {1, 2, 3} and at_risk.runs_shown == \
        at_risk.color_counts[Color.AT_RISK]
    rule = build(table, now, DAY_US, Filters(states=frozenset({"stale_retrieval"})), grid=False)
    assert set(rule.state[rule.idx].tolist()) == {HealthState.STALE_RETRIEVAL.rule}
    scope = build(table, now, DAY_US, Filters(scope="TOMAS / agent:FA"), grid=False)
    assert scope.rows == 1 and scope.lane_name(0) == "user:tomas / agent:farah"
    bad = build(table, now, DAY_US, Filters(source_version=demo.ADAPTER_BAD), grid=False)
    bad_runs = {r.run_id for r in receipts if r.source_version == demo.ADAPTER_BAD}
    assert {table.run_ids[i] for i in bad.idx} == bad_runs and len(bad_runs) >= 10
    assert set(RULE_SEVERITY[bad.state[bad.idx]].tolist()) == {4}  # the bad adapter: every run at risk
    canary = build(table, now, DAY_US, Filters(canary_only=True), grid=False)
    assert canary.rows == 4 and all(table.run_ids[i].startswith("daily-canary") for i in canary.idx)
    since, until = to_us(END - 2 * DAY), to_us(END - DAY)
    ranged = build(table, now, DAY_US, Filters(since_us=since, until_us=until), grid=False)
    assert ranged.runs_shown and np.all(ranged.end >= since) and np.all(ranged.start <= until)
    outside = (table.end < since) | (table.start > until)
    assert ranged.runs_shown == int((~outside).sum())


def test_hit_test_prefers_the_most_severe_run_under_the_pointer(table) -> None:
    tl = build(table, to_us(END), DAY_US, grid=False)
    risky = np.flatnonzero(tl.value == 5)
    pos = int(risky[0])
    row, t = int(tl.row[pos]), int((tl.start[pos] + tl.end[pos]) // 2)
    assert tl.hit(row, t, 0) == tl.idx[pos]
    assert tl.hit(row, t, 6 * 3600 * 1_000_000) in set(tl.idx[tl.value == 5].tolist())  # wide: still the worst
    assert tl.hit(row, int(tl.end[pos]) + 10**9, 10) != tl.idx[pos]
    assert tl.hit(-1, t, 10) is None and tl.hit(tl.rows, t, 10) is None
    found = tl.in_view(row, row + 1, t - 1, t + 1)
    assert pos in found.tolist()
    assert tl.position(int(tl.idx[pos])) == pos


def test_transitions_per_hour_and_occupancy(receipts, table) -> None:
    tl = build(table, to_us(END), DAY_US, grid=False)
    lo, hi = table.span()
    edges, total, risky, hours = tl.transitions(lo, hi + 1)
    done = [r for r in receipts if r.status in ("committed", "verified") and r.tier != "stm"]
    assert round(float(total.sum()) * hours) == len(done)
    assert 0 < risky.sum() < total.sum() and edges[0] <= lo and edges[-1] > hi
    names, counts = tl.occupancy(to_us(END), rows=5)
    assert len(names) == 5 and counts.shape == (5, 4)
    assert counts[:, 3].sum() > 0  # the crash and the bad adapter left memories nowhere


@pytest.mark.parametrize("offset", [-timedelta(days=3, hours=5), -timedelta(hours=2)])
def test_a_cut_says_what_it_left_out_and_when_the_picture_next_changes(receipts, stored, offset) -> None:
    """What the tab says of receipts dated after the evaluated time (the clock), and when it next
    has to judge again without new receipts: a waiting window closing, a run going stale, a
    later receipt starting to count — the first of them, exactly."""
    ws, whole = stored
    now = END + offset
    now_us = to_us(now)
    cut = run_tables.as_of(ws, whole, now_us)
    after = [r for r in receipts if r.at_utc > now]
    assert cut.later == len(after) and cut.later_runs == len({r.run_id for r in after})
    assert cut.later_us == min(to_us(r.at_utc) for r in after)
    upcoming = cut.next_change(now_us, DAY_US)
    assert now_us < upcoming <= cut.later_us
    before, at = cut.states_at(upcoming - 1, DAY_US), cut.states_at(upcoming, DAY_US)
    changed = not np.array_equal(before, at) or upcoming == cut.later_us
    assert changed  # something changes at that instant …
    assert np.array_equal(cut.states_at(now_us, DAY_US), before)  # … and nothing before it


def test_overlapping_runs_of_a_lane_take_sub_tracks_that_never_overlap(table) -> None:
    from memorydesk.lineage.timeline import tracks_of

    tl = build(table, to_us(END), DAY_US, grid=False)
    assert len(tl.track) == tl.runs_shown and (tl.row_tracks >= 1).all()
    overlapping = 0
    for r in range(tl.rows):
        lo, hi = int(tl.row_offsets[r]), int(tl.row_offsets[r + 1])
        for track in range(int(tl.row_tracks[r])):
            mine = lo + np.flatnonzero(tl.track[lo:hi] == track)
            assert (tl.start[mine][1:] > tl.end[mine][:-1]).all()  # apart on one track
        reach = np.maximum.accumulate(tl.end[lo:hi])
        overlapping += int((tl.start[lo:hi][1:] <= reach[:-1]).sum())
    assert overlapping > 0 and int(tl.row_tracks.max()) > 1  # the demo has overlapping runs in a lane
    # the fewest tracks: as many as runs open at once at the busiest moment of the lane (first fit is optimal)
    for r in range(tl.rows):
        lo, hi = int(tl.row_offsets[r]), int(tl.row_offsets[r + 1])
        events = sorted([(int(s), 1) for s in tl.start[lo:hi]] + [(int(e), -1) for e in tl.end[lo:hi]],
                        key=lambda e: (e[0], -e[1]))
        depth = peak = 0
        for _t, step in events:
            depth += step
            peak = max(peak, depth)
        assert int(tl.row_tracks[r]) == peak
    # each group of overlapping runs shares the lane among as many tracks as it needs; a run alone keeps all of it
    for pos in range(tl.runs_shown):
        assert tl.tracks[pos] > tl.track[pos]
    track, tracks, rows = tracks_of(np.array([0, 10, 12, 20]), np.array([5, 15, 18, 25]), np.array([0, 4]))
    assert track.tolist() == [0, 0, 1, 0] and tracks.tolist() == [1, 2, 2, 1] and rows.tolist() == [2]
