"""Receipts as typed columns in blocks: the Lineage tab's one-scan read gives what the row
path gives, on a new file, on a file migrated from the text-only layout, and when rows were
written or deleted behind the blocks' back."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fixtures.receipts import NOW, complete_lineage, eight_cases, receipt, synthetic_lines
from memorydesk.core.health import classify
from memorydesk.core.health_arrays import to_us
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage import receipt_store, runs
from memorydesk.lineage.runs import RunTable, load_runs, table_of
from memorydesk.store import open_workspace, ours, receipt_blocks

DAY_US = 86_400_000_000
COLUMNS_SCHEMA = ours.MIGRATIONS.index(ours._receipt_columns) + 1


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


def rows_path(ws) -> RunTable:
    """The same file read through the SQL row path (what a file of the older layout uses)."""
    with ws.read() as conn:
        rows = runs.Rows()
        found = receipt_store.read_columns(conn, ws, rows)
        return runs.table_from_rows(*found[:2], rows, found[2])


def test_blocks_give_what_the_rows_give(tmp_path: Path) -> None:
    receipts = sample()
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        receipt_store.ingest(ws, receipts[:30])
        receipt_store.ingest(ws, receipts[30:])  # two blocks
        with ws.read() as conn:
            assert conn.exec_driver_sql(f"SELECT count(*) FROM {receipt_blocks.BLOCKS}").scalar() == 2
        table = load_runs(ws)
        assert summary(table) == summary(rows_path(ws)) == summary(table_of(receipts))
    verdicts = {v.run_id: v.state.rule for v in classify(receipts, now=NOW)}
    assert dict(zip(table.run_ids, table.states_at(to_us(NOW), DAY_US).tolist())) == verdicts


def test_a_file_of_the_text_only_layout_is_read_then_migrated(tmp_path: Path) -> None:
    receipts = sample()
    path = tmp_path / "old.db"
    with open_workspace(path, create=True) as ws:
        receipt_store.ingest(ws, receipts)
        with ws.write() as conn:  # the layout before blocks: rows only, the schema one step back
            for table in (receipt_blocks.BLOCKS, receipt_blocks.NAMES):
                conn.exec_driver_sql(f"DROP TABLE {table}")
            conn.exec_driver_sql(f"UPDATE memdesk_meta SET value = '{COLUMNS_SCHEMA - 1}' WHERE key = 'schema_version'")
    expected = summary(table_of(receipts))
    with open_workspace(path, read_only=True) as ws:
        assert ws.desk_schema == COLUMNS_SCHEMA - 1
        with ws.read() as conn:
            assert receipt_store.read_records(conn, ws) is None  # the row path
        assert summary(load_runs(ws)) == expected
    more = [receipt_from_json(r) for r in complete_lineage("run-after", user="user-new")]
    with open_workspace(path) as ws:
        receipt_store.ingest(ws, more)  # the first change migrates: blocks filled from the rows, then the new one
        assert ws.desk_schema == ours.SCHEMA_VERSION
        with ws.read() as conn:
            rec, text = receipt_store.read_records(conn, ws)
            ids = [r[0] for r in conn.exec_driver_sql("SELECT id FROM memdesk_receipts ORDER BY id")]
        assert rec["id"].tolist() == ids and len(ids) == len(receipts) + len(more)
        assert {text[c] for c in rec["run"]} == {r.run_id for r in receipts + more}
        assert summary(load_runs(ws)) == summary(table_of(receipts + more))


def test_rows_written_or_deleted_behind_the_blocks_are_seen(tmp_path: Path) -> None:
    receipts = sample()
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        receipt_store.ingest(ws, receipts[:-20])
        with ws.write() as conn:  # another writer's rows with no block (SQL by hand, an older build)
            conn.exec_driver_sql(receipt_store.INSERT, [receipt_store._row(r) for r in receipts[-20:]])
        assert summary(load_runs(ws)) == summary(table_of(receipts))
        with ws.write() as conn:
            conn.exec_driver_sql("DELETE FROM memdesk_receipts WHERE run_id IN ('case-1-complete', 'run-0000003')")
        kept = [r for r in receipts if r.run_id not in ("case-1-complete", "run-0000003")]
        table = load_runs(ws)
        assert summary(table) == summary(table_of(kept)) and "case-1-complete" not in table.index


def test_as_of_cuts_the_blocks_as_the_rows(tmp_path: Path) -> None:
    receipts = sample()
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        receipt_store.ingest(ws, receipts)
        table = load_runs(ws)
        lo, hi = table.span()
        for now in np.linspace(lo, hi, 7).astype(np.int64).tolist():
            cut = runs.as_of(ws, table, now)
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
