"""Kept recall-audit runs on the command line, as a pipeline uses them: ``audit recall --save``,
``audit runs``, ``audit compare`` and the gate ``audit recall --baseline RUN [--max-drop D]`` —
subprocesses, their output and exit codes, and bad input (one sentence, exit 2)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path


def md(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", "audit", *args], capture_output=True, text=True,
                          timeout=600)


def one_sentence(done: subprocess.CompletedProcess, words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memory-desk: "), done.stderr
    assert words in lines[0], lines[0]


def _twins(path: Path, facts: list[dict], n: int) -> list[str]:
    """Another program writes, for ``n`` facts that came back, a closer twin (its content less its last word)."""
    lost = []
    with sqlite3.connect(path) as conn:
        for f in [f for f in facts if f["lost_at"] == "found"][:n]:
            row = conn.execute("SELECT workspace_id, domain, topic, content, memory_type, veracity, created_at "
                               "FROM memory_facts_table WHERE id = ?", (f["id"],)).fetchone()
            words = row[3].split()
            if len(words) < 3:
                continue
            conn.execute("INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, confidence, "
                         "memory_type, veracity, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1.0, ?, ?, ?, ?)",
                         (str(uuid.uuid4()), row[0], row[1], row[2], " ".join(words[:-1]), row[4], row[5],
                          int(time.time()), int(time.time())))
            lost.append(f["id"])
    return lost


def test_save_list_compare_and_gate(product_db: Path) -> None:
    before = hashlib.sha256(product_db.read_bytes()).hexdigest()
    empty = md("runs", str(product_db))
    assert empty.returncode == 0 and empty.stdout.startswith("no recall-audit runs kept in product.db")
    assert json.loads(md("runs", str(product_db), "--json").stdout) == []
    assert hashlib.sha256(product_db.read_bytes()).hexdigest() == before  # listing reads only

    first = md("recall", str(product_db), "--save", "--json")
    a = json.loads(first.stdout)
    assert first.returncode == (0 if a["summary"]["recall_at_10"] == 1.0 else 1), first.stderr
    assert f"kept as recall-audit run {a['run']} in product.db" in first.stderr
    second = md("recall", str(product_db), "--save", "--json")
    b = json.loads(second.stdout)
    runs = json.loads(md("runs", str(product_db), "--json").stdout)
    assert [r["run"] for r in runs] == [a["run"], b["run"]]
    assert runs[0]["recall"] == a["summary"]["recall_at_10"] and runs[0]["facts"] == len(a["facts"])
    listed = md("runs", str(product_db))
    assert listed.returncode == 0 and a["run"] in listed.stdout and "every fact, command" in listed.stdout

    compared = md("compare", str(product_db), a["run"], b["run"], "--json")
    assert compared.returncode == 0, compared.stderr
    report = json.loads(compared.stdout)
    assert {"a", "b", "newly_lost", "brought_back", "groups"} <= set(report)
    assert (report["a"]["run"], report["a"]["recall"]) == (a["run"], a["summary"]["recall_at_10"])
    assert (report["b"]["run"], report["b"]["recall"]) == (b["run"], b["summary"]["recall_at_10"])
    stages_a = {f["id"]: f["lost_at"] for f in a["facts"]}
    stages_b = {f["id"]: f["lost_at"] for f in b["facts"]}
    assert [e["id"] for e in report["newly_lost"]] == [
        i for i in stages_b if i in stages_a and stages_a[i] == "found" != stages_b[i]]
    text = md("compare", str(product_db), "previous", "latest")
    assert text.returncode == 0 and text.stdout.startswith("recall@10 on the ") and "by group" in text.stdout

    # the gate: nothing changed, so it passes; then another program writes closer twins of found facts
    passed = md("recall", str(product_db), "--baseline", a["run"])
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert f"gate against run {a['run']}" in passed.stdout and "passed" in passed.stdout
    lost = _twins(product_db, a["facts"], 8)
    assert len(lost) >= 4
    failed = md("recall", str(product_db), "--baseline", a["run"], "--max-drop", "0.01")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "FAILED" in failed.stdout and "facts in both runs fell from" in failed.stdout
    gate = json.loads(md("recall", str(product_db), "--baseline", a["run"], "--max-drop", "0.01", "--json").stdout)
    assert gate["gate"]["passed"] is False and gate["gate"]["baseline"] == a["run"]
    newly_lost = gate["gate"]["compare"]["newly_lost"]
    assert newly_lost and {e["id"] for e in newly_lost} <= set(lost)  # only facts given a twin were lost
    for entry in newly_lost:  # each one lost is printed, with the stage it went to and its near-duplicate named
        line = next(ln for ln in failed.stdout.splitlines() if ln.startswith(f"  {entry['id']}:"))
        assert "found → mmr" in line and "near-duplicate" in line and "written after the first run" in line
    twins = {e["id"] for e in gate["gate"]["compare"]["only_in_b"] if e["why"] == f"written after run {a['run']}"}
    assert len(twins) == len(lost)
    allowed = md("recall", str(product_db), "--baseline", a["run"], "--max-drop", "1")
    assert allowed.returncode == 0 and "passed" in allowed.stdout
    assert len(json.loads(md("runs", str(product_db), "--json").stdout)) == 2  # the gate keeps nothing without --save


def test_bad_input_is_one_sentence_exit_2(product_db: Path, tmp_path: Path) -> None:
    bare = md("compare", str(product_db), "latest", "previous")
    one_sentence(bare, "keeps no recall-audit runs yet")
    a = json.loads(md("recall", str(product_db), "--save", "--json").stdout)["run"]
    one_sentence(md("compare", str(product_db), a, "0badc0de"), "keeps no recall-audit run '0badc0de'")
    one_sentence(md("recall", str(product_db), "--baseline", "nope"), "keeps no recall-audit run 'nope'")
    one_sentence(md("compare", str(product_db), a, "latest"), "the same run")
    one_sentence(md("recall", str(product_db), "--baseline", a, "--max-drop", "3"), "--max-drop must be a fraction")
    one_sentence(md("recall", str(product_db), "--max-drop", "0.1"), "--max-drop goes with --baseline")
    for text in ("{not json", '{"query": "x"}', '[{"query": 3}]', '[{"query": "x", "expect": "id"}]'):
        bad = tmp_path / "q.json"
        bad.write_text(text)
        one_sentence(md("recall", str(product_db), "--queries", str(bad), "--save"), "--queries")
    one_sentence(md("recall", str(product_db), "--queries", str(tmp_path / "q.json"), "--baseline", a), "--queries")
    assert len(json.loads(md("runs", str(product_db), "--json").stdout)) == 1  # nothing kept by a refusal
    questions = tmp_path / "good.json"
    questions.write_text(json.dumps([{"query": "deploy", "expect": []}]))
    one_sentence(md("recall", str(product_db), "--queries", str(questions), "--baseline", a), "each fact's own topic")

    # runs of another file of the same workspace (the fixture gives every file one workspace id), copied in
    other = tmp_path / "other.db"
    from fixtures.product_fixture import build

    build(other)
    theirs = json.loads(md("recall", str(other), "--save", "--json").stdout)["run"]
    with sqlite3.connect(product_db) as conn:
        conn.execute("ATTACH ? AS o", (str(other),))
        conn.execute("INSERT INTO memdesk_audit_runs SELECT * FROM o.memdesk_audit_runs")
        conn.execute("INSERT INTO memdesk_audit_facts SELECT * FROM o.memdesk_audit_facts")
    one_sentence(md("compare", str(product_db), a, theirs), f"run {theirs} was taken in another file ({other})")
    one_sentence(md("recall", str(product_db), "--baseline", theirs), "taken in another file")
    listed = md("runs", str(product_db), "--json")
    assert [r["run"] for r in json.loads(listed.stdout)] == [a] and "1 run(s) taken in another file" in listed.stderr
    # a copy of the file holds the original's runs, and refuses them
    copy = tmp_path / "copy.db"
    for suffix in ("", "-wal"):  # cp of a file in WAL mode: the file and its log
        if Path(f"{product_db}{suffix}").exists():
            shutil.copyfile(f"{product_db}{suffix}", f"{copy}{suffix}")
    one_sentence(md("recall", str(copy), "--baseline", a), "copy.db is a copy of it")
    moved = tmp_path / "moved.db"
    for suffix in ("", "-wal", "-shm"):  # a move keeps the file (and its log): its runs stay its own
        if Path(f"{product_db}{suffix}").exists():
            Path(f"{product_db}{suffix}").rename(f"{moved}{suffix}")
    assert [r["run"] for r in json.loads(md("runs", str(moved), "--json").stdout)] == [a]
    product_db = moved

    # a baseline older than a schema change (the product upgraded the file)
    with sqlite3.connect(product_db) as conn:
        conn.execute("PRAGMA user_version = 14")
    one_sentence(md("recall", str(product_db), "--baseline", a), f"baseline run {a} was taken before moved.db's "
                                                                   "schema changed (suffixed 13 then, suffixed 14 now)")
