"""``memory-desk conflicts`` as a user runs it: every conflict row of a product-format
workspace, folded, with the recorded and the rule winner; read-only; one line on bad input."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from fixtures.conflicts import build
from helpers import sha256

KEYS = {"ids", "type", "state", "fact_a", "fact_b", "recorded_winner", "rule_winner", "count", "first_at",
        "last_at", "decision"}
WEIGHTS = {"stated": 1.0, "inferred": 0.7, "tool": 0.5, "imported": 0.6, "unknown": 0.8}


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *args], capture_output=True, text=True, timeout=120)


def rule(facts: dict, a: str, b: str) -> str | None:
    """The product's rule, computed here from the raw rows (independently of the desk)."""
    if a not in facts or b not in facts:
        return None
    (ca, va, ta, ra), (cb, vb, tb, rb) = facts[a], facts[b]
    sa, sb = ca * WEIGHTS.get((va or "").lower(), 1.0), cb * WEIGHTS.get((vb or "").lower(), 1.0)
    if sa == sb:
        return b if (tb, rb) > (ta, ra) else a
    return a if sa > sb else b


def test_json_lists_every_row_folded_with_recorded_and_rule_winner(sample_db: Path, expected: dict) -> None:
    before = sha256(sample_db)
    result = run("conflicts", str(sample_db), "--json")
    assert result.returncode == 0, result.stderr
    lines = json.loads(result.stdout)
    assert all(set(line) == KEYS for line in lines)
    con = sqlite3.connect(f"file:{sample_db}?mode=ro", uri=True)
    rows = {r[0]: r for r in con.execute("SELECT id, fact_a_id, fact_b_id, conflict_type, resolution, "
                                         "winning_fact_id, created_at FROM memory_conflicts_table")}
    facts = {r[0]: r[1:] for r in con.execute("SELECT id, confidence, veracity, created_at, rowid "
                                              "FROM memory_facts_table")}
    con.close()
    listed = [i for line in lines for i in line["ids"]]
    assert sorted(listed) == sorted(rows) and len(rows) == expected["counts"]["conflicts_total"]  # every row, once
    assert len(lines) == len(rows) - 1  # the pair flagged twice is one line
    for line in lines:
        mine = [rows[i] for i in line["ids"]]
        assert {r[3] for r in mine} == {line["type"]} and line["count"] == len(mine)
        assert {frozenset(r[1:3]) for r in mine} == {frozenset((line["fact_a"], line["fact_b"]))}
        assert (line["first_at"], line["last_at"]) == (min(r[6] for r in mine), max(r[6] for r in mine))
        assert line["recorded_winner"] == mine[0][5]
        assert line["state"] == (mine[0][4] or "open")
        assert line["rule_winner"] == rule(facts, line["fact_a"], line["fact_b"])
    dangling = expected["counts"]["conflicts_referencing_missing_fact"]
    assert sum(line["rule_winner"] is None for line in lines) == dangling
    assert [line["last_at"] for line in lines] == sorted((line["last_at"] for line in lines), reverse=True)
    assert sha256(sample_db) == before  # read-only


def test_open_and_fact_filters_and_the_text_form(sample_db: Path, expected: dict) -> None:
    opened = json.loads(run("conflicts", str(sample_db), "--open", "--json").stdout)
    assert sum(line["count"] for line in opened) == expected["counts"]["conflicts_unresolved"]
    assert {line["state"] for line in opened} == {"open"}
    fact = opened[0]["fact_a"]
    touching = json.loads(run("conflicts", str(sample_db), "--fact", fact, "--json").stdout)
    assert touching and all(fact in (line["fact_a"], line["fact_b"]) for line in touching)
    text = run("conflicts", str(sample_db))
    assert text.returncode == 0 and text.stderr.strip() == f"{len(opened) + 12} conflict lines"
    assert "missing fact" in text.stdout and "×2" in text.stdout and "recorded B rule B" in text.stdout
    assert json.loads(run("conflicts", str(sample_db), "--fact", "no-such-fact", "--json").stdout) == []


def test_a_decision_in_the_desk_shows_as_reviewed(tmp_path: Path) -> None:
    path = tmp_path / "ws.db"
    ids = build(path)
    from memorydesk.memory.reviewer import Reviewer
    from memorydesk.store import open_workspace

    pair = json.loads(run("conflicts", str(path), "--fact", ids["pair"][0], "--json").stdout)
    assert [line["state"] for line in pair] == ["open"] and pair[0]["count"] == 3
    with open_workspace(path) as ws:
        Reviewer(ws, "maya").keep_both(pair[0]["ids"][0], reason="both hold")
    after = json.loads(run("conflicts", str(path), "--fact", ids["pair"][0], "--json").stdout)
    assert [line["state"] for line in after] == ["reviewed"]
    assert all(ids["pair"][0] not in (line["fact_a"], line["fact_b"])
               for line in json.loads(run("conflicts", str(path), "--open", "--json").stdout))


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    missing = run("conflicts", str(tmp_path / "nope.db"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "Traceback" not in missing.stderr
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    bad = run("conflicts", str(junk), "--json")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stdout == ""
