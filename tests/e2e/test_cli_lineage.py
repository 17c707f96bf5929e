"""``memory-desk lineage`` as a user runs it: a subprocess, its output and exit code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fixtures.receipts import NOW_TEXT, complete_lineage, eight_cases, receipt, to_jsonl
from memorydesk.store import open_workspace


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memorydesk", *args], capture_output=True, text=True, timeout=120, input=stdin
    )


def write(tmp_path: Path, rows: list[dict], name: str = "receipts.jsonl") -> Path:
    path = tmp_path / name
    path.write_text(to_jsonl(rows), encoding="utf-8")
    return path


def test_all_healthy_or_waiting_exits_0(tmp_path: Path) -> None:
    waiting = [receipt("stm", "waiting", "v7", run="run-0", minutes=-5, waitingUntil="2025-03-22T15:00:00Z")]
    path = write(tmp_path, complete_lineage("run-1") + waiting)
    result = run("lineage", "classify", str(path), "--now", NOW_TEXT)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[:3] for line in lines] == [
        ["run-0", "waiting", "waiting"],
        ["run-1", "healthy", "healthy"],
    ]
    assert "rule 9:" in lines[1] and result.stderr == ""


def test_eight_cases_as_json_sorted_by_run_id_exit_1(tmp_path: Path) -> None:
    cases = eight_cases()
    rows = [row for _, case_rows, _ in reversed(cases) for row in case_rows]
    path = write(tmp_path, rows)
    result = run("lineage", "classify", str(path), "--now", NOW_TEXT, "--json")
    assert result.returncode == 1, result.stderr
    verdicts = json.loads(result.stdout)
    assert [list(v) for v in verdicts] == [["runId", "state", "color", "reason"]] * len(cases)
    assert [v["runId"] for v in verdicts] == sorted(run_id for run_id, _, _ in cases)
    assert {v["runId"]: v["state"] for v in verdicts} == {run_id: state for run_id, _, state in cases}
    colors = {v["state"]: v["color"] for v in verdicts}
    assert colors["scope_conflict"] == colors["source_at_risk"] == colors["promotion_missing"] == "at-risk"
    assert colors["stale_retrieval"] == "stale"
    assert colors["uncertain"] == colors["generation_unverified"] == "uncertain"
    assert all(v["reason"].startswith("rule ") for v in verdicts)


def test_fresh_for_decides_stale_evidence(tmp_path: Path) -> None:
    path = write(tmp_path, complete_lineage())  # newest receipt at 11:40
    later = "2025-03-23T13:00:00Z"
    stale = run("lineage", "classify", str(path), "--now", later, "--json")
    assert stale.returncode == 1 and json.loads(stale.stdout)[0]["state"] == "stale_evidence"
    for window in ("2d", "26h", "1600m", "100000s"):  # the newest receipt is 25h20m old
        fresh = run("lineage", "classify", str(path), "--now", later, "--fresh-for", window, "--json")
        assert fresh.returncode == 0, (window, fresh.stderr)
        assert json.loads(fresh.stdout)[0]["state"] == "healthy"
    short = run("lineage", "classify", str(path), "--now", NOW_TEXT, "--fresh-for", "10m", "--json")
    assert short.returncode == 1 and json.loads(short.stdout)[0]["state"] == "stale_evidence"


def test_a_bad_line_exits_2_with_its_number_and_classifies_nothing(tmp_path: Path) -> None:
    lines = to_jsonl(complete_lineage()).splitlines()
    lines.insert(3, json.dumps(receipt("stm", "committed") | {"text": "Lena is vegan now"}))
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    for extra in ([], ["--json"]):
        result = run("lineage", "classify", str(path), "--now", NOW_TEXT, *extra)
        assert result.returncode == 2
        assert result.stdout == ""
        assert result.stderr.startswith(f"memory-desk: {path}: line 4: unknown field 'text'")
        assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr


def test_non_utc_time_and_broken_json_are_line_errors(tmp_path: Path) -> None:
    row = receipt("stm", "committed") | {"atUtc": "2025-03-22T12:00:00+02:00"}
    path = tmp_path / "tz.jsonl"
    path.write_text(json.dumps(row) + "\n")
    result = run("lineage", "classify", str(path))
    assert result.returncode == 2
    assert result.stderr.startswith(f"memory-desk: {path}: line 1: field 'atUtc'") and "not in UTC" in result.stderr
    path.write_text(json.dumps(receipt("stm", "committed")) + "\n\n{oops\n")
    result = run("lineage", "classify", str(path))
    assert result.returncode == 2 and result.stderr.startswith(f"memory-desk: {path}: line 3: not valid JSON")


def test_bad_arguments_exit_2_with_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, complete_lineage())
    for args, needle in [
        (["--now", "2025-03-22T12:00:00"], "--now"),
        (["--now", "tomorrow"], "--now"),
        (["--fresh-for", "a day"], "--fresh-for"),
        (["--fresh-for", "0h"], "--fresh-for"),
    ]:
        result = run("lineage", "classify", str(path), *args)
        assert result.returncode == 2, args
        assert needle in result.stderr and len(result.stderr.splitlines()) == 1
        assert "Traceback" not in result.stderr
    missing = run("lineage", "classify", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr and "Traceback" not in missing.stderr


def test_stdin_and_an_empty_file(tmp_path: Path) -> None:
    result = run("lineage", "classify", "-", "--now", NOW_TEXT, "--json", stdin=to_jsonl(complete_lineage()))
    assert result.returncode == 0 and json.loads(result.stdout)[0]["state"] == "healthy"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    result = run("lineage", "classify", str(empty), "--json")
    assert result.returncode == 0 and json.loads(result.stdout) == [] and "no receipts" in result.stderr


def test_ingest_stores_all_or_nothing(tmp_path: Path) -> None:
    from memorydesk.lineage.receipt_store import load
    from memorydesk.store import open_workspace

    ws_path = tmp_path / "ws.db"
    open_workspace(ws_path, create=True).close()
    good = write(tmp_path, complete_lineage("run-1"))
    result = run("lineage", "ingest", str(ws_path), str(good))
    assert result.returncode == 0, result.stderr
    with open_workspace(ws_path, read_only=True) as ws:
        stored = load(ws)
    assert {r.run_id for r in stored} == {"run-1"} and len(stored) == len(complete_lineage("run-1"))

    bad = tmp_path / "bad.jsonl"
    bad.write_text(to_jsonl(complete_lineage("run-2")) + '{"runId": "run-2", "text": "the user said hi"}\n')
    result = run("lineage", "ingest", str(ws_path), str(bad))
    line = len(complete_lineage()) + 1
    assert result.returncode == 2 and result.stderr.startswith(f"memory-desk: {bad}: line {line}:")
    with open_workspace(ws_path, read_only=True) as ws:
        assert len(load(ws)) == len(stored)  # nothing of the bad file was stored


def held_out(tmp_path: Path) -> Path:
    """Receipts the workspace has never seen, with blank lines, ties and no receiptIds."""
    rows = [row for _, case, _ in reversed(eight_cases()) for row in case]
    rows += [receipt("lpm", "failed", "v22", run="case-1-complete", minutes=-40)]  # ties the lpm commit
    text = to_jsonl(rows).replace("\n", "\n\n", 5)
    path = tmp_path / "held-out.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def new_workspace(path: Path) -> Path:
    """An empty workspace (ingest stores into a workspace; it makes none)."""
    open_workspace(path, create=True).close()
    return path


def test_classify_a_workspace_as_its_ingested_file(tmp_path: Path) -> None:
    file = held_out(tmp_path)
    workspace = new_workspace(tmp_path / "ws.db")
    assert run("lineage", "ingest", str(workspace), str(file)).returncode == 0
    for extra in (["--json"], [], ["--json", "--fresh-for", "2d"]):
        from_file = run("lineage", "classify", str(file), "--now", NOW_TEXT, *extra)
        from_workspace = run("lineage", "classify", str(workspace), "--now", NOW_TEXT, *extra)
        assert from_workspace.returncode == from_file.returncode == 1
        assert from_workspace.stdout == from_file.stdout and from_workspace.stderr == from_file.stderr == ""
    verdicts = json.loads(run("lineage", "classify", str(workspace), "--now", NOW_TEXT, "--json").stdout)
    assert {v["runId"]: v["state"] for v in verdicts}["case-1-complete"] == "uncertain"  # the failed write


def test_classify_a_healthy_workspace_exits_0_and_bad_ones_exit_2(tmp_path: Path, product_db: Path) -> None:
    workspace = new_workspace(tmp_path / "ok.db")
    assert run("lineage", "ingest", str(workspace), str(write(tmp_path, complete_lineage()))).returncode == 0
    healthy = run("lineage", "classify", str(workspace), "--now", NOW_TEXT)
    assert healthy.returncode == 0 and healthy.stdout.split()[:2] == ["run-1", "healthy"]
    empty = run("lineage", "classify", str(product_db), "--json")  # a product file: no receipts yet
    assert empty.returncode == 0 and json.loads(empty.stdout) == [] and "no receipts" in empty.stderr
    import sqlite3

    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    refused = run("lineage", "classify", str(other))
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
    assert "not an agent workspace" in refused.stderr and "Traceback" not in refused.stderr


def test_an_empty_workspace_to_ingest_into_is_one_command_away(tmp_path: Path) -> None:
    """The operator's finding: ``lineage ingest fresh.db`` refused a new path and pointed to ``demo
    create``, which brings 17,699 demo receipts; there was no way to make an empty workspace."""
    receipts = tmp_path / "r.jsonl"
    receipts.write_text(to_jsonl(complete_lineage()), encoding="utf-8")
    fresh = tmp_path / "fresh one.db"
    refused = run("lineage", "ingest", str(fresh), str(receipts))
    assert refused.returncode == 2 and not fresh.exists()
    [line] = refused.stderr.splitlines()
    assert line.startswith("memory-desk: ") and f"memory-desk demo create '{fresh}' --empty" in line
    made = run("demo", "create", str(fresh), "--empty")
    assert made.returncode == 0, made.stderr
    with open_workspace(fresh, read_only=True) as ws, ws.read() as conn:  # nothing in it: no demo content
        assert conn.exec_driver_sql("SELECT count(*) FROM memory_facts_table").scalar() == 0
        assert conn.exec_driver_sql("SELECT count(*) FROM agents_table").scalar() == 0
    assert run("lineage", "ingest", str(fresh), str(receipts)).returncode == 0
    judged = json.loads(run("lineage", "classify", str(fresh), "--now", NOW_TEXT, "--json").stdout)
    assert {v["runId"] for v in judged} == {r["runId"] for r in complete_lineage()}
    mixed = run("demo", "create", str(tmp_path / "other.db"), "--empty", "--facts", "300")
    assert mixed.returncode == 2 and "--empty builds no demo content: leave out --facts" in mixed.stderr
    assert not (tmp_path / "other.db").exists()
