"""``salvage``: every readable row of a damaged workspace, copied into a new one."""

from __future__ import annotations

import sqlean
from pathlib import Path

import pytest

from fixtures import damage
from helpers import sha256
from memorydesk.core.errors import WorkspaceUnusable
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
    with pytest.raises(WorkspaceUnusable, match="already exists"):
        salvage(big, big)
    with pytest.raises(WorkspaceUnusable, match="no such file"):
        salvage(tmp_path / "nope.db", tmp_path / "out.db")
    assert not (tmp_path / "out.db").exists()
