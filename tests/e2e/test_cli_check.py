"""``memory-desk check`` as a user runs it: a subprocess, its output and exit code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import sqlean

from fixtures.product_fixture import PLANTED
from helpers import sha256


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *args], capture_output=True, text=True, timeout=120)


def test_check_reports_the_sample_files_planted_problems(sample_db: Path, expected: dict) -> None:
    before = sha256(sample_db)
    result = run("check", str(sample_db), "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    counts = expected["counts"]
    assert report["summary"] == {
        "superseded_by_dangling": counts["facts_superseded_by_missing_fact"],
        "supersession_cycle": counts["facts_in_supersession_cycles"],
        "edge_dangling": counts["edges_referencing_missing_fact"],
        "conflict_dangling": counts["conflicts_referencing_missing_fact"],
        "policy_source_dangling": counts["policies_with_missing_source_fact"],
        "belief_provenance_dangling": counts["beliefs_with_missing_provenance_fact"],
        "grant_permission_unknown": 1,  # 'admin'; 'READ' is read in another letter case
    }
    assert len(report["problems"]) == sum(report["summary"].values())
    assert all(set(p) == {"kind", "table", "id", "detail"} for p in report["problems"])
    assert sha256(sample_db) == before


def test_check_reports_the_fixtures_planted_problems(product_db: Path) -> None:
    result = run("check", str(product_db), "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["summary"] == PLANTED
    cycle = {p["id"] for p in json.loads(result.stdout)["problems"] if p["kind"] == "supersession_cycle"}
    assert cycle == {"f-09", "f-10"}


def test_missing_fts_entry_is_found_then_repaired(product_db: Path) -> None:
    conn = sqlean.connect(str(product_db))
    conn.execute("INSERT INTO memory_facts_fts(memory_facts_fts, rowid, topic, content, workspace_id) "
                 "SELECT 'delete', rowid, topic, content, workspace_id FROM memory_facts_table WHERE id = 'f-03'")
    conn.commit()
    conn.close()
    report = json.loads(run("check", str(product_db), "--json").stdout)
    out_of_sync = [p for p in report["problems"] if p["kind"] == "fts_out_of_sync"]
    assert [p["id"] for p in out_of_sync] == ["f-03"]

    repaired = run("check", str(product_db), "--repair", "--json")
    assert repaired.returncode == 1  # the planted memory problems stay: repair never rewrites memory
    after = json.loads(repaired.stdout)
    assert "fts_out_of_sync" not in after["summary"]
    assert after["summary"] == PLANTED
    assert "rebuilt the full-text index" in after["repaired"]


def test_vector_index_drift_is_found_then_repaired(product_db: Path) -> None:
    vec = b"\x00\x00\x80\x3f" + b"\x00" * 1532
    conn = sqlean.connect(str(product_db))
    conn.execute("UPDATE memory_facts_table SET embedding = ? WHERE id = 'f-01'", (vec,))
    conn.execute("UPDATE memory_facts_table SET embedding = x'0102' WHERE id = 'f-03'")
    conn.commit()
    conn.close()
    from memorydesk.store import open_workspace

    with open_workspace(product_db) as ws:  # what the desk's first change does first: our tables, the index
        ws.adopt()
    assert run("check", str(product_db), "--repair").returncode == 1
    conn = sqlean.connect(str(product_db))
    conn.execute("UPDATE memory_facts_table SET embedding = ? WHERE id = 'f-04'", (vec,))  # a product write
    conn.commit()
    conn.close()
    report = json.loads(run("check", str(product_db), "--json").stdout)
    assert [p["id"] for p in report["problems"] if p["kind"] == "vector_out_of_sync"] == ["f-04"]
    assert [p["id"] for p in report["problems"] if p["kind"] == "embedding_malformed"] == ["f-03"]
    after = json.loads(run("check", str(product_db), "--repair", "--json").stdout)
    assert "vector_out_of_sync" not in after["summary"] and after["summary"]["embedding_malformed"] == 1


def test_clean_workspace_exits_zero(tmp_path: Path) -> None:
    path = tmp_path / "clean.db"
    from memorydesk.store import open_workspace

    open_workspace(path, create=True).close()
    result = run("check", str(path))
    assert result.returncode == 0 and "no problems found" in result.stdout


def test_unusable_file_exits_two_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("not a database")
    result = run("check", str(path), "--json")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "not an SQLite database" in result.stderr
