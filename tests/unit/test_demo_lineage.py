"""The demo's four weeks of receipts: every state, the crash, the bad adapter, the canary,
a lone sub-pixel loss — deterministic, and stored in the demo workspace."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memorydesk.core.health.scalar import classify
from memorydesk.core.health.table import Color, HealthState
from memorydesk.demo import lineage as demo
from memorydesk.demo.builder import build_demo
from memorydesk.lineage import receipt_store
from memorydesk.store import open_workspace

END = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def receipts() -> list:
    return demo.history(7, END)


@pytest.fixture(scope="module")
def found(receipts) -> dict:
    return {v.run_id: v for v in classify(receipts, now=END)}


def test_the_history_is_deterministic_and_realistic_in_size(receipts) -> None:
    first, again = receipts, demo.history(7, END)
    assert [r.to_json() for r in first] == [r.to_json() for r in again]
    assert [r.to_json() for r in demo.history(8, END)] != [r.to_json() for r in first]
    runs = {r.run_id for r in first}
    assert 2_500 <= len(runs) <= 4_000
    span = max(r.at_utc for r in first) - min(r.at_utc for r in first)
    assert timedelta(days=27) < span <= timedelta(days=28, hours=1)
    assert max(r.at_utc for r in first) <= END
    lanes = {(r.user_scope, r.assistant_scope) for r in first}
    assert 15 <= len(lanes) <= 40


def test_every_state_and_colour_is_present_at_the_end(found) -> None:
    assert {v.state for v in found.values()} == set(HealthState)
    colors = Counter(v.color for v in found.values())
    assert set(colors) == set(Color) and colors[Color.WAITING] >= 5 and colors[Color.HEALTHY] >= 20


def test_the_crash_the_bad_adapter_and_the_lone_loss(receipts, found) -> None:
    bad = {r.run_id for r in receipts if r.source_version == demo.ADAPTER_BAD}
    assert len(bad) >= 10 and all(found[run].color == Color.AT_RISK for run in bad)
    crash = END - timedelta(days=9, hours=5)
    burst = {r.run_id for r in receipts if crash <= r.at_utc <= crash + timedelta(minutes=45)
             and found[r.run_id].color == Color.AT_RISK}
    assert len(burst) >= 20
    assert {found[run].state for run in burst} == {HealthState.SOURCE_AT_RISK, HealthState.PROMOTION_MISSING}
    quiet_runs = {r.run_id for r in receipts if (r.user_scope, r.assistant_scope) == ("user:tomas", "agent:farah")}
    quiet = [found[run] for run in quiet_runs]
    assert [v.color for v in quiet].count(Color.AT_RISK) == 1


def test_the_daily_canary_is_marked(receipts) -> None:
    canary = {r.run_id for r in receipts if r.canary}
    assert len(canary) == 4 * demo.DAYS
    assert all(r.canary for r in receipts if r.run_id in canary)
    assert {r.user_scope for r in receipts if r.run_id in canary} == set(demo.CANARY_USERS)


def test_the_demo_workspace_holds_the_history(tmp_path: Path, receipts) -> None:
    now = int(END.timestamp())
    path = tmp_path / "demo.db"
    summary = build_demo(path, facts=200, seed=7, now=now, embed=0, bulk=False)
    with open_workspace(path, read_only=True) as ws:
        stored = receipt_store.load(ws)
    assert [r.to_json() for r in stored] == [r.to_json() for r in receipts]
    assert summary.counts["receipts"] == len(stored) and summary.counts["runs"] == len({r.run_id for r in stored})
    assert any("lineage receipts" in line for line in summary.lines())
