"""``salvage``: every readable row of a damaged workspace, copied into a new one."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlean

from fixtures import damage
from helpers import sha256
from memorydesk.core.errors import BadInput, WorkspaceUnusable
from memorydesk.search.agent import search
from memorydesk.store import integrity, open_workspace
from memorydesk.store.salvage import salvage

FACTS = 1500


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """A workspace whose fact table spans many pages."""
    path = tmp_path / "big.db"
    with open_workspace(path, create=True) as ws, ws.write() as conn:
        conn.exec_driver_sql("INSERT INTO agents_table (id, name, title, agent_md_path, workspace_id, skills) "
                             "VALUES ('a-1', 'Ada', 'coder', '', ?, '[]')", (ws.workspace_id,))
        for i in range(FACTS):
            conn.exec_driver_sql(
                "INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, updated_at) "
                "VALUES (?, ?, 'ops', ?, ?, 1795000000, 1795000000)",
                (f"fact-{i:05d}", ws.workspace_id, f"topic {i}", f"deploy note number {i} " + "words " * 30))
    damage.checkpoint(path)
    return path


def _facts(path: Path) -> set[str]:
    conn = sqlean.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT id FROM memory_facts_table")}
    finally:
        conn.close()


def test_rows_around_a_damaged_page_are_copied_and_the_loss_is_said(big: Path, tmp_path: Path) -> None:
    leaves = damage.leaf_pages(big, "memory_facts_table")
    assert len(leaves) > 20
    everything = _facts(big)
    damage.zero_page(big, leaves[len(leaves) // 2])
    before = sha256(big)
    out = tmp_path / "saved.db"
    report = {t.table: t for t in salvage(big, out)}
    assert sha256(big) == before  # the source is only read
    facts = report["memory_facts_table"]
    assert facts.lost and not facts.failed
    saved = _facts(out)
    assert saved < everything and len(everything) - len(saved) < FACTS // 10
    lost_rowids = sum(b - a + 1 for a, b in facts.lost)
    assert facts.copied == len(saved) and lost_rowids >= len(everything) - len(saved)
    assert "could not be read" in facts.line() and report["agents_table"].complete
    with open_workspace(out, read_only=True) as ws:
        checked = integrity.check(ws, thorough=True)
        assert "sqlite_corrupt" not in checked.summary and "fts_out_of_sync" not in checked.summary
        assert search(ws, "deploy note 7", mode="keyword").hits  # the full-text index was rebuilt
        with ws.read() as conn:
            indexed = conn.exec_driver_sql("SELECT count(*) FROM memory_facts_fts WHERE memory_facts_fts MATCH "
                                           "'deploy AND note'").scalar()
        assert indexed == len(saved)


def test_a_header_sqlite_refuses_is_read_from_a_repaired_copy(big: Path, tmp_path: Path) -> None:
    damage.set_header_int(big, 44, 9)  # "unsupported file format"
    before = sha256(big)
    out = tmp_path / "saved.db"
    report = salvage(big, out)
    assert all(t.complete for t in report)
    assert _facts(out) == _facts_after_fix(big, tmp_path)
    assert sha256(big) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.db", "saved.db"]  # no copy left behind


def _facts_after_fix(path: Path, tmp_path: Path) -> set[str]:
    fixed = tmp_path / "fixed.db"
    fixed.write_bytes(path.read_bytes())
    damage.set_header_int(fixed, 44, 4)
    try:
        return _facts(fixed)
    finally:
        fixed.unlink()


def test_salvage_refuses_an_existing_target_and_a_missing_source(big: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    other.write_bytes(b"mine")
    with pytest.raises(WorkspaceUnusable, match="already exists"):
        salvage(big, other)
    with pytest.raises(BadInput, match="itself"):
        salvage(big, big)
    with pytest.raises(WorkspaceUnusable, match="no such file"):
        salvage(tmp_path / "nope.db", tmp_path / "out.db")
    assert not (tmp_path / "out.db").exists()


def _table_counts(path: Path) -> dict[str, int]:
    from memorydesk.store.engine import raw_connect
    from memorydesk.store.files import table_counts

    conn = raw_connect(path, read_only=True, immutable=True)
    try:
        return {t: n for t, n in table_counts(conn).items() if not t.startswith(("memory_facts_fts_",
                                                                                 "memdesk_fact_vectors_"))}
    finally:
        conn.close()


def test_salvage_copies_every_table_the_file_has(tmp_path: Path, capsys) -> None:
    """Issue 26 point 3: the MemoryOS import's tables, the conflict reviews and tables the desk
    does not know (one WITHOUT ROWID) all arrive, and a re-import into the copy adds nothing."""
    from helpers import SHARED_DATA
    from memorydesk import cli

    data = SHARED_DATA / "memoryos" / "normal" / "data"
    if not data.is_dir():
        pytest.skip("../shared/data is not present in this checkout")
    ws_path, out = tmp_path / "ws.db", tmp_path / "saved.db"
    assert cli.main(["import", "memoryos", str(data), str(ws_path), "--timezone", "Europe/Berlin"]) == 0
    conn = sqlean.connect(str(ws_path))
    conn.execute("INSERT INTO memdesk_conflict_reviews (id, conflict_id, fact_a_id, fact_b_id, decision, actor, "
                 "reason, at) VALUES ('r1', 'c1', 'fa', 'fb', 'kept_both', 'ann', 'both true', 1795000000)")
    conn.execute("CREATE TABLE vendor_notes (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID")
    conn.execute("CREATE INDEX vendor_notes_v ON vendor_notes (v)")
    conn.executemany("INSERT INTO vendor_notes VALUES (?, ?)", [("a", "one"), ("b", "two")])
    conn.execute("CREATE TABLE plain_extra (x)")
    conn.execute("INSERT INTO plain_extra VALUES (42)")
    conn.commit()
    conn.close()
    before = _table_counts(ws_path)
    assert before["memdesk_memoryos_items"] > 100 and before["memdesk_memoryos_pages"] > 50
    capsys.readouterr()
    assert cli.main(["salvage", str(ws_path), str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "every row was copied" in printed and "memdesk_memoryos_items: " in printed
    assert _table_counts(out) == before
    names = {r[0] for r in sqlean.connect(str(out)).execute("SELECT name FROM sqlite_master")}
    assert "vendor_notes_v" in names
    assert cli.main(["import", "memoryos", str(data), str(out), "--timezone", "Europe/Berlin"]) == 0
    assert "nothing new" in capsys.readouterr().out
    assert _table_counts(out) == before


def test_a_table_whose_rows_do_not_all_arrive_is_never_every_row(big: Path, tmp_path: Path) -> None:
    conn = sqlean.connect(str(big))
    conn.execute("CREATE TABLE extra (k TEXT)")
    conn.executemany("INSERT INTO extra VALUES (?)", [("x",), ("y",)])
    conn.commit()
    conn.close()
    damage.checkpoint(big)
    report = {t.table: t for t in salvage(big, tmp_path / "saved.db")}
    extra = report["extra"]
    assert extra.complete and extra.source_rows == extra.copied == 2 and "(all)" in extra.line()
    extra.copied = 1  # what the report says when a count disagrees with what arrived
    assert not extra.complete and "of 2" in extra.line() and "some could not be reached" in extra.line()


def test_a_salvaged_product_file_keeps_its_workspace_id(product_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "saved.db"
    salvage(product_db, out)
    with open_workspace(out, read_only=True) as ws:
        assert ws.workspace_id == "5b0c3f7e-1d2a-4c6b-9e8f-0a1b2c3d4e5f"
        assert [h.id for h in search(ws, "pnpm turbo", mode="keyword").hits] == ["f-01"]


@pytest.mark.parametrize("old_blocks", [False, True])
def test_salvaging_a_file_of_the_receipt_row_layout_moves_its_receipts_into_blocks(tmp_path: Path,
                                                                                   old_blocks: bool) -> None:
    from fixtures import receipt_rows
    from fixtures.receipts import complete_lineage
    from memorydesk.core.receipts import receipt_from_json
    from memorydesk.lineage import receipt_store
    from memorydesk.store import ours

    receipts = [receipt_from_json(r, line=n) for n, r in enumerate(complete_lineage("run-1"), 1)]
    source, out = tmp_path / "old.db", tmp_path / "saved.db"
    with open_workspace(source, create=True) as ws:
        receipt_rows.freeze(ws, receipts, ours.RECEIPT_BLOCKS_ONLY_SCHEMA - 1, old_blocks=old_blocks)
    salvage(source, out)
    with open_workspace(out, read_only=True) as ws:
        assert ws.desk_schema == ours.SCHEMA_VERSION
        assert receipt_store.load(ws) == receipts and [r.line for r in receipt_store.load(ws)] == [1, 2, 3, 4, 5, 6]
        with ws.read() as conn:
            tables = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "memdesk_receipts" not in tables
