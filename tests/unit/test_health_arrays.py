"""The vectorised clock step gives the classifier's own states, at any time and window."""

from __future__ import annotations

import random
from datetime import timedelta

import numpy as np

from fixtures.receipts import NOW, at, complete_lineage, eight_cases, receipt
from memorydesk.core.health.arrays import RULE_SEVERITY, ClockColumns, from_us, states_at, to_us
from memorydesk.core.health.scalar import HealthState, assess, group_by_run
from memorydesk.core.receipts import receipt_from_json

VERSIONS = ("v1", "v2", "v10", "v01", "alpha", "7", "x9")
TIERS = ("stm", "mtm", "lpm", "retrieval", "generation")
STATUSES = ("started", "waiting", "committed", "verified", "failed")


def random_run(rnd: random.Random, n: int) -> list[dict]:
    """A run of ``n`` receipts drawn from small alphabets, so rules collide and times tie."""
    rows = []
    for _ in range(n):
        fields: dict = {}
        if rnd.random() < 0.5:
            fields["sourcePresent"] = rnd.random() < 0.5
        if rnd.random() < 0.4:
            fields["waitingUntil"] = at(rnd.choice((-120, -30, 0, 30, 600)))
        if rnd.random() < 0.3:
            fields["expectedVersion"] = rnd.choice(VERSIONS)
        if rnd.random() < 0.5:
            fields["dependsOnVersion"] = rnd.choice(VERSIONS)
        if rnd.random() < 0.6:
            fields["outcomeReceipt"] = "ok"
        if rnd.random() < 0.05:
            fields["sourceVersion"] = None
        rows.append(receipt(rnd.choice(TIERS), rnd.choice(STATUSES), rnd.choice(VERSIONS), run=f"r{rnd.random()}",
                            user=rnd.choice(("user-a",) * 9 + ("user-b",)), minutes=rnd.choice((-3000, -90, -60, -5, 0, 10)),
                            **fields))
    run = rows[0]["runId"]
    for row in rows:
        row["runId"] = run
    return rows


def test_states_at_equals_the_classifier_at_every_time_and_window() -> None:
    rnd = random.Random(11)
    rows = [row for _ in range(150) for row in random_run(rnd, rnd.randint(1, 8))]
    rows += [row for _, case, _ in eight_cases() for row in case]
    receipts = [receipt_from_json(r, line=n) for n, r in enumerate(rows, 1)]
    runs = group_by_run(receipts)
    ids = sorted(runs)
    assessments = [assess(runs[i]) for i in ids]
    cols = ClockColumns.of(assessments)
    # times on and around every boundary the clock step compares with
    edges = sorted({t for a in assessments for t in (a.closes_at, a.newest_at + timedelta(hours=24)) if t})
    moments = {NOW, NOW + timedelta(days=5), NOW - timedelta(days=2)}
    for t in rnd.sample(edges, min(25, len(edges))):
        moments |= {t, t - timedelta(microseconds=1), t + timedelta(microseconds=1)}
    windows = (timedelta(hours=24), timedelta(minutes=30), timedelta(days=3))
    seen = set()
    for now in sorted(moments):
        for fresh in windows:
            got = states_at(cols, to_us(now), fresh // timedelta(microseconds=1))
            # the clock step on the same evidence (classify() cuts the receipts at now first)
            expected = [a.at(now, fresh).state.rule for a in assessments]
            assert got.tolist() == expected, now
            seen |= set(expected)
    assert seen == {s.rule for s in HealthState}  # every rule was exercised


def test_a_run_read_once_changes_state_as_the_clock_moves() -> None:
    waiting = [receipt("stm", "committed", "v5", minutes=-10, waitingUntil=at(60))]
    complete = complete_lineage("run-2")  # newest receipt 20 minutes before NOW
    receipts = [receipt_from_json(r) for r in waiting + complete]
    runs = group_by_run(receipts)
    cols = ClockColumns.of([assess(runs[k]) for k in sorted(runs)])
    day = 86_400_000_000
    assert states_at(cols, to_us(NOW), day).tolist() == [HealthState.WAITING.rule, HealthState.HEALTHY.rule]
    later = to_us(NOW + timedelta(hours=1))  # the window closes exactly now: promotion_missing
    assert states_at(cols, later, day).tolist()[1] == HealthState.HEALTHY.rule
    assert states_at(cols, later, day).tolist()[0] == HealthState.PROMOTION_MISSING.rule
    next_day = to_us(NOW + timedelta(hours=24))
    assert states_at(cols, next_day, day).tolist() == [HealthState.PROMOTION_MISSING.rule,
                                                        HealthState.STALE_EVIDENCE.rule]


def test_microseconds_round_trip_and_severity_table() -> None:
    moment = NOW + timedelta(microseconds=123457)
    assert from_us(to_us(moment)) == moment
    assert to_us(NOW) % 1_000_000 == 0
    assert RULE_SEVERITY[HealthState.SOURCE_AT_RISK.rule] == 4 and RULE_SEVERITY[HealthState.HEALTHY.rule] == 0
    assert RULE_SEVERITY[HealthState.STALE_EVIDENCE.rule] == 3 and RULE_SEVERITY[HealthState.UNCERTAIN.rule] == 2
    assert np.array_equal(np.unique(RULE_SEVERITY[1:]), np.arange(5))
