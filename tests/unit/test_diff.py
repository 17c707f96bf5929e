"""Comparing two workspace files (``browse.history.diff``) and restoring from a backup through the
reviewer (``memory.actions.restore_backup``), on the product-format fixture, a copy the product
changed through its own SQL, a demo, and the shared sample."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixtures.product_changes import change_like_the_product
from fixtures.product_fixture import T0
from helpers import sha256
from memorydesk.browse.history.diff import compare
from memorydesk.core.errors import BadInput, StaleEdit
from memorydesk.demo.builder import build_demo
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store import open_workspace

EXPECTED = {
    "facts": {"added": ["f-new"], "removed": ["f-04"], "superseded": ["f-03", "f-05"], "restored": [],
              "changed": [{"id": "f-06", "fields": ["content", "updated_at"]}]},
    "policies": {"added": ["p-new"], "removed": ["p-3"],
                 "changed": [{"id": "p-1", "fields": ["active", "updated_at"]}]},
    "grants": [{"role": "general", "domain": "codebase", "before": "none", "after": "write"},
               {"role": "designer", "domain": "infrastructure", "before": "none", "after": "read"}],
    "edges": {"added": [["f-new", "f-01", "related_to"]], "removed": [["f-03", "f-04", "related_to"]]},
    "conflicts": {"added": ["c-new"], "resolved": ["c-2"]},
    "notes": {"changed": ["a-coder"]},
}


@pytest.fixture
def pair(product_db: Path, tmp_path: Path) -> tuple[Path, Path]:
    changed = tmp_path / "changed.db"
    shutil.copyfile(product_db, changed)
    change_like_the_product(changed, T0 + 3600)
    return product_db, changed


def test_the_products_changes_are_each_reported(pair: tuple[Path, Path]) -> None:
    old, new = pair
    hashes = sha256(old), sha256(new)
    result = compare(old, new)
    assert result.to_json() == EXPECTED
    assert (sha256(old), sha256(new)) == hashes  # both only read
    assert result.notes == []
    reverse = compare(new, old).to_json()
    assert reverse["facts"]["added"] == ["f-04"] and reverse["facts"]["restored"] == ["f-03", "f-05"]
    assert reverse["conflicts"] == {"added": [], "resolved": []}  # c-new is only in the newer file


def test_equal_files_and_refusals(product_db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    shutil.copyfile(product_db, copy)
    result = compare(product_db, copy)
    assert result.empty
    assert all(not v for part in result.to_json().values() for v in (part.values() if isinstance(part, dict)
                                                                      else [part]))
    with pytest.raises(BadInput, match="same file"):
        compare(product_db, product_db)
    link = tmp_path / "link.db"
    link.symlink_to(product_db)
    with pytest.raises(BadInput, match="same file"):
        compare(link, product_db)


def test_two_workspaces_are_compared_by_id_and_said_so(product_db: Path, sample_db: Path) -> None:
    result = compare(product_db, sample_db)
    assert result.notes and "different workspaces" in result.notes[0]
    assert "f-01" in result.facts["removed"] and len(result.facts["added"]) > 200


def test_a_demo_against_its_own_backup_after_the_desk_changed_it(tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    build_demo(path, facts=200, seed=5, embed=0, bulk=True)
    backup = tmp_path / "before.db"
    shutil.copyfile(path, backup)
    with open_workspace(path) as ws:
        r = Reviewer(ws, "Ann", embedder=False)
        with ws.read() as conn:
            a, b = [row[0] for row in conn.exec_driver_sql(
                f"SELECT id FROM {ws.layout.facts.name} WHERE superseded_by IS NULL LIMIT 2")]
        r.delete_facts([a], reason="test")
        edited = r.edit_fact(b, domain="decisions", topic="t", content="new words", confidence=0.5, reason="x")
    result = compare(backup, path)
    assert result.facts["superseded"] == sorted([a, b])
    assert result.facts["added"] == [edited.ids[1]]


def test_restore_from_backup_brings_back_and_puts_back_then_undo(pair: tuple[Path, Path]) -> None:
    old, new = pair
    ws = open_workspace(new)
    try:
        r = Reviewer(ws, "Ann", embedder=False)
        back = r.restore_from_backup(old, "fact", "f-04", reason="removed by mistake")
        put = r.restore_from_backup(old, "fact", "f-06", reason="the old format was right")
        r.restore_from_backup(old, "policy", "p-3", reason="still wanted")
        r.restore_grant("general", "codebase", "none", fail_open=False, reason="lock again")
        assert back.entity == "fact" and back.history_ids and put.ids == ["f-06"]
        with pytest.raises(Exception, match="already as"):
            r.restore_from_backup(old, "fact", "f-06")
    finally:
        ws.close()
    after = compare(old, new).to_json()
    assert after["facts"]["removed"] == [] and after["facts"]["changed"] == []
    assert after["policies"]["removed"] == []
    assert [g["role"] for g in after["grants"]] == ["designer"]
    with open_workspace(new) as ws:  # the restored fact is found by the product's own keyword search
        hits = ws.engine.connect().exec_driver_sql(
            "SELECT count(*) FROM memory_facts_fts WHERE memory_facts_fts MATCH 'playwright'").scalar()
        assert hits == 1
        r = Reviewer(ws, "Ann", embedder=False)
        for _ in range(3):  # grant, policy, f-06
            r.undo()
    undone = compare(old, new).to_json()
    assert undone["facts"]["changed"] == EXPECTED["facts"]["changed"]
    assert undone["facts"]["removed"] == []  # f-04 stays back (its restore was not undone)
    assert undone["grants"] == EXPECTED["grants"] and undone["policies"]["removed"] == ["p-3"]


def test_restore_refuses_when_the_row_changed_since(pair: tuple[Path, Path]) -> None:
    old, new = pair
    with open_workspace(new) as ws:
        r = Reviewer(ws, "Ann", embedder=False)
        r.restore_from_backup(old, "fact", "f-06", reason="x")
        with ws.write() as conn:  # an agent edits it again in place
            conn.exec_driver_sql("UPDATE memory_facts_table SET content = 'agent text', updated_at = updated_at + 1 "
                                 "WHERE id = 'f-06'")
        with pytest.raises(StaleEdit):
            r.undo()
        with ws.read() as conn:
            assert conn.exec_driver_sql("SELECT content FROM memory_facts_table WHERE id='f-06'").scalar() \
                == "agent text"


def test_a_version_is_every_column_in_order_with_embeddings_as_their_size(product_db: Path) -> None:
    import sqlite3

    from memorydesk.browse.history.diff import Version, version_of

    with sqlite3.connect(product_db) as db:
        db.execute("UPDATE memory_facts_table SET embedding = ? WHERE id = 'f-01'", (bytes(1536),))
    with open_workspace(product_db, read_only=True) as ws:
        fact = version_of(ws, "fact", "f-01")
        policy = version_of(ws, "policy", "p-1")
        columns = [c.name for c in ws.layout.facts.columns]
        assert version_of(ws, "fact", "no-such-fact") is None
    assert isinstance(fact, Version) and fact.kind == "fact" and fact.id == "f-01"
    assert fact.names == columns and fact.value("id") == "f-01" and fact.value("no_such_column") is None
    assert fact.value("embedding") == "1536 bytes" and fact.value("binary_embedding") is None
    assert policy is not None and policy.value("id") == "p-1" and policy.names[0] == "id"


def test_a_redaction_is_listed_as_changed_text_not_only_as_superseded(tmp_path: Path) -> None:
    """The memory job's finding 7: the diff of a backup against the file after a redaction lists the old
    version under superseded and under changed (its topic or content rewritten in place)."""
    from memorydesk.memory.reviewer import Reviewer
    from memorydesk.memory.service import MemoryService
    from memorydesk.store import files, open_workspace

    path = tmp_path / "w.db"
    with open_workspace(path, create=True) as ws:
        fid = MemoryService(ws, embedder=False).propose_fact(
            domain="ops", topic="stripe", content="Payments use sk_live_51Hx9Kq2Lm8Np4Rt6Vw3Yz7BqQ now.").fact_id
    backup = files.backup_copy(path)
    with open_workspace(path) as ws:
        Reviewer(ws, "rita").redact("fact", fid, "a live key")
    result = compare(backup, path)
    assert fid in result.facts["superseded"]
    assert {"id": fid, "fields": ["content"]} in result.facts["changed"]
