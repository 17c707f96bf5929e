"""The receipt contract: required fields, types, UTC times, and no content."""

from __future__ import annotations

import gc
from datetime import UTC, datetime, timedelta, timezone

import pytest

from fixtures.receipts import receipt
from memorydesk.core.errors import BadInput
from memorydesk.core.receipts import (
    CONTRACT_FIELDS,
    REQUIRED_FIELDS,
    STATUSES,
    TIERS,
    Receipt,
    format_utc,
    gc_paused,
    normalize_version,
    parse_utc,
    receipt_from_json,
)


def full() -> dict:
    return receipt(
        "generation",
        "verified",
        "v22",
        receiptId="r-1",
        sourcePresent=True,
        waitingUntil="2025-03-22T13:00:00Z",
        expectedVersion="v22",
        dependsOnVersion="v22",
        outcomeReceipt="sha256:abc",
        canary=True,
    )


def test_a_full_receipt_reads_into_typed_fields() -> None:
    r = receipt_from_json(full(), line=4)
    assert r.run_id == "run-1" and r.user_scope == "user-a" and r.assistant_scope == "assistant-1"
    assert (r.tier, r.status, r.version) == ("generation", "verified", "v22")
    assert r.at_utc == datetime(2025, 3, 22, 11, 30, tzinfo=UTC)
    assert r.waiting_until == datetime(2025, 3, 22, 13, 0, tzinfo=UTC)
    assert r.source_present is True and r.canary is True
    assert (r.expected_version, r.depends_on_version, r.outcome_receipt) == ("v22", "v22", "sha256:abc")
    assert r.receipt_id == "r-1" and r.source_version == "memorydesk 0.3.0"
    assert r.line == 4 and r.extensions == {}


def test_a_minimal_receipt_leaves_optional_fields_unstated() -> None:
    r = receipt_from_json(receipt("stm", "started", sourceVersion=None))
    assert r.source_version is None and r.source_present is None and r.waiting_until is None
    assert r.expected_version is None and r.receipt_id is None and r.canary is None and r.line is None


def test_null_optional_fields_mean_not_stated() -> None:
    r = receipt_from_json(receipt("stm", "started") | {"sourcePresent": None, "receiptId": None})
    assert r.source_present is None and r.receipt_id is None


def test_export_is_camel_case_in_contract_order_and_round_trips() -> None:
    wire = full() | {"x-trace": {"span": 3}, "x-a": 1}
    r = receipt_from_json(wire)
    out = r.to_json()
    assert list(out) == [k for k in CONTRACT_FIELDS if k in wire] + ["x-a", "x-trace"]
    assert out["atUtc"] == "2025-03-22T11:30:00Z"
    assert receipt_from_json(out) == r


def test_receipts_are_frozen_and_compare_by_value_not_by_line() -> None:
    a = receipt_from_json(full(), line=1)
    b = receipt_from_json(full(), line=9)
    assert a == b and hash(a) == hash(b)
    with pytest.raises(AttributeError):
        a.tier = "stm"  # type: ignore[misc]


@pytest.mark.parametrize("value, expected", [("v22", "v22"), (22, "22"), ("22", "22"), (0, "0"), (-1, "-1")])
def test_versions_are_strings_or_integers_compared_as_strings(value: object, expected: str) -> None:
    r = receipt_from_json(receipt("stm", "committed", value, expectedVersion=value, dependsOnVersion=value))
    assert r.version == r.expected_version == r.depends_on_version == expected
    assert r.to_json()["version"] == expected


@pytest.mark.parametrize("value", [True, 2.5, "", [1], {"v": 1}])
@pytest.mark.parametrize("key", ["version", "expectedVersion", "dependsOnVersion"])
def test_versions_of_other_types_are_refused(key: str, value: object) -> None:
    with pytest.raises(BadInput, match=key):
        receipt_from_json(receipt("retrieval", "verified") | {key: value})


@pytest.mark.parametrize("key", REQUIRED_FIELDS)
def test_each_required_field_is_required(key: str) -> None:
    wire = receipt("stm", "committed")
    del wire[key]
    with pytest.raises(BadInput, match=f"missing required field {key}"):
        receipt_from_json(wire)
    with pytest.raises(BadInput, match=f"missing required field {key}"):
        receipt_from_json(receipt("stm", "committed") | {key: None})


def test_all_missing_required_fields_are_named_at_once() -> None:
    with pytest.raises(BadInput, match="missing required fields runId, tier, atUtc"):
        receipt_from_json({"userScope": "u", "assistantScope": "a", "status": "started", "version": 1})


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("status", STATUSES)
def test_every_known_tier_and_status_is_accepted(tier: str, status: str) -> None:
    assert receipt_from_json(receipt(tier, status)).tier == tier


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("tier", "ltm", "'ltm' is not one of stm, mtm, lpm, retrieval, generation"),
        ("tier", "STM", "is not one of"),
        ("tier", 3, "field 'tier' must be a string, got an integer"),
        ("status", "done", "'done' is not one of started, waiting, committed, verified, failed"),
        ("status", ["verified"], "field 'status' must be a string, got an array"),
        ("runId", 7, "field 'runId' must be a string, got an integer"),
        ("runId", "", "field 'runId' must not be empty"),
        ("userScope", {"id": "u"}, "field 'userScope' must be a string, got an object"),
        ("assistantScope", False, "field 'assistantScope' must be a string, got a boolean"),
        ("sourceVersion", 3, "field 'sourceVersion' must be a string, got an integer"),
        ("sourceVersion", "", "field 'sourceVersion' must not be empty"),
        ("outcomeReceipt", 12, "field 'outcomeReceipt' must be a string"),
        ("receiptId", 12, "field 'receiptId' must be a string"),
        ("sourcePresent", "false", "field 'sourcePresent' must be true or false, got a string"),
        ("sourcePresent", 0, "field 'sourcePresent' must be true or false, got an integer"),
        ("canary", "yes", "field 'canary' must be true or false"),
        ("atUtc", 1742644800, "field 'atUtc' must be an RFC 3339 time string, got an integer"),
        ("waitingUntil", 1.5, "field 'waitingUntil' must be an RFC 3339 time string, got a number"),
    ],
)
def test_wrong_types_and_values_are_refused_by_name(key: str, value: object, message: str) -> None:
    with pytest.raises(BadInput) as caught:
        receipt_from_json(receipt("stm", "committed") | {key: value})
    assert message in str(caught.value)


@pytest.mark.parametrize("key", ["text", "content", "prompt", "summary", "embedding", "RunId", "x_note"])
def test_fields_outside_the_contract_are_refused(key: str) -> None:
    with pytest.raises(BadInput, match=f"unknown field '{key}'.*no content"):
        receipt_from_json(receipt("stm", "committed") | {key: "anything"})


def test_x_prefixed_fields_are_kept_aside_unchecked() -> None:
    r = receipt_from_json(receipt("stm", "committed") | {"x-host": "ci-7", "x-attempt": [1, 2]})
    assert r.extensions == {"x-host": "ci-7", "x-attempt": [1, 2]}
    assert not hasattr(r, "x-host")


@pytest.mark.parametrize("value", [None, "text", 3, ["a"]])
def test_a_receipt_must_be_an_object(value: object) -> None:
    with pytest.raises(BadInput, match="must be a JSON object"):
        receipt_from_json(value)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2025-03-10T08:00:00Z", datetime(2025, 3, 10, 8, tzinfo=UTC)),
        ("2025-03-10T08:00:00+00:00", datetime(2025, 3, 10, 8, tzinfo=UTC)),
        ("2025-03-10t08:00:00z", datetime(2025, 3, 10, 8, tzinfo=UTC)),
        ("2025-03-10T08:00:00.25Z", datetime(2025, 3, 10, 8, 0, 0, 250000, tzinfo=UTC)),
        ("2025-03-10T08:00:00.123456789Z", datetime(2025, 3, 10, 8, 0, 0, 123456, tzinfo=UTC)),
    ],
)
def test_utc_times_in_rfc3339(text: str, expected: datetime) -> None:
    parsed = parse_utc(text)
    assert parsed == expected and parsed.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "text, message",
    [
        ("2025-03-10T08:00:00", "has no UTC offset"),
        ("2025-03-10T09:00:00+01:00", "is not in UTC (offset +01:00)"),
        ("2025-03-10T03:00:00-05:00", "is not in UTC"),
        ("2025-03-10T08:00:00-00:00", "is not in UTC"),
        ("2025-03-10 08:00:00Z", "is not an RFC 3339 time"),
        ("20250310T080000Z", "is not an RFC 3339 time"),
        ("2025-03-10", "is not an RFC 3339 time"),
        ("yesterday", "is not an RFC 3339 time"),
        ("2025-02-30T08:00:00Z", "is not a valid date and time"),
        ("2025-03-10T25:00:00Z", "is not a valid date and time"),
        ("2025-03-10T08:00:00.5+00:00x", "is not an RFC 3339 time"),
    ],
)
def test_naive_non_utc_and_malformed_times_are_refused(text: str, message: str) -> None:
    with pytest.raises(BadInput, match="atUtc") as caught:
        receipt_from_json(receipt("stm", "committed") | {"atUtc": text})
    assert message in str(caught.value)


def test_format_utc_writes_z_and_microseconds_only_when_present() -> None:
    assert format_utc(datetime(2025, 3, 10, 8, tzinfo=UTC)) == "2025-03-10T08:00:00Z"
    assert format_utc(datetime(2025, 3, 10, 9, 0, 0, 5, tzinfo=timezone(timedelta(hours=1)))) == (
        "2025-03-10T08:00:00.000005Z"
    )
    with pytest.raises(ValueError):
        format_utc(datetime(2025, 3, 10, 8))


def test_direct_construction_is_checked_too() -> None:
    ok = dict(
        run_id="r", user_scope="u", assistant_scope="a", tier="stm", status="started", version="1",
        at_utc=datetime(2025, 3, 10, tzinfo=UTC),
    )
    assert Receipt(**ok).to_json()["atUtc"] == "2025-03-10T00:00:00Z"
    for change, message in [
        ({"tier": "ltm"}, "'tier' must be one of"),
        ({"version": 22}, "'version' must be a non-empty string"),
        ({"run_id": ""}, "'runId' must be a non-empty string"),
        ({"at_utc": datetime(2025, 3, 10)}, "'atUtc' must be a timezone-aware datetime in UTC"),
        ({"at_utc": datetime(2025, 3, 10, tzinfo=timezone(timedelta(hours=2)))}, "'atUtc' must be"),
        ({"source_present": 1}, "'sourcePresent' must be a bool"),
        ({"extensions": {"note": "x"}}, "must start with 'x-'"),
    ]:
        with pytest.raises(BadInput, match=message):
            Receipt(**(ok | change))


def test_normalize_version() -> None:
    assert normalize_version(7) == "7" and normalize_version("v7") == "v7"
    with pytest.raises(BadInput, match="must be a string or an integer, got a boolean"):
        normalize_version(False)


def test_gc_paused_restores_the_collector_state() -> None:
    assert gc.isenabled()
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
