"""``memory-desk history``, ``facts --as-of`` and ``diff`` as a user runs them: the JSON contracts,
the exit codes, one line on bad input, and nothing written to either file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.product_changes import change_like_the_product
from fixtures.product_fixture import T0
from helpers import sha256

pytestmark = pytest.mark.slow  # a dozen runs of the command, a few seconds each

HISTORY_KEYS = {"at", "actor", "actor_kind", "kind", "action", "ids", "summary", "reason", "undone", "at_known",
                "entry", "undone_by", "details"}


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *args], capture_output=True, text=True, timeout=120)


def changed_copy(product_db: Path, tmp_path: Path) -> Path:
    changed = tmp_path / "changed.db"
    shutil.copyfile(product_db, changed)
    change_like_the_product(changed, T0 + 3600)
    return changed


def test_history_json_and_filters(product_db: Path, tmp_path: Path) -> None:
    changed = changed_copy(product_db, tmp_path)
    before = sha256(changed)
    done = run("history", str(changed), "--json", "--since", "2026-11-18T11:06:40Z")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert rows and all(set(r) == HISTORY_KEYS for r in rows)
    assert all(r["at"] >= T0 for r in rows) and [r["at"] for r in rows] == sorted((r["at"] for r in rows),
                                                                                 reverse=True)
    assert {"agent", "system"} <= {r["actor_kind"] for r in rows}
    otto = json.loads(run("history", str(changed), "--json", "--actor", "otto", "--kind", "fact").stdout)
    assert {r["ids"][0] for r in otto if r["action"] == "created"} == {"f-03", "f-new"}
    assert sha256(changed) == before
    text = run("history", str(changed), "--until", str(T0))
    assert text.returncode == 0 and "f-01" in text.stdout and "f-new" not in text.stdout
    md = run("history", str(changed), "--format", "markdown", "--content-free", "--since", str(T0 + 3600))
    assert md.returncode == 0 and md.stdout.startswith("# History of")
    assert "Flux" not in md.stdout and "sha256:" in md.stdout and "f-new" in md.stdout


def test_facts_as_of(product_db: Path, tmp_path: Path) -> None:
    changed = changed_copy(product_db, tmp_path)
    done = run("facts", str(changed), "--as-of", str(T0 + 3599), "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["id"]: r for r in json.loads(done.stdout)}
    assert set(next(iter(rows.values()))) == {"id", "domain", "topic", "state", "changed_since"}
    assert rows["f-03"] == {"id": "f-03", "domain": "infrastructure", "topic": "deploy", "state": "active",
                            "changed_since": True}
    assert "f-new" not in rows and rows["f-02"]["state"] == "superseded"
    now = {r["id"]: r for r in json.loads(run("facts", str(changed), "--json").stdout)}
    assert now["f-03"]["state"] == "superseded" and not now["f-03"]["changed_since"]


def test_diff_json_is_sorted_and_exit_zero(product_db: Path, tmp_path: Path) -> None:
    changed = changed_copy(product_db, tmp_path)
    hashes = sha256(product_db), sha256(changed)
    done = run("diff", str(product_db), str(changed), "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) == {"facts", "policies", "grants", "edges", "conflicts", "notes"}
    assert out["facts"]["superseded"] == ["f-03", "f-05"] and out["notes"] == {"changed": ["a-coder"]}
    assert [(g["domain"], g["role"]) for g in out["grants"]] == [("codebase", "general"),
                                                                 ("infrastructure", "designer")]
    assert (sha256(product_db), sha256(changed)) == hashes
    copy = tmp_path / "copy.db"
    shutil.copyfile(product_db, copy)
    equal = json.loads(run("diff", str(product_db), str(copy), "--json").stdout)
    assert equal["facts"] == {"added": [], "removed": [], "superseded": [], "restored": [], "changed": []}
    assert equal["grants"] == [] and equal["edges"] == {"added": [], "removed": []}


def test_bad_input_is_one_line_and_exit_2(product_db: Path, tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a workspace")
    cases = [
        ("history", str(product_db), "--since", "yesterday"),
        ("history", str(product_db), "--since", str(T0 + 10), "--until", str(T0)),
        ("facts", str(product_db), "--as-of", "2026-13-40T00:00:00Z"),
        ("diff", str(product_db), str(product_db)),
        ("diff", str(product_db), str(text)),
        ("diff", str(product_db), str(tmp_path / "missing.db")),
        ("history", str(text)),
    ]
    before = sha256(product_db)
    for args in cases:
        done = run(*args)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("memory-desk: "), (args, done.stderr)
        assert "Traceback" not in done.stderr
    assert sha256(product_db) == before
    assert "is after --until" in run("history", str(product_db), "--since", str(T0 + 10), "--until", str(T0)).stderr
