"""``check`` asks SQLite: damage it finds, text it cannot decode, and a repair that refuses to write."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import sqlean

from fixtures import damage
from helpers import sha256
from memorydesk.core.errors import WorkspaceDamaged
from memorydesk.store import files, integrity, open_workspace


def _report(path: Path, thorough: bool = False) -> integrity.Report:
    with open_workspace(path, read_only=True, incomplete_ok=True) as ws:  # as `check` opens it
        return integrity.check(ws, thorough=thorough)


def _sqlite_says(path: Path) -> list[str]:
    conn = sqlean.connect(f"file:{path}?immutable=1", uri=True)
    conn.text_factory = lambda raw: raw.decode("utf-8", "replace")  # messages may quote damaged text
    try:
        rows = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
    except (sqlean.DatabaseError, UnicodeDecodeError) as exc:  # SQLite's message may quote damaged bytes
        return [str(exc)]
    finally:
        conn.close()
    return [] if rows == ["ok"] else rows


def test_a_zeroed_table_root_is_found_and_named(product_db: Path) -> None:
    damage.checkpoint(product_db)
    damage.zero_page(product_db, damage.root_page(product_db, "agents_table"))
    report = _report(product_db)
    corrupt = [p for p in report.problems if p.kind == "sqlite_corrupt"]
    assert corrupt and corrupt[0].table == "agents_table"
    assert report.summary["sqlite_corrupt"] == len(corrupt)
    assert list(report.to_json()) == ["problems", "summary"]  # the JSON contract is unchanged


def test_an_index_that_no_longer_matches_its_table_names_the_row(product_db: Path) -> None:
    damage.checkpoint(product_db)
    index = damage.root_page(product_db, "sqlite_autoindex_memory_facts_table_1")
    size = damage.page_size(product_db)
    data = product_db.read_bytes()
    page = data[(index - 1) * size:index * size]
    damage.flip_byte(product_db, (index - 1) * size + page.index(b"f-03") + 3)  # f-03's key now reads f-0\xcc
    report = _report(product_db)
    corrupt = [p for p in report.problems if p.kind == "sqlite_corrupt"]
    assert any(p.table == "memory_facts_table" and p.id == "f-03" for p in corrupt), corrupt


def test_check_finds_every_damage_sqlite_finds(product_db: Path, tmp_path: Path) -> None:
    """Random byte flips all over the file: whenever integrity_check reports a problem, so does check."""
    damage.checkpoint(product_db)
    clean = product_db.read_bytes()
    rng = random.Random(18)
    found = 0
    for trial in range(60):
        path = tmp_path / f"flip-{trial}.db"
        path.write_bytes(clean)
        damage.flip_byte(path, rng.randrange(100, len(clean)))
        says = _sqlite_says(path)
        try:
            report = _report(path)
        except WorkspaceDamaged:  # the schema itself is unreadable: opening says so (exit 2)
            assert says
            found += 1
            continue
        ours = [p for p in report.problems if p.kind == "sqlite_corrupt"]
        assert bool(ours) == bool(says), (trial, says, ours)
        found += bool(says)
    assert found >= 5  # the flips did hit structure, not only text


def test_text_that_is_not_utf8_is_named_row_by_row(product_db: Path) -> None:
    damage.not_utf8(product_db, "memory_facts_table", "content", "id IN ('f-01', 'f-02')")
    damage.not_utf8(product_db, "memory_beliefs_table", "provenance_fact_ids")
    report = _report(product_db)
    found = {(p.table, p.id, p.detail.split()[0]) for p in report.problems if p.kind == "text_not_utf8"}
    beliefs = {(t, i) for t, i, c in found if t == "memory_beliefs_table"}
    assert {("memory_facts_table", "f-01", "content"), ("memory_facts_table", "f-02", "content")} <= found
    assert len(beliefs) == 1 and len(found) == 3
    assert "fts_out_of_sync" not in report.summary


def test_thorough_compares_the_full_text_index_with_the_facts_and_repair_fixes_it(product_db: Path) -> None:
    conn = sqlean.connect(str(product_db))
    conn.execute("INSERT INTO memory_facts_fts(memory_facts_fts, rowid, topic, content, workspace_id) "
                 "SELECT 'delete', rowid, 'other words', 'entirely', workspace_id FROM memory_facts_table "
                 "WHERE id = 'f-02'")
    conn.commit()
    conn.close()
    quick = _report(product_db)
    thorough = _report(product_db, thorough=True)
    assert [p.table for p in thorough.problems if p.kind == "fts_out_of_sync" and not p.id] == ["memory_facts_fts"]
    assert not [p for p in quick.problems if p.kind == "fts_out_of_sync" and not p.id]
    with open_workspace(product_db) as ws:
        assert "rebuilt the full-text index" in integrity.repair(ws)
    after = _report(product_db, thorough=True)
    assert "fts_out_of_sync" not in after.summary and "sqlite_corrupt" not in after.summary


def test_repair_refuses_a_damaged_file_and_writes_nothing(product_db: Path, capsys) -> None:
    from memorydesk.cli import main

    damage.checkpoint(product_db)
    damage.zero_page(product_db, damage.root_page(product_db, "agents_table"))
    before = sha256(product_db)
    assert main(["check", str(product_db), "--repair"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("memory-desk: ")
    assert "--repair writes nothing into a damaged file" in err and "memory-desk salvage" in err
    assert sha256(product_db) == before
    assert files.backups_beside(product_db) == []
    assert main(["check", str(product_db)]) == 1  # the report itself works


@pytest.mark.parametrize("thorough", [False, True])
def test_a_clean_file_says_no_problems(tmp_path: Path, capsys, thorough: bool) -> None:
    from memorydesk.cli import main

    path = tmp_path / "clean.db"
    open_workspace(path, create=True).close()
    assert main(["check", str(path), *(["--thorough"] if thorough else [])]) == 0
    out, err = capsys.readouterr()
    assert out == "no problems found\n" and err == ""  # a small file always gets the full integrity_check
