"""The health classifier: docs/receipts.md's table, rule by rule and in order."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from fixtures.receipts import NOW, at, complete_lineage, eight_cases, receipt
from memorydesk.core.health.scalar import RunHealth, classify, classify_run, group_by_run
from memorydesk.core.health.table import DEFAULT_FRESH_FOR, Color, HealthState, format_duration, parse_duration
from memorydesk.core.receipts import Receipt, receipt_from_json


def load(rows: list[dict]) -> list[Receipt]:
    return [receipt_from_json(row, line=n) for n, row in enumerate(rows, 1)]


def judge(rows: list[dict], now: datetime = NOW, fresh_for: timedelta = DEFAULT_FRESH_FOR) -> RunHealth:
    [result] = classify(load(rows), now=now, fresh_for=fresh_for)
    return result


def without(row: dict, *keys: str) -> dict:
    return {k: v for k, v in row.items() if k not in keys}


# -- the article's eight cases ------------------------------------------------------

CASES = eight_cases()


@pytest.mark.parametrize("run_id, rows, expected", CASES, ids=[c[0] for c in CASES])
def test_the_eight_cases_of_the_source_article(run_id: str, rows: list[dict], expected: str) -> None:
    result = judge(rows)
    assert result.run_id == run_id
    assert result.state == expected
    assert result.reason.startswith(f"rule {HealthState(expected).rule}: ")


def test_the_eight_cases_together_each_keep_their_state() -> None:
    rows = [row for _, case_rows, _ in CASES for row in case_rows]
    results = classify(load(rows), now=NOW)
    assert [(r.run_id, r.state) for r in results] == sorted((run, state) for run, _, state in CASES)


def test_colors_follow_the_table() -> None:
    assert {state: state.color for state in HealthState} == {
        HealthState.SCOPE_CONFLICT: Color.AT_RISK,
        HealthState.SOURCE_AT_RISK: Color.AT_RISK,
        HealthState.PROMOTION_MISSING: Color.AT_RISK,
        HealthState.STALE_RETRIEVAL: Color.STALE,
        HealthState.GENERATION_UNVERIFIED: Color.UNCERTAIN,
        HealthState.UNCERTAIN: Color.UNCERTAIN,
        HealthState.STALE_EVIDENCE: Color.STALE,
        HealthState.WAITING: Color.WAITING,
        HealthState.HEALTHY: Color.HEALTHY,
    }
    assert [state.rule for state in HealthState] == list(range(1, 10))


def test_reasons_name_the_receipts_that_fired_the_rule() -> None:
    rows = complete_lineage()
    rows[1]["userScope"] = "user-b"
    reason = judge(rows).reason
    assert "'user-a' first in stm/v22/committed (line 1)" in reason
    assert "'user-b' first in mtm/v22/committed (line 2)" in reason
    rows = complete_lineage()
    rows[5]["receiptId"] = "gen-42"
    del rows[5]["outcomeReceipt"]
    assert judge(rows).reason == "rule 5: generation/v22/verified (receipt gen-42) lacks outcomeReceipt"


def test_json_shape() -> None:
    result = judge(complete_lineage())
    assert result.to_json() == {
        "runId": "run-1",
        "state": "healthy",
        "color": "healthy",
        "reason": result.reason,
    }
    assert result.ok


# -- scope conflicts and "a later success never hides an earlier conflict" ------------------


def test_right_user_wrong_shared_assistant_is_a_scope_conflict() -> None:
    rows = complete_lineage()
    rows[4]["assistantScope"] = "assistant-shared"
    result = judge(rows)
    assert result.state == HealthState.SCOPE_CONFLICT
    assert "2 assistantScopes" in result.reason and "userScope" not in result.reason


def test_a_later_success_never_hides_an_earlier_conflict() -> None:
    early_conflict = receipt("stm", "committed", "v21", user="user-b", minutes=-300)
    assert judge([early_conflict, *complete_lineage()]).state == HealthState.SCOPE_CONFLICT
    early_loss = [
        receipt("stm", "committed", "v21", minutes=-300, sourcePresent=False),
        receipt("mtm", "failed", "v21", minutes=-299),
    ]
    assert judge([*early_loss, *complete_lineage()]).state == HealthState.SOURCE_AT_RISK
    early_stale = receipt("retrieval", "verified", "v21", minutes=-25, expectedVersion="v22")
    assert judge([*complete_lineage(), early_stale]).state == HealthState.STALE_RETRIEVAL


# -- rules 2, 3 and 8: promotion out of STM ----------------------------------------------


def test_source_gone_with_mtm_committed_is_fine_and_without_it_at_risk() -> None:
    evicted = receipt("stm", "committed", "v9", minutes=-20, sourcePresent=False)
    assert judge([evicted, receipt("mtm", "committed", "v9", minutes=-21)]).state == HealthState.HEALTHY
    assert judge([evicted, receipt("mtm", "verified", "v9", minutes=-10)]).state == HealthState.HEALTHY
    for status in ("started", "waiting", "failed"):
        assert judge([evicted, receipt("mtm", status, "v9", minutes=-10)]).state == HealthState.SOURCE_AT_RISK
    # Only a durable target of the same version counts.
    assert judge([evicted, receipt("mtm", "committed", "v8", minutes=-10)]).state == HealthState.SOURCE_AT_RISK
    assert judge([evicted, receipt("lpm", "committed", "v8", minutes=-10)]).state == HealthState.SOURCE_AT_RISK
    result = judge([evicted, receipt("mtm", "failed", "v9", minutes=-10)])
    assert "no mtm or lpm receipt of v9 is committed or verified" in result.reason


def test_an_lpm_commit_is_the_durable_target_of_the_direct_consolidation() -> None:
    # The product's own consolidation moves STM straight to LPM (docs/receipts.md).
    evicted = receipt("stm", "committed", "v9", minutes=-20, sourcePresent=False)
    for status in ("committed", "verified"):
        assert judge([evicted, receipt("lpm", status, "v9", minutes=-21)]).state == HealthState.HEALTHY
    for status in ("started", "waiting"):
        assert judge([evicted, receipt("lpm", status, "v9", minutes=-21)]).state == HealthState.SOURCE_AT_RISK
    # rule 3 and 8 alike: a kept source with its lpm commit is neither missing nor waiting
    kept = receipt("stm", "committed", "v9", minutes=-20, sourcePresent=True)
    assert judge([kept]).state == HealthState.PROMOTION_MISSING
    assert judge([kept, receipt("lpm", "committed", "v9", minutes=-19)]).state == HealthState.HEALTHY
    waiting = receipt("stm", "committed", "v9", minutes=-20, waitingUntil=at(60))
    assert judge([waiting]).state == HealthState.WAITING
    assert judge([waiting, receipt("lpm", "verified", "v9", minutes=-19)]).state == HealthState.HEALTHY


def test_a_failed_receipt_is_never_evidence_of_a_commit() -> None:
    evicted = receipt("stm", "committed", "v9", minutes=-20, sourcePresent=False)
    for tier in ("mtm", "lpm"):
        result = judge([evicted, receipt(tier, "failed", "v9", minutes=-21)])
        assert result.state == HealthState.SOURCE_AT_RISK  # rule 2 comes before rule 6
    kept = receipt("stm", "committed", "v9", minutes=-20, waitingUntil=at(-1))
    assert judge([kept, receipt("lpm", "failed", "v9", minutes=-19)]).state == HealthState.PROMOTION_MISSING


def test_a_run_whose_latest_receipt_of_a_tier_and_version_failed_is_uncertain() -> None:
    rows = complete_lineage()
    assert judge(rows).state == HealthState.HEALTHY
    # a failed retry after the commit of the same tier and version: the latest word is "failed"
    failed_later = receipt("lpm", "failed", "v22", minutes=-35, receiptId="lpm-retry")
    result = judge([*rows, failed_later])
    assert result.state == HealthState.UNCERTAIN and result.color == Color.UNCERTAIN
    assert result.reason == "rule 6: the latest lpm receipt of v22, lpm/v22/failed (receipt lpm-retry), is failed"
    # a failure followed by a success of the same tier and version is history, not a doubt
    failed_earlier = receipt("lpm", "failed", "v22", minutes=-45)
    assert judge([*rows, failed_earlier]).state == HealthState.HEALTHY
    # at one instant the failed one counts as the latest (missing evidence is never healthy)
    tied = complete_lineage()
    tied.insert(3, receipt("lpm", "failed", "v22", minutes=-40))  # same time as the lpm commit
    receipts = [receipt_from_json(r) for r in tied]  # no line numbers: a stored run
    assert classify(receipts, now=NOW)[0].state == HealthState.UNCERTAIN
    # a failed generation that rule 5 does not catch, and a failed retrieval
    generation = rows[5] | {"status": "failed"}
    assert judge([*rows[:5], generation]).state == HealthState.UNCERTAIN
    assert judge([*rows, receipt("retrieval", "failed", "v22", minutes=-10)]).state == HealthState.UNCERTAIN


def test_rules_one_to_five_still_come_before_a_failed_receipt() -> None:
    failed = receipt("generation", "failed", "v22", minutes=-5, dependsOnVersion="v22", outcomeReceipt="x")
    rows = complete_lineage()
    rows[1]["userScope"] = "user-b"
    assert judge([*rows, failed]).state == HealthState.SCOPE_CONFLICT
    rows = complete_lineage()
    rows[4]["expectedVersion"] = "v23"
    assert judge([*rows, failed]).state == HealthState.STALE_RETRIEVAL
    rows = complete_lineage()
    del rows[5]["outcomeReceipt"]
    assert judge([*rows, receipt("lpm", "failed", "v22", minutes=-5)]).state == HealthState.GENERATION_UNVERIFIED
    # and it beats the rules after it: stale evidence and waiting
    rows = [*complete_lineage(), receipt("lpm", "failed", "v22", minutes=-5)]
    assert judge(rows, now=NOW + timedelta(days=3)).state == HealthState.UNCERTAIN
    rows.append(receipt("stm", "committed", "v40", minutes=-4, waitingUntil=at(60)))
    assert judge(rows).state == HealthState.UNCERTAIN


def test_the_waiting_window_decides_between_waiting_and_promotion_missing() -> None:
    def kept(until_minutes: float | None, minutes: float = -10) -> dict:
        extra = {} if until_minutes is None else {"waitingUntil": at(until_minutes)}
        return receipt("stm", "committed", "v5", minutes=minutes, sourcePresent=True, **extra)

    assert judge([kept(30)]).state == HealthState.WAITING
    assert judge([kept(0)]).state == HealthState.PROMOTION_MISSING  # closes at now
    assert judge([kept(-1)]).state == HealthState.PROMOTION_MISSING
    assert judge([kept(None)]).state == HealthState.PROMOTION_MISSING  # never declared
    # The latest waitingUntil of the version's stm receipts is its window.
    assert judge([kept(-30, minutes=-40), kept(30)]).state == HealthState.WAITING
    assert judge([kept(30, minutes=-40), kept(-30)]).state == HealthState.WAITING
    assert judge([kept(30), receipt("stm", "committed", "v5", minutes=-5)]).state == HealthState.WAITING
    # Promotion done: neither waiting nor missing.
    assert judge([kept(30), receipt("mtm", "committed", "v5", minutes=-5)]).state == HealthState.HEALTHY


def test_waiting_reason_names_the_window() -> None:
    rows = [receipt("stm", "committed", "v5", minutes=-10, waitingUntil=at(30))]
    assert judge(rows).reason == (
        "rule 8: version v5 waits for promotion until 2025-03-22T12:30:00Z (stm/v5/committed (line 1))"
    )


def test_versions_named_only_at_later_tiers_are_not_expected_in_stm() -> None:
    rows = complete_lineage()
    rows.insert(4, receipt("lpm", "verified", "v23", minutes=-35))  # a newer fact reached LPM elsewhere
    rows[4 + 1]["expectedVersion"] = "v22"
    assert judge(rows).state == HealthState.HEALTHY


def test_a_source_that_is_simply_kept_for_another_version_is_still_judged() -> None:
    rows = [*complete_lineage(), receipt("stm", "committed", "v23", minutes=-15)]
    assert judge(rows).state == HealthState.PROMOTION_MISSING


# -- rule 4: stale retrieval ---------------------------------------------------------------


def memory(version: str, minutes: float, tier: str = "lpm", status: str = "committed") -> dict:
    return receipt(tier, status, version, minutes=minutes)


def retrieval(version: str, minutes: float, status: str = "verified", **fields: object) -> dict:
    return receipt("retrieval", status, version, minutes=minutes, **fields)


def stm_ok(version: str = "v1") -> list[dict]:
    return [
        receipt("stm", "committed", version, minutes=-100, sourcePresent=False),
        receipt("mtm", "committed", version, minutes=-101),
    ]


def test_without_expected_version_the_newest_committed_version_is_expected() -> None:
    base = [*stm_ok("v21"), memory("v21", -60), memory("v22", -40)]
    assert judge([*base, retrieval("v22", -30)]).state == HealthState.HEALTHY
    result = judge([*base, retrieval("v21", -30)])
    assert result.state == HealthState.STALE_RETRIEVAL
    assert "newest version committed or verified at or before it is v22 (lpm/v22/committed (line 4))" in result.reason
    # Only versions committed at or before the retrieval count.
    assert judge([*base, retrieval("v21", -50)]).state == HealthState.HEALTHY
    assert judge([*base, retrieval("v22", -40)]).state == HealthState.HEALTHY
    # With nothing committed before it there is nothing to compare with.
    assert judge([*stm_ok("v21"), retrieval("v7", -200)]).state == HealthState.HEALTHY


def test_numbered_versions_compare_by_their_number() -> None:
    rows = [*stm_ok("v9"), memory("v10", -60), memory("v9", -40), retrieval("v9", -30)]
    assert judge(rows).state == HealthState.STALE_RETRIEVAL  # v10 > v9 although committed earlier
    rows = [*stm_ok("9"), memory(10, -60), memory(9, -40), retrieval(10, -30)]  # type: ignore[arg-type]
    assert judge(rows).state == HealthState.HEALTHY


def test_other_versions_compare_by_when_they_were_first_committed() -> None:
    rows = [*stm_ok("alpha"), memory("beta", -60), memory("alpha", -40), retrieval("alpha", -30)]
    assert judge(rows).state == HealthState.STALE_RETRIEVAL  # alpha first done at -100, beta at -60
    rows = [*stm_ok("v3"), memory("r4", -60), retrieval("r4", -30)]  # two prefixes: by time
    assert judge(rows).state == HealthState.HEALTHY
    rows = [*stm_ok("v3"), memory("r4", -60), retrieval("v3", -30)]
    assert judge(rows).state == HealthState.STALE_RETRIEVAL
    tie = [*stm_ok("x"), memory("a", -60), memory("b", -60)]
    assert judge([*tie, retrieval("a", -30)]).state == HealthState.HEALTHY
    assert judge([*tie, retrieval("b", -30)]).state == HealthState.HEALTHY
    assert judge([*tie, retrieval("x", -30)]).state == HealthState.STALE_RETRIEVAL


def test_only_done_receipts_make_a_version_current() -> None:
    rows = [*stm_ok("v21"), memory("v22", -60, status="started"), memory("v22", -55, status="waiting")]
    assert judge([*rows, retrieval("v21", -30)]).state == HealthState.HEALTHY
    # a failed v22 makes nothing current either: the run is uncertain (rule 6), not stale
    failed = [*stm_ok("v21"), memory("v22", -55, status="failed"), retrieval("v21", -30)]
    result = judge(failed)
    assert result.state == HealthState.UNCERTAIN and "lpm/v22/failed" in result.reason
    # A version held in STM (and still inside its waiting window) is current too.
    held = receipt("stm", "verified", "v22", minutes=-60, waitingUntil=at(60))
    assert judge([*stm_ok("v21"), held, retrieval("v21", -30)]).state == HealthState.STALE_RETRIEVAL


def test_expected_version_overrides_the_newest_rule() -> None:
    rows = [*stm_ok("v21"), memory("v22", -60)]
    assert judge([*rows, retrieval("v21", -30, expectedVersion="v21")]).state == HealthState.HEALTHY
    assert judge([*rows, retrieval("v22", -30, expectedVersion=22)]).state == HealthState.STALE_RETRIEVAL
    as_int = retrieval(22, -30, expectedVersion="22")  # type: ignore[arg-type]
    assert judge([*rows, as_int]).state == HealthState.HEALTHY


def test_a_retrieval_that_did_not_finish_returned_nothing() -> None:
    rows = [*stm_ok("v22"), retrieval("v21", -30, status="started", expectedVersion="v22")]
    assert judge(rows).state == HealthState.HEALTHY
    failed = [*stm_ok("v22"), retrieval("v21", -30, status="failed", expectedVersion="v22")]
    assert judge(failed).state == HealthState.UNCERTAIN  # not stale: it returned nothing, and it failed
    generation = receipt("generation", "verified", "v21", minutes=-20, dependsOnVersion="v21", outcomeReceipt="ok")
    result = judge([*rows, generation])
    assert result.state == HealthState.GENERATION_UNVERIFIED
    assert "depends on v21, which no retrieval of the run returned" in result.reason


# -- rule 5: generation --------------------------------------------------------------------


def test_generation_needs_dependency_and_outcome_and_a_returned_version() -> None:
    rows = complete_lineage()
    assert judge(rows).state == HealthState.HEALTHY
    for key in ("dependsOnVersion", "outcomeReceipt"):
        broken = [*rows[:5], without(rows[5], key)]
        result = judge(broken)
        assert result.state == HealthState.GENERATION_UNVERIFIED and f"lacks {key}" in result.reason
    wrong = [*rows[:5], rows[5] | {"dependsOnVersion": "v23"}]
    assert judge(wrong).state == HealthState.GENERATION_UNVERIFIED


def test_a_started_generation_is_a_progress_marker_once_it_finished() -> None:
    rows = complete_lineage()
    started = receipt("generation", "started", "v22", minutes=-25)
    assert judge([*rows, started]).state == HealthState.HEALTHY
    unfinished = [*rows[:5], started]
    assert judge(unfinished).state == HealthState.GENERATION_UNVERIFIED


# -- rule 6 and 7 -------------------------------------------------------------------------


def test_no_stm_receipt_or_no_source_version_is_uncertain() -> None:
    rows = complete_lineage()
    no_stm = [r for r in rows if r["tier"] != "stm"]
    result = judge(no_stm)
    assert result.state == HealthState.UNCERTAIN and "no stm receipt" in result.reason
    one_missing = [*rows[:3], without(rows[3], "sourceVersion"), *rows[4:]]
    result = judge(one_missing)
    assert result.state == HealthState.UNCERTAIN and result.reason == (
        "rule 6: lpm/v22/committed (line 4) lacks sourceVersion"
    )


def test_stale_evidence_by_expiry() -> None:
    rows = complete_lineage()  # newest receipt 20 minutes before NOW
    assert judge(rows, now=NOW + timedelta(hours=23, minutes=40)).state == HealthState.HEALTHY  # exactly 24 h
    result = judge(rows, now=NOW + timedelta(hours=23, minutes=41))
    assert result.state == HealthState.STALE_EVIDENCE and result.color == Color.STALE
    assert "older than 24h before 2025-03-23T11:41:00Z" in result.reason
    assert judge(rows, now=NOW + timedelta(hours=30), fresh_for=timedelta(hours=48)).state == HealthState.HEALTHY
    assert judge(rows, fresh_for=timedelta(minutes=10)).state == HealthState.STALE_EVIDENCE


# -- precedence --------------------------------------------------------------------------


def test_rule_precedence_first_rule_that_holds_wins() -> None:
    def run(*breakages: str) -> list[dict]:
        rows = complete_lineage()
        for breakage in breakages:
            if breakage == "scope":
                rows[2]["assistantScope"] = "assistant-2"
            elif breakage == "evicted":
                rows += [receipt("stm", "committed", "v30", minutes=-20, sourcePresent=False)]
            elif breakage == "kept":
                rows += [receipt("stm", "committed", "v31", minutes=-20, waitingUntil=at(-5))]
            elif breakage == "stale":
                rows[4]["expectedVersion"] = "v23"
            elif breakage == "unverified":
                del rows[5]["outcomeReceipt"]
            elif breakage == "no-source-version":
                del rows[0]["sourceVersion"]
            elif breakage == "waiting":
                rows += [receipt("stm", "committed", "v32", minutes=-25, waitingUntil=at(60))]
        return rows

    order = ["scope", "evicted", "kept", "stale", "unverified", "no-source-version"]
    for i, first in enumerate(order):
        for later in order[i + 1 :]:
            assert judge(run(first, later)).state.rule == i + 1, (first, later)
            assert judge(run(later, first, "waiting")).state.rule == i + 1, (first, later)
    late = NOW + timedelta(days=2)
    for i, first in enumerate(order):
        assert judge(run(first), now=late).state.rule == i + 1  # 1-6 all beat stale_evidence
    # stale_evidence beats waiting (the window is still open two days later: declared far out).
    rows = complete_lineage() + [receipt("stm", "committed", "v40", minutes=-25, waitingUntil=at(60 * 24 * 7))]
    assert judge(rows).state == HealthState.WAITING
    assert judge(rows, now=late).state == HealthState.STALE_EVIDENCE


def test_missing_evidence_is_never_healthy() -> None:
    assert judge([receipt("retrieval", "verified", minutes=-5)]).state == HealthState.UNCERTAIN
    assert judge([receipt("generation", "verified", minutes=-5)]).state == HealthState.GENERATION_UNVERIFIED


# -- determinism, grouping, API -------------------------------------------------------------


def test_classify_is_deterministic_and_independent_of_input_order() -> None:
    rows = [row for _, case_rows, _ in CASES for row in case_rows]
    receipts = load(rows)
    expected = [(r.run_id, r.state, r.reason) for r in classify(receipts, now=NOW)]
    rnd = random.Random(3)
    for _ in range(5):
        shuffled = receipts[:]
        rnd.shuffle(shuffled)
        assert [(r.run_id, r.state, r.reason) for r in classify(shuffled, now=NOW)] == expected


def test_results_are_sorted_by_run_id_and_grouping_keeps_input_order() -> None:
    rows = [
        receipt("stm", "committed", run="b", minutes=-3),
        receipt("stm", "committed", run="a", minutes=-2),
        receipt("mtm", "committed", run="b", minutes=-1),
    ]
    receipts = load(rows)
    assert [r.run_id for r in classify(receipts, now=NOW)] == ["a", "b"]
    groups = group_by_run(receipts)
    assert list(groups) == ["b", "a"] and [r.line for r in groups["b"]] == [1, 3]
    assert classify([], now=NOW) == []


def test_classify_run_checks_its_input() -> None:
    receipts = load(complete_lineage())
    assert classify_run(receipts, now=NOW).state == HealthState.HEALTHY
    with pytest.raises(ValueError, match="more than one run"):
        classify_run([*receipts, *load([receipt("stm", "committed", run="other")])], now=NOW)
    with pytest.raises(ValueError, match="at least one"):
        classify_run([], now=NOW)
    with pytest.raises(ValueError, match="timezone-aware"):
        classify(receipts, now=datetime(2025, 3, 22, 12))
    with pytest.raises(ValueError, match="positive"):
        classify(receipts, now=NOW, fresh_for=timedelta(0))


def test_now_in_another_zone_is_the_same_instant() -> None:
    from datetime import timezone

    berlin = NOW.astimezone(timezone(timedelta(hours=1)))
    assert classify(load(complete_lineage()), now=berlin) == classify(load(complete_lineage()), now=NOW)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("24h", timedelta(hours=24)),
        ("90m", timedelta(minutes=90)),
        ("2d", timedelta(days=2)),
        ("3600s", timedelta(hours=1)),
    ],
)
def test_parse_duration(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "24", "h", "1.5h", "-2h", "0h", "2w", "24 h", "1h30m"])
def test_parse_duration_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_format_duration_reads_back() -> None:
    for span, text in [
        (timedelta(hours=24), "24h"),
        (timedelta(days=2), "2d"),
        (timedelta(minutes=90), "90m"),
        (timedelta(seconds=61), "61s"),
    ]:
        assert format_duration(span) == text and parse_duration(text) == span


def test_group_by_run_is_one_pass_over_an_iterator() -> None:
    receipts = load([receipt("stm", "committed", run=f"r{i % 3}") for i in range(9)])
    groups = group_by_run(iter(receipts))
    assert {k: len(v) for k, v in groups.items()} == {"r0": 3, "r1": 3, "r2": 3}
    assert at(0) == "2025-03-22T12:00:00Z" and NOW.tzinfo is UTC
