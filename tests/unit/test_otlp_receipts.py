"""Receipts as OpenTelemetry attributes, and OTLP/JSON files read back: every refusal is one sentence naming
the line and the span, and nothing is returned then."""

from __future__ import annotations

import io
import json

import pytest

from fixtures.receipts import complete_lineage, eight_cases, receipt, to_jsonl
from memorydesk.core.errors import BadInput
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage.jsonl import BadReceiptLine, parse_jsonl
from memorydesk.lineage.otlp import receipt_attributes, receipt_from_attributes, trace_id
from memorydesk.lineage.otlp_proto import trace_requests, write_otlp_json
from memorydesk.lineage.receipt_files import parse_receipts


def span_line(*spans: dict) -> bytes:
    return (json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}) + "\n").encode()


def attrs(**fields) -> list[dict]:
    out = []
    for key, value in fields.items():
        kind = "boolValue" if isinstance(value, bool) else "intValue" if isinstance(value, int) else \
            "doubleValue" if isinstance(value, float) else "stringValue"
        out.append({"key": f"memory.lineage.{key}", "value": {kind: str(value) if kind == "intValue" else value}})
    return out


BASE = {"run_id": "r1", "user_scope": "u", "assistant_scope": "a", "tier": "stm", "status": "committed",
        "version": "v1", "at_utc": "2025-03-22T11:00:00Z"}


def test_every_field_maps_to_its_snake_case_attribute_and_back() -> None:
    wire = receipt("generation", "committed", 22, receiptId="g-1", canary=True, sourcePresent=False,
                   waitingUntil="2025-03-22T12:00:00.5Z", expectedVersion="v3", dependsOnVersion=7,
                   outcomeReceipt="sha256:ab")
    original = receipt_from_json(wire, line=4)
    pairs = receipt_attributes(original)
    assert [k for k, _ in pairs] == [
        "gen_ai.memory.store.id", "gen_ai.memory.record.id", "memory.lineage.run_id", "memory.lineage.status",
        "memory.lineage.source_version", "memory.lineage.at_utc", "memory.lineage.source_present",
        "memory.lineage.waiting_until", "memory.lineage.expected_version", "memory.lineage.depends_on_version",
        "memory.lineage.outcome_receipt", "memory.lineage.receipt_id", "memory.lineage.canary", "memory.lineage.line"]
    assert dict(pairs)["gen_ai.memory.record.id"] == "22" and dict(pairs)["memory.lineage.line"] == 4
    assert dict(pairs)["gen_ai.memory.store.id"] == "user-a/assistant-1/generation"
    back = receipt_from_attributes(pairs)
    assert back == original and back.line == 4


def test_a_run_is_one_trace_whatever_its_receipts() -> None:
    rows = complete_lineage("run-a") + complete_lineage("run-b")
    (request,) = list(trace_requests(parse_jsonl(to_jsonl(rows))))
    spans = request.resource_spans[0].scope_spans[0].spans
    assert {s.trace_id for s in spans[:6]} == {trace_id("run-a")} and {s.trace_id for s in spans[6:]} == \
        {trace_id("run-b")}
    assert len({s.span_id for s in spans}) == len(spans)


def test_requests_are_bounded_and_written_one_a_line() -> None:
    rows = [row for _, case, _ in eight_cases() for row in case] * 40
    out = io.StringIO()
    assert write_otlp_json(parse_jsonl(to_jsonl(rows)), out) == len(rows)
    lines = out.getvalue().splitlines()
    assert len(lines) == -(-len(rows) // 500)
    assert len(parse_receipts(io.BytesIO(out.getvalue().encode()))) == len(rows)


@pytest.mark.parametrize(("change", "message"), [
    ({"tier": "attic"}, "field 'memory.lineage.tier': 'attic' is not one of"),
    ({"user_input": "my secret"}, "unknown attribute 'memory.lineage.user_input' (receipts carry no content"),
    ({"version": 1.5}, "attribute 'memory.lineage.version' holds a double value"),
    ({"run_id": None}, "missing required field memory.lineage.run_id"),
    ({"line": 0}, "attribute 'memory.lineage.line' must be a positive integer"),
    ({"at_utc": "2025-03-22T11:00:00+02:00"}, "is not in UTC"),
])
def test_a_refused_span_is_named_by_line_and_span(change: dict, message: str) -> None:
    fields = {k: v for k, v in {**BASE, **change}.items() if v is not None}
    text = span_line({"attributes": attrs(**BASE)}) + span_line({"attributes": attrs(**BASE)},
                                                                {"attributes": attrs(**fields)})
    with pytest.raises(BadReceiptLine) as caught:
        parse_receipts(io.BytesIO(text))
    assert str(caught.value).startswith("line 2: span 2: ") and message in str(caught.value)


def test_other_telemetry_is_skipped_and_the_start_time_stands_in_for_at_utc() -> None:
    without_time = {k: v for k, v in BASE.items() if k != "at_utc"}
    text = span_line({"name": "GET /", "attributes": [{"key": "http.method", "value": {"stringValue": "GET"}}]},
                     {"startTimeUnixNano": "1742641200123456000", "attributes": attrs(**without_time) + [
                         {"key": "host.name", "value": {"doubleValue": 1.5}}]})
    (only,) = parse_receipts(io.BytesIO(text))
    assert only.run_id == "r1" and only.at_utc.isoformat() == "2025-03-22T11:00:00.123456+00:00"


@pytest.mark.parametrize(("body", "message"), [
    (b'{"resourceSpans": {"not": "a list"}}\n', "line 1: resourceSpans must be a list"),
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": ["x"]}]}]}\n', "line 1: span 1 is not an object"),
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"startTimeUnixNano": "soon"}]}]}]}\n',
     "must be a decimal integer"),
    (b'{"resourceSpans": []}\n{"runId": "r"}\n', "line 2: not an OTLP export request"),
    (b'{"resourceSpans": []}\n\xff\xfe\n', "line 2: not valid"),
])
def test_malformed_otlp_files_are_refused_in_one_sentence(body: bytes, message: str) -> None:
    with pytest.raises(BadInput) as caught:
        parse_receipts(io.BytesIO(body))
    assert message in str(caught.value)


def test_json_lines_are_still_json_lines() -> None:
    rows = complete_lineage("run-j")
    assert parse_receipts(io.BytesIO(to_jsonl(rows).encode())) == parse_jsonl(to_jsonl(rows))
    with pytest.raises(BadReceiptLine, match="line 2: unknown field 'text'"):
        parse_receipts(io.BytesIO((to_jsonl(rows[:1]) + '{"runId": "x", "text": "a"}\n').encode()))


def test_scopes_with_slashes_and_percents_travel_in_the_store_id_and_back() -> None:
    original = receipt_from_json(receipt("stm", "committed", user="repo:a/b%c", assistant="x/y", sourcePresent=False))
    pairs = dict(receipt_attributes(original))
    assert pairs["gen_ai.memory.store.id"] == "repo:a%2Fb%25c/x%2Fy/stm"
    assert pairs["gen_ai.operation.name"] == "delete_memory" and pairs["gen_ai.provider.name"] == "memorydesk"
    assert receipt_from_attributes(list(pairs.items())) == original


def test_the_older_names_and_the_conventions_must_agree_and_a_missing_store_id_is_named() -> None:
    pairs = [(f"memory.lineage.{k}", v) for k, v in BASE.items()] + [("gen_ai.memory.store.id", "u/a/mtm")]
    with pytest.raises(BadInput, match="'gen_ai.memory.store.id' says 'mtm' but 'memory.lineage.tier' says 'stm'"):
        receipt_from_attributes(pairs)
    agreeing = [(k, v) for k, v in pairs if k != "gen_ai.memory.store.id"] + [("gen_ai.memory.store.id", "u/a/stm")]
    assert receipt_from_attributes(agreeing).tier == "stm"
    bare = [("memory.lineage.run_id", "r"), ("memory.lineage.status", "committed"), ("gen_ai.memory.record.id", "v")]
    with pytest.raises(BadInput, match="missing required fields gen_ai.memory.store.id, memory.lineage.at_utc$"):
        receipt_from_attributes(bare)


def test_values_a_column_store_keeps_as_text_come_back_typed() -> None:
    from memorydesk.lineage.otlp import typed_value

    original = receipt_from_json(receipt("stm", "committed", sourcePresent=True, canary=True), line=3)
    as_text = [(k, typed_value(k, "true" if v is True else "false" if v is False else str(v)))
               for k, v in receipt_attributes(original)]
    assert receipt_from_attributes(as_text) == original
