"""Receipts stored in a workspace: all or nothing, contract fields only."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import sqlean

from fixtures import receipt_rows
from memorydesk.core.errors import BadInput
from memorydesk.lineage.jsonl import parse_jsonl
from memorydesk.lineage.receipt_store import Ingested, ingest, load
from memorydesk.store import open_workspace, receipt_blocks


def line(**fields) -> str:
    base = {"runId": "run-1", "userScope": "user:lena", "assistantScope": "asst:companion", "tier": "stm",
            "status": "committed", "version": "v1", "atUtc": "2026-11-20T10:00:00Z",
            "sourceVersion": "memorydesk 0.1.0"}
    base.update(fields)
    return json.dumps(base)


def test_ingest_round_trips_and_drops_extension_fields(tmp_path: Path) -> None:
    receipts = parse_jsonl([line(sourcePresent=False, waitingUntil="2026-11-21T00:00:00Z", **{"x-trace": "abc"}),
                            line(tier="retrieval", status="verified", expectedVersion="v1", receiptId="r-2")])
    with open_workspace(tmp_path / "ws.db", create=True) as ws:
        assert ingest(ws, receipts) == Ingested(2, 0)
        back = load(ws)
        with ws.read() as conn:
            tables = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'")}
            names = {r[0] for r in conn.exec_driver_sql(f"SELECT name FROM {receipt_blocks.NAMES}")}
    assert back == [replace(r, extensions={}) for r in receipts]
    assert "memdesk_receipts" not in tables  # the blocks are the only store
    assert names == {"run-1", "user:lena", "asst:companion", "v1", "memorydesk 0.1.0", "r-2"}
    assert "abc" not in (tmp_path / "ws.db").read_bytes().decode("latin-1")


def test_a_content_field_refuses_the_whole_file(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="line 2"):
        parse_jsonl([line(), line(text="the user's diary")])


def test_ingest_is_all_or_nothing(tmp_path: Path) -> None:
    receipts = parse_jsonl([line(), line(runId="run-2")])
    with open_workspace(tmp_path / "ws.db", create=True) as ws:
        ingest(ws, parse_jsonl([line(runId="run-0")]))
        with ws.write() as conn:  # the database refuses the block, after the new strings went in
            conn.exec_driver_sql(f"CREATE TRIGGER refuse BEFORE INSERT ON {receipt_blocks.BLOCKS} "
                                 "BEGIN SELECT RAISE(ABORT, 'block refused'); END")
        with pytest.raises(sqlean.IntegrityError, match="block refused"):
            ingest(ws, receipts)
        assert [r.run_id for r in load(ws)] == ["run-0"]
        with ws.read() as conn:
            assert conn.exec_driver_sql(f"SELECT count(*) FROM {receipt_blocks.NAMES} "
                                        "WHERE name IN ('run-1', 'run-2')").scalar() == 0


def test_ingest_twice_stores_once_and_counts_the_rest(tmp_path: Path) -> None:
    receipts = parse_jsonl([line(receiptId="r-1"), line(receiptId="r-2", status="verified"),
                            line(tier="mtm"), line(tier="mtm", status="verified")])
    with open_workspace(tmp_path / "ws.db", create=True) as ws:
        assert ingest(ws, receipts) == Ingested(4, 0)
        assert ingest(ws, receipts) == Ingested(0, 4)
        assert len(load(ws)) == 4


def test_every_field_is_kept_exactly(tmp_path: Path) -> None:
    receipts = parse_jsonl([
        line(receiptId="r-1", canary=False, expectedVersion="v0", outcomeReceipt="out-1", dependsOnVersion="v0",
             atUtc="2026-11-20T10:00:00.000001Z", waitingUntil="2026-11-20T11:00:00.5Z", sourcePresent=True),
        line(canary=True, tier="generation", status="failed", expectedVersion="v1"),
        line(tier="lpm", status="waiting", sourceVersion=None, atUtc="1969-12-31T23:59:59.999999Z")])
    with open_workspace(tmp_path / "ws.db", create=True) as ws:
        ingest(ws, receipts)
        back = load(ws)
    assert [r.to_json() for r in back] == [r.to_json() for r in receipts]
    assert [(r.canary, r.line) for r in back] == [(False, 1), (True, 2), (None, 3)]
    assert back[0].at_utc.microsecond == 1 and back[2].source_version is None


def test_a_receipt_id_or_identical_fields_count_as_the_same_receipt(tmp_path: Path) -> None:
    with open_workspace(tmp_path / "ws.db", create=True) as ws:
        ingest(ws, parse_jsonl([line(receiptId="r-1"), line(tier="mtm")]))
        again = parse_jsonl([
            line(receiptId="r-1", status="failed"),  # same id, other fields: the stored one stands
            line(receiptId="r-3"), line(receiptId="r-3"),  # a repeat inside the file
            line(tier="mtm"),  # the same fields, no id
            line(tier="mtm", atUtc="2026-11-20T10:00:01Z"),  # one field differs: a new receipt
        ])
        assert ingest(ws, again) == Ingested(2, 3)
        stored = load(ws)
    assert [(r.receipt_id, r.tier, r.status) for r in stored] == [
        ("r-1", "stm", "committed"), (None, "mtm", "committed"), ("r-3", "stm", "committed"),
        (None, "mtm", "committed")]
    assert stored[3].at_utc.second == 1


def test_receipts_of_an_older_workspace_read_without_lines_then_gain_them(tmp_path: Path) -> None:
    from memorydesk.store import ours

    path = tmp_path / "old.db"
    receipts = parse_jsonl([line(), line(runId="run-2")])
    with open_workspace(path, create=True) as ws:  # frozen before receipts kept their line
        receipt_rows.freeze(ws, receipts, ours.RECEIPT_LINES_SCHEMA - 1, lines=False)
    with open_workspace(path, read_only=True) as ws:
        assert [(r.run_id, r.line) for r in load(ws)] == [("run-1", None), ("run-2", None)]
    with open_workspace(path) as ws:  # migrated by the first change: the old rows have no line, new ones do
        assert ws.desk_schema == ours.RECEIPT_LINES_SCHEMA - 1  # opening changes nothing
        ingest(ws, parse_jsonl(["", line(runId="run-3")]))
        assert ws.desk_schema == ours.SCHEMA_VERSION
        assert [(r.run_id, r.line) for r in load(ws)] == [("run-1", None), ("run-2", None), ("run-3", 2)]


def test_repeats_are_found_in_any_earlier_block_with_or_without_an_id(tmp_path: Path) -> None:
    import random
    from datetime import timedelta

    from fixtures.receipts import synthetic_lines

    rows = [json.loads(text) for text in synthetic_lines(60, 7)]
    for row in rows[::2]:
        row.pop("receiptId")  # half of them without an id: the same fields make the same receipt
    receipts = parse_jsonl([json.dumps(row) for row in rows])
    with open_workspace(tmp_path / "ws.db", create=True) as ws:
        for k in range(0, len(receipts), 37):  # twelve blocks
            assert ingest(ws, receipts[k:k + 37]) == Ingested(len(receipts[k:k + 37]), 0)
        again = receipts[:]
        random.Random(3).shuffle(again)
        for k in range(0, len(again), 50):  # each batch's repeats spread over every block
            assert ingest(ws, again[k:k + 50]) == Ingested(0, len(again[k:k + 50]))
        unnamed = [r for r in receipts if r.receipt_id is None]
        later = [replace(r, at_utc=r.at_utc + timedelta(microseconds=1)) for r in unnamed[::5]]
        assert ingest(ws, later + unnamed[:3]) == Ingested(len(later), 3)
        assert len(load(ws)) == len(receipts) + len(later)
