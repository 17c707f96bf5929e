"""`memory-desk graph WORKSPACE --focus FACT_ID [--json]` on the product-format sample."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys

import pytest

from memorydesk.browse.graph.focus import focus
from memorydesk.store import open_workspace


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", "graph", *args], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.shared
def test_graph_focus_json_is_the_walk_and_changes_nothing(sample_db) -> None:
    with sqlite3.connect(sample_db) as con:
        seed = con.execute("SELECT source_fact_id FROM episodic_edges_table e JOIN memory_facts_table f "
                           "ON f.id = e.source_fact_id GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1").fetchone()[0]
    before = hashlib.sha256(sample_db.read_bytes()).hexdigest()
    done = run(str(sample_db), "--focus", seed, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) == {"focus", "nodes", "edges"} and out["focus"] == seed
    assert all(set(n) == {"id", "kind", "hop", "active"} for n in out["nodes"])
    assert all(set(e) == {"source", "target", "kind", "weight"} for e in out["edges"])
    assert out["nodes"][0] == {"id": seed, "kind": "fact", "hop": 0, "active": True}
    assert {n["hop"] for n in out["nodes"][1:]} == {1, 2}
    with open_workspace(sample_db, read_only=True) as ws:
        assert out == focus(ws, seed).to_json()
    assert hashlib.sha256(sample_db.read_bytes()).hexdigest() == before
    text = run(str(sample_db), "--focus", seed)
    assert text.returncode == 0 and "hop 1" in text.stdout and "hop 2" in text.stdout


@pytest.mark.shared
def test_graph_refuses_an_unknown_fact_in_one_line(sample_db) -> None:
    done = run(str(sample_db), "--focus", "no-such-fact", "--json")
    assert done.returncode == 2 and "no fact" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""
