"""Stored runs as numpy columns: lanes, bar extents and colours checked against the receipts
themselves; reading only what changed; a workspace naming receipts as its file does."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from fixtures.receipts import NOW, complete_lineage, eight_cases, receipt, to_jsonl
from memorydesk.core.health.scalar import classify
from memorydesk.core.receipt_codes import to_us
from memorydesk.core.receipts import DONE_STATUSES, receipt_from_json
from memorydesk.lineage import receipt_store, run_reads
from memorydesk.lineage.jsonl import parse_jsonl, read_jsonl
from memorydesk.lineage.run_reads import load_changes, load_runs
from memorydesk.lineage.runs import BOUNDARIES, combine, table_of
from memorydesk.store import open_workspace, receipt_blocks

DAY_US = 86_400_000_000


def small_set() -> list[dict]:
    rows = [row for _, case, _ in eight_cases() for row in case]
    rows += complete_lineage("run-canary", user="user-c", assistant="assistant-9")
    for row in rows[-6:]:
        row["canary"] = True
    rows += [receipt("stm", "committed", "v3", run="run-late", user="user-c", minutes=-5, sourceVersion="adapter 9")]
    return rows


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, list]:
    path = tmp_path / "runs.db"
    file = tmp_path / "runs.jsonl"
    file.write_text(to_jsonl(small_set()), encoding="utf-8")
    receipts = read_jsonl(file)
    with open_workspace(path, create=True) as ws:
        receipt_store.ingest(ws, receipts)
    return path, receipts


def test_lanes_extents_and_colours_match_the_receipts(stored) -> None:
    path, receipts = stored
    with open_workspace(path, read_only=True) as ws:
        table = load_runs(ws)
    by_run: dict[str, list] = {}
    for r in receipts:
        by_run.setdefault(r.run_id, []).append(r)
    assert sorted(table.run_ids) == sorted(by_run) and table.receipts == len(receipts)
    verdicts = {v.run_id: v for v in classify(receipts, now=NOW)}
    states = table.states_at(to_us(NOW), DAY_US)
    for i, run_id in enumerate(table.run_ids):
        mine = by_run[run_id]
        first = min(mine, key=lambda r: (r.at_utc, r.line))
        assert table.lanes[table.lane[i]] == (first.user_scope, first.assistant_scope)
        assert table.start[i] == to_us(min(r.at_utc for r in mine))
        assert table.end[i] == to_us(max(r.at_utc for r in mine))
        assert table.count[i] == len(mine)
        assert states[i] == verdicts[run_id].state.rule
        assert bool(table.canary[i]) == any(r.canary for r in mine)
    # runs sorted by lane, then start; lanes by name
    assert table.lanes == sorted(table.lanes)
    keys = list(zip(table.lane.tolist(), table.start.tolist()))
    assert keys == sorted(keys)
    assert [table.lane_offsets[k + 1] - table.lane_offsets[k] for k in range(len(table.lanes))] == \
        [int((table.lane == k).sum()) for k in range(len(table.lanes))]


def test_transitions_memories_and_source_versions(stored) -> None:
    path, receipts = stored
    with open_workspace(path, read_only=True) as ws:
        table = load_runs(ws)
    done = [r for r in receipts if r.status in DONE_STATUSES and r.tier != "stm"]
    assert len(table.tr_time) == len(done)
    assert np.all(np.diff(table.tr_time) >= 0)
    kinds = {"mtm": 0, "lpm": 1, "retrieval": 2, "generation": 3}
    expected = sorted((to_us(r.at_utc), kinds[r.tier], r.run_id) for r in done)
    got = sorted(zip(table.tr_time.tolist(), table.tr_kind.tolist(), [table.run_ids[i] for i in table.tr_run]))
    assert got == expected and len(BOUNDARIES) == 4
    runs = {table.run_ids[i] for i in table.runs_with_source_version("adapter 9")}
    assert runs == {"run-late"}
    evicted = table.index["case-3-stm-evicted"]
    rows = table.mem_times[table.mem_run == evicted]
    assert len(rows) == 1 and rows[0][1] < rows[0][2]  # left STM; never reached MTM (NEVER is the largest)


def test_only_runs_with_new_receipts_are_read_again(stored, monkeypatch) -> None:
    path, receipts = stored
    with open_workspace(path) as ws:
        table = load_runs(ws)
        assert load_changes(ws, table) is None  # nothing new
        more = [receipt_from_json(r) for r in complete_lineage("run-new", user="user-z")]
        more.append(receipt_from_json(receipt("generation", "verified", "v22", run="case-2-capacity-not-reached",
                                              minutes=-1, dependsOnVersion="v22", outcomeReceipt="x")))
        receipt_store.ingest(ws, more)
        read: list[list[str]] = []
        original = run_reads.read_table

        def spy(conn, ws_, run_ids=None, **kw):
            read.append(run_ids)
            return original(conn, ws_, run_ids, **kw)

        monkeypatch.setattr(run_reads, "read_table", spy)
        updated = load_changes(ws, table)
        assert sorted(read[0]) == ["case-2-capacity-not-reached", "run-new"]
        monkeypatch.undo()
        whole = load_runs(ws)
    assert updated.run_ids == whole.run_ids and updated.lanes == whole.lanes
    assert (updated.states_at(to_us(NOW), DAY_US) == whole.states_at(to_us(NOW), DAY_US)).all()
    assert (updated.start == whole.start).all() and (updated.end == whole.end).all()
    assert updated.receipts == whole.receipts == len(receipts) + len(more)
    assert (updated.tr_time == whole.tr_time).all() and (updated.tr_run == whole.tr_run).all()
    assert sorted(map(tuple, updated.mem_times.tolist())) == sorted(map(tuple, whole.mem_times.tolist()))
    assert updated.source_versions and set(updated.source_versions) == set(whole.source_versions)


def test_removed_receipts_read_everything_again(stored) -> None:
    path, _receipts = stored
    with open_workspace(path) as ws:
        table = load_runs(ws)
        with ws.write() as conn:
            code = conn.exec_driver_sql(f"SELECT code FROM {receipt_blocks.NAMES} "
                                        "WHERE name = 'case-1-complete'").scalar()
            receipt_blocks.remove(conn, lambda rec, _text: rec["run"] == code)
        updated = load_changes(ws, table)
    assert "case-1-complete" not in updated.run_ids and len(updated) == len(table) - 1


def test_combine_replaces_and_adds_runs() -> None:
    rows = [receipt_from_json(r, line=n) for n, r in enumerate(small_set(), 1)]
    whole = table_of(rows)
    ids = sorted({r.run_id for r in rows})
    first = table_of([r for r in rows if r.run_id in ids[:6]])
    second = table_of([r for r in rows if r.run_id in ids[4:]])
    merged = combine(first, second)
    assert merged.run_ids == whole.run_ids
    assert (merged.states_at(to_us(NOW), DAY_US) == whole.states_at(to_us(NOW), DAY_US)).all()
    assert (merged.sv_run == whole.sv_run).all() and merged.source_versions


def test_a_workspace_names_receipts_as_the_file_it_ingested(tmp_path: Path) -> None:
    text = "\n" + to_jsonl(small_set()).replace("\n", "\n\n", 3)  # blank lines shift the numbers
    receipts = parse_jsonl(text)
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        receipt_store.ingest(ws, receipts)
        back = receipt_store.load(ws)
    assert [r.line for r in back] == [r.line for r in receipts] and back[0].line == 2
    for moment in (NOW, NOW + timedelta(days=3)):
        assert ([v.to_json() for v in classify(back, now=moment)]
                == [v.to_json() for v in classify(receipts, now=moment)])
