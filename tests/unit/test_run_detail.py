"""One run explained: receipts in time order, the swimlane's marks, what to reconcile."""

from __future__ import annotations

from datetime import timedelta

from fixtures.receipts import NOW, at, complete_lineage, eight_cases, receipt
from memorydesk.core.health.scalar import classify_run
from memorydesk.core.health.table import Color, HealthState
from memorydesk.core.receipts import TIERS, receipt_from_json
from memorydesk.lineage.run_detail import MARKS, explain

DAY = timedelta(hours=24)
CASES = {run: rows for run, rows, _ in eight_cases()}


def detail(rows: list[dict], now=NOW):
    receipts = [receipt_from_json(r, line=n) for n, r in enumerate(rows, 1)]
    return explain(receipts, now, DAY)


def marks(d) -> dict[tuple[str, str], str]:
    return {(s.tier, lane.version): s.mark for lane in d.versions for s in lane.steps if s.mark}


def test_health_is_the_classifiers_and_receipts_come_in_time_order() -> None:
    rows = list(reversed(complete_lineage()))
    d = detail(rows)
    receipts = [receipt_from_json(r, line=n) for n, r in enumerate(rows, 1)]
    assert d.health == classify_run(receipts, now=NOW)
    assert [r.at_utc for r in d.receipts] == sorted(r.at_utc for r in receipts)
    assert [s.tier for s in d.versions[0].steps] == list(TIERS)
    assert [s.status for s in d.versions[0].steps] == ["committed", "committed", "committed", "verified", "verified"]
    assert not marks(d) and not d.reconcile and d.advice == ""


def test_the_missing_step_is_marked() -> None:
    assert marks(detail(CASES["case-3-stm-evicted"])) == {("mtm", "v9"): "lost"}
    assert marks(detail(CASES["case-4-no-promotion"])) == {("mtm", "v4"): "missing"}
    assert marks(detail(CASES["case-2-capacity-not-reached"])) == {("mtm", "v7"): "pending"}
    assert marks(detail(CASES["case-7-fluent-answer"])) == {("generation", "v22"): "unproven"}
    # the old version came back, so the generation's v22 was never returned either
    assert marks(detail(CASES["case-6-old-version"])) == {("retrieval", "v21"): "stale",
                                                          ("retrieval", "v22"): "not-returned"}
    no_stm = [r for r in complete_lineage() if r["tier"] != "stm"]
    assert marks(detail(no_stm)) == {("stm", "v22"): "no-stm"}
    wrong = complete_lineage()
    wrong[5]["dependsOnVersion"] = "v30"
    d = detail(wrong)
    assert marks(d) == {("retrieval", "v30"): "not-returned"} and [v.version for v in d.versions] == ["v22", "v30"]
    stale = [*complete_lineage()[:4], receipt("lpm", "committed", "v23", minutes=-35),
             receipt("retrieval", "verified", "v22", minutes=-30)]
    d = detail(stale)
    assert d.health.state == HealthState.STALE_RETRIEVAL and marks(d) == {("retrieval", "v22"): "stale"}
    assert set(MARKS) >= {m for m in marks(d).values()}


def test_at_risk_runs_say_what_to_reconcile_and_never_suggest_retrying() -> None:
    for run in ("case-3-stm-evicted", "case-4-no-promotion", "case-5-other-user"):
        d = detail(CASES[run])
        assert d.health.color == Color.AT_RISK
        assert d.reconcile and all(r == run for r, _v in d.reconcile)
        assert "retry" not in d.advice.lower() and "try again" not in d.advice.lower()
        assert d.advice.startswith(f"Reconcile {run} · ")
    assert detail(CASES["case-3-stm-evicted"]).reconcile == [("case-3-stm-evicted", "v9")]
    conflict = detail(CASES["case-5-other-user"])
    assert "userScopes user-a, user-b" in conflict.advice
    for run in ("case-1-complete", "case-6-old-version", "case-8-no-implementation-version"):
        assert detail(CASES[run]).reconcile == []


def test_a_window_that_closed_later_turns_pending_into_missing() -> None:
    rows = [receipt("stm", "committed", "v5", minutes=-10, waitingUntil=at(30))]
    assert marks(detail(rows)) == {("mtm", "v5"): "pending"}
    later = detail(rows, now=NOW + timedelta(hours=1))
    assert marks(later) == {("mtm", "v5"): "missing"} and later.reconcile == [("run-1", "v5")]
