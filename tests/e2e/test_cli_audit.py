"""``memory-desk audit recall`` as a user runs it: a subprocess, its output and exit code."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", "audit", "recall", *args], capture_output=True,
                          text=True, timeout=600)


@pytest.mark.shared
def test_product_workspace_every_target_gets_a_stage(sample_db: Path, tmp_path: Path) -> None:
    before = hashlib.sha256(sample_db.read_bytes()).hexdigest()
    listed = run(str(sample_db), "--sample", "12", "--seed", "3", "--json")
    assert listed.returncode == 1, listed.stderr  # recall@10 is far from 1.0 on the product's sample
    report = json.loads(listed.stdout)
    facts = report["facts"]
    assert len(facts) == 12 and report["summary"]["facts"] == 12
    assert all(f["lost_at"] in {"found", "not_candidate", "mmr", "decay", "fusion"} for f in facts)
    assert all((f["rank"] is not None) == (f["lost_at"] == "found") for f in facts)
    again = json.loads(run(str(sample_db), "--sample", "12", "--seed", "3", "--json").stdout)
    assert [f["id"] for f in again["facts"]] == [f["id"] for f in facts]  # the same seeded sample
    queries = tmp_path / "questions.json"
    queries.write_text(json.dumps([{"query": f["query"], "expect": [f["id"]]} for f in facts[:5]]))
    asked = run(str(sample_db), "--queries", str(queries), "--json")
    results = json.loads(asked.stdout)["results"]
    assert [(r["target"], r["lost_at"], r["rank"]) for r in results] == \
        [(f["id"], f["lost_at"], f["rank"]) for f in facts[:5]]
    assert hashlib.sha256(sample_db.read_bytes()).hexdigest() == before  # read-only


@pytest.mark.shared
def test_text_report_and_what_if(sample_db: Path) -> None:
    done = run(str(sample_db), "--sample", "20", "--what-if", "no-mmr")
    assert done.returncode == 1
    assert done.stdout.startswith("recall@10: ")
    assert "what if no-mmr (NOT what the product does)" in done.stdout
    assert "by memory type:" in done.stdout


def test_bad_input_is_one_sentence(product_db: Path, tmp_path: Path) -> None:
    bad = tmp_path / "q.json"
    bad.write_text("{not json")
    for args in ((str(product_db), "--queries", str(bad)), (str(product_db), "--sample", "0"),
                 (str(tmp_path / "missing.db"),), (str(product_db), "--what-if", "faster")):
        done = run(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1].startswith("memory-desk"), done.stderr  # one closing sentence
