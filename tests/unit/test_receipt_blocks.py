"""Receipts as typed columns in blocks, the only store: the Lineage tab's one-scan read gives
what the receipts themselves give, on a new file, on a file of the row layout (read as it is,
then migrated), and after receipts were removed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fixtures import receipt_rows
from fixtures.receipts import NOW, complete_lineage, eight_cases, receipt, synthetic_lines
from memorydesk.core.health.scalar import classify
from memorydesk.core.receipt_codes import to_us
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage import receipt_store, run_reads
from memorydesk.lineage.run_reads import load_runs
from memorydesk.lineage.runs import RunTable, table_of
from memorydesk.store import open_workspace, ours, receipt_blocks

DAY_US = 86_400_000_000
COLUMNS_SCHEMA = ours.MIGRATIONS.index(ours._receipt_columns) + 1
BLOCKS_ONLY_SCHEMA = ours.RECEIPT_BLOCKS_ONLY_SCHEMA


def sample() -> list:
    rows = [row for _, case, _ in eight_cases() for row in case]
    rows += complete_lineage("run-canary", user="user-c", assistant="assistant-9")
    for row in rows[-6:]:
        row["canary"] = True
    rows += [receipt("stm", "committed", "v3", run="run-late", user="user-c", minutes=-5, sourceVersion="adapter 9",
                     waitingUntil="2025-03-22T18:00:00.250000Z")]
    rows += [json.loads(line) for line in synthetic_lines(40, 7)]
    return [receipt_from_json(r, line=n) for n, r in enumerate(rows, 1)]


def summary(table: RunTable) -> dict:
    """What a RunTable says, in a form that does not depend on the order runs were read in."""
    ids = table.run_ids
    per_run = {ids[i]: (table.lanes[table.lane[i]], int(table.start[i]), int(table.end[i]), int(table.count[i]),
                        bool(table.canary[i]), int(table.clock.fixed[i]), int(table.clock.closes[i]),
                        int(table.clock.middle[i]), int(table.clock.newest[i]), bool(table.clock.waits[i]))
               for i in range(len(table))}
    return {
        "runs": per_run, "order": ids, "lanes": table.lanes,
        "states": {moment: table.states_at(moment, DAY_US).tolist()
                   for moment in (to_us(NOW), to_us(NOW) + 3 * DAY_US, to_us(NOW) - DAY_US)},
        "sv": sorted((ids[r], table.source_versions[c]) for r, c in zip(table.sv_run, table.sv_code)),
        "tr": sorted(zip(table.tr_time.tolist(), table.tr_kind.tolist(), (ids[r] for r in table.tr_run))),
        "mem": sorted((ids[r], tuple(t)) for r, t in zip(table.mem_run, table.mem_times.tolist())),
    }


def test_blocks_give_what_the_rows_give(tmp_path: Path) -> None:
    receipts = sample()
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        receipt_store.ingest(ws, receipts[:30])
        receipt_store.ingest(ws, receipts[30:])  # two blocks
        with ws.read() as conn:
            assert conn.exec_driver_sql(f"SELECT count(*) FROM {receipt_blocks.BLOCKS}").scalar() == 2
        table = load_runs(ws)
        assert summary(table) == summary(table_of(receipts))
        assert receipt_store.load(ws) == receipts
    verdicts = {v.run_id: v.state.rule for v in classify(receipts, now=NOW)}
    assert dict(zip(table.run_ids, table.states_at(to_us(NOW), DAY_US).tolist())) == verdicts


@pytest.mark.parametrize("schema", [COLUMNS_SCHEMA - 1, BLOCKS_ONLY_SCHEMA - 1])
def test_a_file_of_the_row_layout_is_read_then_migrated(tmp_path: Path, schema: int) -> None:
    receipts = sample()
    path = tmp_path / "old.db"
    with open_workspace(path, create=True) as ws:  # rows only, or rows and the older build's blocks
        receipt_rows.freeze(ws, receipts, schema, old_blocks=schema >= COLUMNS_SCHEMA)
    expected = summary(table_of(receipts))
    with open_workspace(path, read_only=True) as ws:
        assert ws.desk_schema == schema
        assert summary(load_runs(ws)) == expected
        assert receipt_store.load(ws) == receipts and receipt_store.count(ws) == len(receipts)
    more = [receipt_from_json(r) for r in complete_lineage("run-after", user="user-new")]
    with open_workspace(path) as ws:
        # the first change migrates: every row moved into blocks, ids kept, the rows dropped; then the new ones
        assert receipt_store.ingest(ws, receipts + more) == receipt_store.Ingested(len(more), len(receipts))
        assert ws.desk_schema == ours.SCHEMA_VERSION
        with ws.read() as conn:
            rec, text = receipt_store.read_records(conn, ws)
            tables = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "memdesk_receipts" not in tables
        assert rec["id"].tolist() == list(range(1, len(receipts) + len(more) + 1))
        assert {text[c] for c in rec["run"]} == {r.run_id for r in receipts + more}
        assert summary(load_runs(ws)) == summary(table_of(receipts + more))
        assert receipt_store.load(ws) == receipts + more


def test_removed_receipts_are_gone_and_ids_are_not_given_again(tmp_path: Path) -> None:
    receipts = sample()
    gone = ("case-1-complete", "run-0000003")
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        receipt_store.ingest(ws, receipts[:-20])
        receipt_store.ingest(ws, receipts[-20:])
        with ws.write() as conn:
            codes = [c for (c,) in conn.exec_driver_sql(f"SELECT code FROM {receipt_blocks.NAMES} "
                                                        f"WHERE name IN {gone}")]
            assert receipt_blocks.remove(conn, lambda rec, _t: np.isin(rec["run"], codes)) == sum(
                r.run_id in gone for r in receipts)
        kept = [r for r in receipts if r.run_id not in gone]
        table = load_runs(ws)
        assert summary(table) == summary(table_of(kept)) and "case-1-complete" not in table.index
        assert receipt_store.load(ws) == kept
        later = receipt_from_json(receipt("stm", "committed", "v9", run="run-later"))
        receipt_store.ingest(ws, [later])
        with ws.read() as conn:
            rec, _text = receipt_store.read_records(conn, ws)
    assert rec["id"][-1] == len(receipts) + 1  # after the highest id ever given, not reused


def test_as_of_cuts_the_blocks_as_the_rows(tmp_path: Path) -> None:
    receipts = sample()
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        receipt_store.ingest(ws, receipts)
        table = load_runs(ws)
        lo, hi = table.span()
        for now in np.linspace(lo, hi, 7).astype(np.int64).tolist():
            cut = run_reads.as_of(ws, table, now)
            dated = [r for r in receipts if to_us(r.at_utc) <= now]
            assert dated and summary(cut)["runs"] == summary(table_of(dated))["runs"]


@pytest.mark.parametrize("name", ["plain", "with\x00nul"])
def test_names_round_trip(tmp_path: Path, name: str) -> None:
    r = receipt_from_json(receipt("stm", "committed", "v1", run=name if name != "plain" else "run-x"))
    if name != "plain":
        r = receipt_from_json({**r.to_json(), "version": name})
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        receipt_store.ingest(ws, [r])
        with ws.read() as conn:
            rec, text = receipt_store.read_records(conn, ws)
    assert text[rec["version"][0]] == r.version and text[rec["run"][0]] == r.run_id
