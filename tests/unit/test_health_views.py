"""Every state, both ways: a run stored in the workspace has the same state and colour on the
Lineage timeline (the runs read as columns from the store, judged by ``timeline.build``) and in
its run detail (``run_detail.read_detail``: the classifier with its reason), and the reason
names the rule of that state."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from fixtures.receipts import NOW, complete_lineage, eight_cases
from memorydesk.core.health.table import RULE_SEVERITY, HealthState
from memorydesk.core.receipt_codes import to_us
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage import receipt_store, timeline
from memorydesk.lineage.run_detail import read_detail
from memorydesk.lineage.run_reads import load_runs
from memorydesk.store import open_workspace

DAY = timedelta(hours=24)
#: a run per state: the article's eight cases, and a complete run whose newest receipt is two days old
RUNS = {HealthState(state): (run, rows) for run, rows, state in eight_cases()}
RUNS[HealthState.STALE_EVIDENCE] = ("old-run", complete_lineage("old-run", now=NOW - 2 * DAY))


def test_there_is_a_run_for_every_state() -> None:
    assert set(RUNS) == set(HealthState)


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("views") / "ws.db"
    rows = [row for _run, case in RUNS.values() for row in case]
    with open_workspace(path, create=True) as ws:
        receipt_store.ingest(ws, [receipt_from_json(r, line=n) for n, r in enumerate(rows, 1)])
    return path


@pytest.mark.parametrize("state", list(HealthState))
def test_the_timeline_and_the_run_detail_agree(stored: Path, state: HealthState) -> None:
    run_id, _rows = RUNS[state]
    with open_workspace(stored, read_only=True) as ws:
        tl = timeline.build(load_runs(ws), to_us(NOW), DAY // timedelta(microseconds=1), grid=False)
        detail = read_detail(ws, run_id, NOW, DAY)
    run = tl.table.index[run_id]
    on_timeline = HealthState.of_rule(int(tl.state[run]))
    assert on_timeline == state and int(tl.severity[run]) == RULE_SEVERITY[state.rule]
    assert detail is not None and detail.health.state == state and detail.health.color == state.color
    assert detail.health.reason.startswith(f"rule {state.rule}: ")
