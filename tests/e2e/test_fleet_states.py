"""The engine's states equal the classifier's: the health rules as ClickHouse runs them
(``lineage.fleet.rules``, the clock step and the rules' order generated from the rules' table) give
every run the state ``core.health.scalar.classify`` gives the same receipts — over every case of the
shipped example, the classifier's own cases, runs built to make the rules collide, and spans of
another memory system — on chDB, at moments before, on and after every boundary the clock compares."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

import pytest

from fixtures.clickhouse_traces import ChdbTarget, exporter_row, sdk_spans_of
from fixtures.receipts import NOW, at, eight_cases, receipt
from memorydesk.core.health.reasons import gather
from memorydesk.core.health.scalar import classify, group_by_run
from memorydesk.core.health.table import HealthState
from memorydesk.core.receipt_codes import from_us, to_us
from memorydesk.core.receipts import parse_utc, receipt_from_json
from memorydesk.lineage.fleet import queries
from memorydesk.lineage.fleet.read import read_receipts, read_window, state_counts
from memorydesk.lineage.fleet.source import parse_source
from memorydesk.lineage.jsonl import parse_jsonl
from unit.test_health_arrays import STATUSES, TIERS, random_run

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "receipts.jsonl"
DAY_US = 86_400_000_000
OTHER_SYSTEM = [  # another memory system's spans: only the conventions' names (derived receipts)
    {"gen_ai.operation.name": "update_memory", "gen_ai.memory.record.id": "m-1", "gen_ai.memory.store.id": "s"},
    {"gen_ai.operation.name": "search_memory", "gen_ai.memory.record.id": "m-1"},
    {"gen_ai.operation.name": "delete_memory", "error.type": "timeout"},
]


NUMBERED = ("v1", "v2", "v10", "v01", "v3")


def numbered_run(rnd: random.Random) -> list[dict]:
    """Numbered versions of one prefix at a few instants: ties and "newest by number" (rule 4)."""
    run = f"n{rnd.random()}"
    rows = []
    for _ in range(rnd.randint(2, 10)):
        fields: dict = {}
        if rnd.random() < 0.3:
            fields["expectedVersion"] = rnd.choice(NUMBERED)
        if rnd.random() < 0.3:
            fields["sourcePresent"] = rnd.random() < 0.5
        if rnd.random() < 0.2:
            fields["waitingUntil"] = at(rnd.choice((-10, 20)))
        rows.append(receipt(rnd.choice(TIERS[:4]), rnd.choice(STATUSES[2:]), rnd.choice(NUMBERED), run=run,
                            minutes=rnd.choice((-30, -20, -10)), dependsOnVersion=rnd.choice(NUMBERED),
                            outcomeReceipt="ok", **fields))
    return rows


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory):
    """The cases written into the exporter's table as the Collector writes them, and what the desk
    reads back from it (the receipts the classifier judges)."""
    rnd = random.Random(40)
    rows = [row for _, case, _ in eight_cases() for row in case]
    rows += [row for _ in range(120) for row in random_run(rnd, rnd.randint(1, 8))]
    rows += [row for _ in range(40) for row in numbered_run(rnd)]
    receipts = parse_jsonl(EXAMPLE.read_text(encoding="utf-8"))
    receipts += [receipt_from_json(r, line=n) for n, r in enumerate(rows, 1)]
    folder = tmp_path_factory.mktemp("states") / "clickhouse"
    folder.mkdir()
    target = ChdbTarget(folder)
    target.write([exporter_row(span) for span in sdk_spans_of(receipts, extra=OTHER_SYSTEM)])
    source = parse_source(target.name)
    return source, read_receipts(source)


def moments(receipts) -> list:
    """The example's and the cases' times, and around every boundary the clock step compares."""
    found = [gather(run) for run in group_by_run(receipts).values()]
    edges = {t for e in found for t in [e.newest.at_utc + timedelta(hours=24), *(w.until for w in e.windows)]}
    rnd = random.Random(7)
    out = {NOW, NOW + timedelta(days=5), parse_utc("2099-12-31T10:00:00Z"), parse_utc("2099-12-31T09:05:00Z")}
    for t in rnd.sample(sorted(edges), min(12, len(edges))):
        out |= {t, t - timedelta(microseconds=1), t + timedelta(microseconds=1)}
    return sorted(out)


def test_every_run_gets_the_classifiers_state_from_the_engine(fleet) -> None:
    source, receipts = fleet
    assert any(r.run_id.startswith("trace:") for r in receipts)  # another system's spans are among them
    judged_states = set()
    for now in moments(receipts):
        want = {h.run_id: h.state.rule for h in classify(receipts, now=now)}
        with source.open() as engine:
            rows = engine.arrow(queries.run_states(source, to_us(now), DAY_US)).to_pylist()
        got = {row["run"]: row["state"] for row in rows}
        assert got == want, (now, {r: (got.get(r), want.get(r)) for r in set(got) | set(want)
                                   if got.get(r) != want.get(r)})
        judged_states |= set(want.values())
    assert judged_states == {s.rule for s in HealthState}  # every rule decided some run at some moment


def test_the_windows_counts_per_state_lane_and_source_version_are_the_classifiers(fleet) -> None:
    source, receipts = fleet
    since, until = to_us(NOW) - 2 * 3_600_000_000, to_us(NOW)
    for now_us in (until, until - 1_800_000_000):
        with source.open() as engine:
            window, mine = read_window(source, since, until, keep=True, engine=engine)
            counted = state_counts(engine, since, until, now_us, DAY_US)
        seen = [r for r in mine if to_us(r.at_utc) <= now_us]
        health = {h.run_id: h.state for h in classify(seen, now=from_us(now_us))}
        by_run = group_by_run(seen)
        want_states: dict = {}
        want_lanes: dict = {}
        want_sources: dict = {}
        for run_id, state in health.items():
            want_states[state] = want_states.get(state, 0) + 1
            for lane in {f"{r.user_scope} / {r.assistant_scope}" for r in by_run[run_id]}:
                want_lanes[lane, state] = want_lanes.get((lane, state), 0) + 1
            for version in {r.source_version or "" for r in by_run[run_id]}:
                want_sources[version, state] = want_sources.get((version, state), 0) + 1
        assert len(health) > 20 and len(want_states) > 3
        assert counted.states == want_states
        assert counted.lanes == want_lanes
        assert counted.sources == want_sources
