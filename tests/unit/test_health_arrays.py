"""The clock step over columns (``states_at``, the one place the rules' order is decided) gives
the table's states at any time and window: the states the rules written out again
(``health_oracle``) give, and the states ``classify`` reports with their reasons."""

from __future__ import annotations

import random
from datetime import timedelta

import numpy as np

from fixtures.receipts import NOW, at, complete_lineage, eight_cases, receipt
from health_oracle import state_at
from memorydesk.core.health.arrays import states_at
from memorydesk.core.health.reasons import gather
from memorydesk.core.health.scalar import as_of, classify, group_by_run
from memorydesk.core.health.table import RULE_SEVERITY, HealthState
from memorydesk.core.receipt_codes import from_us, to_us
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage.runs import table_of

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
                            user=rnd.choice(("user-a",) * 9 + ("user-b",)),
                            minutes=rnd.choice((-3000, -90, -60, -5, 0, 10)),
                            **fields))
    run = rows[0]["runId"]
    for row in rows:
        row["runId"] = run
    return rows


def test_states_at_equals_the_table_at_every_time_and_window() -> None:
    rnd = random.Random(11)
    rows = [row for _ in range(150) for row in random_run(rnd, rnd.randint(1, 8))]
    rows += [row for _, case, _ in eight_cases() for row in case]
    receipts = [receipt_from_json(r, line=n) for n, r in enumerate(rows, 1)]
    runs = group_by_run(receipts)
    ids = sorted(runs)
    table = table_of(receipts)
    cols = table.clock.take(np.asarray([table.index[i] for i in ids]))
    found = [gather(runs[i]) for i in ids]
    # times on and around every boundary the clock step compares with
    edges = sorted({t for e in found for t in [e.newest.at_utc + timedelta(hours=24), *(w.until for w in e.windows)]})
    moments = {NOW, NOW + timedelta(days=5), NOW - timedelta(days=2)}
    for t in rnd.sample(edges, min(25, len(edges))):
        moments |= {t, t - timedelta(microseconds=1), t + timedelta(microseconds=1)}
    windows = (timedelta(hours=24), timedelta(minutes=30), timedelta(days=3))
    seen = set()
    for now in sorted(moments):
        for fresh in windows:
            got = states_at(cols, to_us(now), fresh // timedelta(microseconds=1))
            expected = [state_at(e, now, fresh) for e in found]  # the table, rule by rule, on the same evidence
            assert got.tolist() == expected, now
            seen |= set(expected)
    assert seen == {s.rule for s in HealthState}  # every rule was exercised


def test_classify_reports_the_columns_state_with_the_reason_of_that_rule() -> None:
    """``classify`` (the run detail, ``lineage classify``, the canary) decides through the columns,
    and the reason names the rule it decided: every state, cut at its own time."""
    rnd = random.Random(3)
    rows = [row for _ in range(200) for row in random_run(rnd, rnd.randint(1, 8))]
    receipts = [receipt_from_json(r, line=n) for n, r in enumerate(rows, 1)]
    seen = set()
    for now in (NOW - timedelta(minutes=61), NOW, NOW + timedelta(hours=2), NOW + timedelta(days=3)):
        for fresh in (timedelta(hours=24), timedelta(minutes=30)):
            runs = group_by_run(as_of(receipts, now))
            for health in classify(receipts, now=now, fresh_for=fresh):
                rule = state_at(gather(runs[health.run_id]), now, fresh)
                assert (health.state.rule, health.reason.split(":")[0]) == (rule, f"rule {rule}")
                seen.add(health.state)
    assert seen == set(HealthState)


def test_a_run_read_once_changes_state_as_the_clock_moves() -> None:
    waiting = [receipt("stm", "committed", "v5", minutes=-10, waitingUntil=at(60))]
    complete = complete_lineage("run-2")  # newest receipt 20 minutes before NOW
    receipts = [receipt_from_json(r) for r in waiting + complete]
    table = table_of(receipts)
    cols = table.clock.take(np.asarray([table.index[k] for k in sorted(table.index)]))
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
