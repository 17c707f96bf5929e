"""The rules over columns (the desk's one implementation) find, run by run, what the rules
written out again over receipt objects find (``health_oracle``, over what the reasons read):
the two ways agree on every clock-free finding, and the reason names the receipts of the
state decided."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_health_arrays import STATUSES, TIERS, random_run

from fixtures.receipts import at, eight_cases, receipt
from health_oracle import numbers
from memorydesk.core.health.arrays import ClockColumns
from memorydesk.core.health.reasons import gather
from memorydesk.core.health.scalar import group_by_run
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage.runs import table_of

NUMBERED = ("v1", "v2", "v10", "v01", "v3")


def tied_run(rnd: random.Random) -> list[dict]:
    """A run of numbered versions (one prefix) at a handful of instants: ties, "newest by
    number", failed and committed receipts of one tier and version at one time."""
    run = f"t{rnd.random()}"
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

FIELDS = ("fixed", "closes", "middle", "newest", "waits")


def compare(rows: list[dict], lines: bool) -> set[int]:
    receipts = [receipt_from_json(r, line=n if lines else None) for n, r in enumerate(rows, 1)]
    runs = group_by_run(receipts)
    table = table_of(receipts)
    order = [table.index[run_id] for run_id in sorted(runs)]
    vector = table.clock.take(np.asarray(order))
    scalar = ClockColumns(*(np.asarray(column) for column in zip(*(numbers(gather(runs[run_id]))
                                                                   for run_id in sorted(runs)))))
    for name in FIELDS:
        got, want = getattr(vector, name), getattr(scalar, name)
        bad = np.flatnonzero(got != want)
        assert not len(bad), (name, sorted(runs)[bad[0]], got[bad[0]], want[bad[0]], runs[sorted(runs)[bad[0]]])
    return set(scalar.fixed.tolist()) | set(scalar.middle.tolist())


@pytest.mark.parametrize("seed", range(6))
def test_random_runs_match_the_scalar_rules(seed: int) -> None:
    rnd = random.Random(seed)
    rows = [row for _ in range(300) for row in random_run(rnd, rnd.randint(1, 9))]
    found = compare(rows, lines=seed % 2 == 0)
    assert found >= {0, 1, 2, 3, 4, 5, 6}  # every clock-free rule came up


@pytest.mark.parametrize("lines", [True, False])
def test_ties_and_numbered_versions_match(lines: bool) -> None:
    rnd = random.Random(5)
    compare([row for _ in range(1500) for row in tied_run(rnd)], lines=lines)


def test_a_failed_receipt_tied_with_a_commit_is_the_latest() -> None:
    base = [receipt("stm", "committed", "v1", minutes=-50, sourcePresent=False),
            receipt("mtm", "committed", "v1", minutes=-51)]
    for order in ("failed last", "failed first"):
        tie = [receipt("lpm", "committed", "v1", minutes=-40), receipt("lpm", "failed", "v1", minutes=-40)]
        if order == "failed first":
            tie.reverse()
        assert compare(base + tie, lines=False) == {0, 6}


def test_progress_markers_and_proofs_of_generations() -> None:
    from fixtures.receipts import complete_lineage

    rows = complete_lineage("marker") + [receipt("generation", "started", "v22", run="marker", minutes=-25)]
    unfinished = complete_lineage("unfinished")[:5] + [receipt("generation", "started", "v22", run="unfinished",
                                                               minutes=-25)]
    failed = complete_lineage("failed-gen")
    failed[5]["status"] = "failed"
    other = complete_lineage("depends-elsewhere")
    other[5]["dependsOnVersion"] = "v9"
    assert compare(rows + unfinished + failed + other, lines=True) == {0, 5, 6}


def test_the_article_cases_match() -> None:
    compare([row for _, case, _ in eight_cases() for row in case], lines=True)
