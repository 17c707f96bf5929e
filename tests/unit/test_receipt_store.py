"""Receipts stored in a workspace: all or nothing, contract fields only."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError

from memorydesk.core.errors import BadInput
from memorydesk.lineage import receipt_store
from memorydesk.lineage.jsonl import parse_jsonl
from memorydesk.lineage.receipt_store import Ingested, ingest, load
from memorydesk.store import open_workspace


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
            columns = [r[1] for r in conn.exec_driver_sql("PRAGMA table_info(memdesk_receipts)")]
    assert back == [replace(r, extensions={}) for r in receipts]
    assert not any(c.startswith("x") or c in ("content", "text", "extensions") for c in columns)
    assert "abc" not in (tmp_path / "ws.db").read_bytes().decode("latin-1")


def test_a_content_field_refuses_the_whole_file(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="line 2"):
        parse_jsonl([line(), line(text="the user's diary")])


def test_ingest_is_all_or_nothing(tmp_path: Path, monkeypatch) -> None:
    good, bad = parse_jsonl([line(), line(runId="run-2")])
    object.__setattr__(bad, "run_id", None)  # a row the database refuses (NOT NULL), in the second batch
    monkeypatch.setattr(receipt_store, "BATCH", 1)
    with open_workspace(tmp_path / "ws.db", create=True) as ws:
        with pytest.raises(IntegrityError):
            ingest(ws, [good, bad])
        assert load(ws) == []


def test_ingest_twice_stores_once_and_counts_the_rest(tmp_path: Path) -> None:
    receipts = parse_jsonl([line(receiptId="r-1"), line(receiptId="r-2", status="verified"),
                            line(tier="mtm"), line(tier="mtm", status="verified")])
    with open_workspace(tmp_path / "ws.db", create=True) as ws:
        assert ingest(ws, receipts) == Ingested(4, 0)
        assert ingest(ws, receipts) == Ingested(0, 4)
        assert len(load(ws)) == 4


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
    with open_workspace(path, create=True) as ws:
        ingest(ws, receipts)
        with ws.write() as conn:  # freeze it before receipts kept their line
            conn.exec_driver_sql("ALTER TABLE memdesk_receipts DROP COLUMN line")
            conn.exec_driver_sql(f"UPDATE memdesk_meta SET value = '{ours.RECEIPT_LINES_SCHEMA - 1}' "
                                 "WHERE key = 'schema_version'")
    with open_workspace(path, read_only=True) as ws:
        assert [(r.run_id, r.line) for r in load(ws)] == [("run-1", None), ("run-2", None)]
    with open_workspace(path) as ws:  # migrated by the first change: the old rows have no line, new ones do
        assert ws.desk_schema == ours.RECEIPT_LINES_SCHEMA - 1  # opening changes nothing
        ingest(ws, parse_jsonl(["", line(runId="run-3")]))
        assert ws.desk_schema == ours.SCHEMA_VERSION
        assert [(r.run_id, r.line) for r in load(ws)] == [("run-1", None), ("run-2", None), ("run-3", 2)]
