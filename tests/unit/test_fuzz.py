"""Fuzzing (hypothesis): the receipt decoder, the JSON list columns and query strings.

Whatever comes in, the answer is a result or one ``BadInput`` sentence — never another
exception — and what is accepted comes back out as valid UTF-8 JSON.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memorydesk.core.errors import BadInput
from memorydesk.core.health.scalar import classify
from memorydesk.lineage.jsonl import parse_jsonl, receipt_to_line
from memorydesk.store import open_workspace

pytestmark = pytest.mark.slow
NOW = datetime(2025, 1, 2, tzinfo=UTC)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW_FUZZ = settings(max_examples=80, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

BASE = {"runId": "r1", "userScope": "u", "assistantScope": "a", "tier": "stm", "status": "committed",
        "version": "v1", "atUtc": "2025-01-01T00:00:00Z", "sourceVersion": "x"}
FIELDS = [*BASE, "sourcePresent", "waitingUntil", "expectedVersion", "dependsOnVersion", "outcomeReceipt",
          "receiptId", "canary", "x-extra", "content"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _accepts_or_refuses(document: str | bytes) -> None:
    try:
        receipts = parse_jsonl(document)
    except BadInput as exc:
        assert "\n" not in str(exc) and str(exc).startswith("line ")
        return
    for receipt in receipts:
        line = receipt_to_line(receipt)
        line.encode("utf-8")  # valid output: no lone surrogate survived
        assert parse_jsonl(line)[0].to_json() == receipt.to_json()
    for verdict in classify(receipts, now=NOW):
        json.dumps(verdict.to_json(), ensure_ascii=False).encode("utf-8")


@FUZZ
@given(st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6))
def test_receipts_with_any_field_values(changes: dict) -> None:
    _accepts_or_refuses(json.dumps(BASE | changes))


@FUZZ
@given(st.text(max_size=300))
def test_any_text_as_a_receipt_line(text: str) -> None:
    _accepts_or_refuses(text)


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_as_a_receipt_file(data: bytes) -> None:
    _accepts_or_refuses(data)


ANY_CHARACTER = st.sampled_from(["\x00", "\ud800", "\udfff", "\n", "\t", "\u2028", "\x7f", "é", "a"]) | \
    st.characters(min_codepoint=0, max_codepoint=0x10FFFF, categories=None, exclude_categories=())


@FUZZ
@given(st.sampled_from([*BASE, "x-extra"]), st.text(alphabet=ANY_CHARACTER, max_size=20))
def test_escaped_strings_in_any_field(field: str, text: str) -> None:
    _accepts_or_refuses(json.dumps(BASE | {field: text}))  # \\u escapes: NUL, lone surrogates, newlines


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from fixtures.product_fixture import build

    path = build(tmp_path_factory.mktemp("fuzz") / "ws.db")
    with open_workspace(path) as ws:  # adopted once (what a first change does): our tables and the vector index
        ws.adopt()
    return path


@SLOW_FUZZ
@given(st.one_of(st.text(max_size=60), st.binary(max_size=60)))
def test_any_text_in_the_json_list_columns(workspace: Path, value: str | bytes) -> None:
    from memorydesk.browse.detail import fact_detail
    from memorydesk.store import integrity

    with open_workspace(workspace) as ws:
        with ws.write() as conn:
            cast = "CAST(? AS TEXT)"
            conn.exec_driver_sql(f"UPDATE memory_facts_table SET source_observation_ids = {cast} WHERE id = 'f-01'",
                                 (value,))
            conn.exec_driver_sql(f"UPDATE memory_beliefs_table SET provenance_fact_ids = {cast}", (value,))
            conn.exec_driver_sql(f"UPDATE memory_policies_table SET source_fact_ids = {cast}", (value,))
        report = integrity.check(ws)
        assert "sqlite_corrupt" not in report.summary
        detail = fact_detail(ws, "f-01")
        assert detail is not None and isinstance(detail.source_observation_ids, tuple)


@SLOW_FUZZ
@given(st.text(alphabet=ANY_CHARACTER, max_size=80), st.sampled_from(["keyword", "semantic", "hybrid"]))
def test_any_query_string(workspace: Path, query: str, mode: str) -> None:
    from memorydesk.search.agent import search
    from memorydesk.search.preamble import build_preamble

    with open_workspace(workspace, read_only=True) as ws:
        try:
            result = search(ws, query, mode=mode)
        except BadInput as exc:
            assert _not_utf8(query), exc
        else:
            json.dumps([h.to_json() for h in result.hits], ensure_ascii=False).encode("utf-8")
        try:
            build_preamble(ws, "a-coder", query)
        except BadInput:
            assert _not_utf8(query)


def _not_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
