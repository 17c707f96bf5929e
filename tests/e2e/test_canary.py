"""``memory-desk canary``: passes on a fresh workspace, fails naming the check when broken."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlean

from fixtures.memoryos_live import MEMORYOS_SRC, unavailable_reason
from memorydesk.lineage import receipt_store
from memorydesk.lineage.adapters import memoryos_canary
from memorydesk.lineage.tiers import BREAK_PROMOTION_ENV
from memorydesk.store import open_workspace


def canary(path: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", "canary", str(path)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, **env})


def canary_rows(path: Path) -> int:
    conn = sqlean.connect(str(path))
    try:
        rows = sum(conn.execute(f"SELECT count(*) FROM {t} WHERE {c} LIKE 'canary-%'").fetchone()[0]
                   for t, c in (("working_memory_items_table", "session_id"),
                                ("memory_facts_table", "topic"), ("memdesk_mtm_segments", "user_scope")))
    finally:
        conn.close()
    with open_workspace(path, read_only=True) as ws:
        return rows + sum(r.run_id.startswith("canary-") for r in receipt_store.load(ws))


def fresh(path: Path) -> Path:
    open_workspace(path, create=True).close()
    return path


def test_canary_passes_on_a_fresh_workspace(tmp_path: Path) -> None:
    path = fresh(tmp_path / "fresh.db")
    result = canary(path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "PASS leftovers", "PASS store", "PASS capacity", "PASS restart", "PASS isolation", "PASS promotion",
        "PASS lineage",
        "PASS dispatch", "PASS freshness", "PASS cleanup",
        "SKIP memoryos" if memoryos_canary.unavailable() else "PASS memoryos"]
    assert canary_rows(path) == 0


@pytest.mark.slow
@pytest.mark.skipif(unavailable_reason() is not None, reason=unavailable_reason() or "")
def test_canary_runs_through_the_real_memoryos_when_it_is_importable(tmp_path: Path) -> None:
    path = fresh(tmp_path / "fresh.db")
    paths = [p for p in (os.environ.get("PYTHONPATH"), str(MEMORYOS_SRC)) if p]
    result = canary(path, PYTHONPATH=os.pathsep.join(paths))
    assert result.returncode == 0, result.stdout + result.stderr
    line = result.stdout.splitlines()[-1]
    assert line.startswith("PASS memoryos: ") and "runs healthy or waiting" in line and "memoryos src-" in line
    assert canary_rows(path) == 0


def test_canary_passes_on_a_product_workspace(product_db: Path) -> None:
    assert canary(product_db).returncode == 0


def test_canary_fails_naming_the_broken_promotion(tmp_path: Path) -> None:
    path = fresh(tmp_path / "broken.db")
    result = canary(path, **{BREAK_PROMOTION_ENV: "1"})
    assert result.returncode == 1
    failed = [line for line in result.stdout.splitlines() if line.startswith("FAIL")]
    assert any(line.startswith("FAIL promotion: ") and "24 removals without a target commit" in line
               for line in failed)
    assert any(line.startswith("FAIL lineage: ") and "source_at_risk" in line for line in failed)
    assert canary_rows(path) == 0


def test_canary_passes_on_a_fresh_demo_workspace(tmp_path: Path) -> None:
    path = tmp_path / "demo.db"
    built = subprocess.run([sys.executable, "-m", "memorydesk", "demo", "create", str(path), "--facts", "300",
                            "--embed", "0", "--quiet"], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    result = canary(path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert canary_rows(path) == 0


def test_stop_ends_the_gate_and_removes_its_memories_even_when_sigint_was_ignored(tmp_path: Path) -> None:
    """A desk started with SIGINT ignored (as a shell's background job is) still stops its canary."""
    import signal

    from memorydesk.lineage.canary import CanaryStopped, run_gate_apart

    path = fresh(tmp_path / "fresh.db")
    seen: list[str] = []
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # what the gate's process inherits
    try:
        with pytest.raises(CanaryStopped, match="everything it had written was removed"):
            run_gate_apart(path, progress=lambda _d, _t, text: seen.append(text),
                           cancelled=lambda: any(text.startswith("batch 1") for text in seen))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert canary_rows(path) == 0


def _killed_at(path: Path, point: str) -> None:
    """Start the gate, and SIGKILL it (its whole process group) where the named test point stops it."""
    import signal

    proc = subprocess.Popen([sys.executable, "-m", "memorydesk", "canary", str(path)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "MEMORYDESK_TEST_STOP_AT": point})
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith(f"memory-desk: test point {point.replace(':', ' ')}"):
            break
    else:
        raise AssertionError(f"the gate never reached {point}")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stderr.close()


def test_a_killed_canary_is_found_by_check_and_review_and_removed_by_the_next_run(tmp_path: Path) -> None:
    """Issue 35, point 4: a canary killed mid-way left its facts (active: keyword search found them),
    items, conflicts and edges; ``check`` and ``review`` said nothing and the next canary said
    "PASS cleanup". Its rows carry its id; the next run removes them and says what it removed."""
    path = fresh(tmp_path / "ws.db")
    _killed_at(path, "canary.check:1")  # both batches written, nothing checked or removed yet
    left = canary_rows(path)
    assert left > 24
    checked = subprocess.run([sys.executable, "-m", "memorydesk", "check", str(path), "--json"], capture_output=True,
                             text=True, timeout=120)
    import json

    report = json.loads(checked.stdout)
    assert checked.returncode == 1 and report["summary"]["canary_leftover"] > 0
    tables = {p["table"] for p in report["problems"] if p["kind"] == "canary_leftover"}
    # (its last batch moved what was in short-term memory on to mid-term memory: no hot items are left)
    assert {"memory_facts_table", "memdesk_mtm_segments", "memory_conflicts_table"} <= tables
    reviewed = subprocess.run([sys.executable, "-m", "memorydesk", "review", str(path)], capture_output=True,
                              text=True, timeout=300)
    assert "stopped before it removed its rows" in reviewed.stderr and "memory_facts_table" in reviewed.stderr
    done = canary(path)
    assert done.returncode == 0, done.stdout + done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("PASS leftovers: removed what earlier runs left") and "memory_facts_table" in first
    assert "PASS cleanup: canary removed, and no canary rows are left" in done.stdout
    assert canary_rows(path) == 0


def test_check_repair_removes_what_a_killed_canary_left(tmp_path: Path) -> None:
    path = fresh(tmp_path / "ws.db")
    _killed_at(path, "canary.batch:2")  # batch 1 written by its worker, batch 2 not begun
    assert canary_rows(path) > 0
    done = subprocess.run([sys.executable, "-m", "memorydesk", "check", str(path), "--repair"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "repaired: removed what canary run canary-" in done.stdout, done.stdout
    assert canary_rows(path) == 0 and "no problems found" in done.stdout


def test_the_canary_leaves_no_run_that_is_judged_at_risk_later(tmp_path: Path) -> None:
    """The operator's finding: Tools ▸ Run Canary kept its receipts and removed its memories while
    its last batch's runs still declared a 24 h wait in STM; judged a day later the four
    ``run-2`` runs were ``promotion_missing`` for ever — four false at-risk runs per daily canary.
    Every run now ends in a durable tier before its memories go: a day later and a week later
    its runs are stale evidence, never at-risk."""
    from datetime import timedelta

    from memorydesk.core.health.scalar import classify
    from memorydesk.core.health.table import Color, HealthState
    from memorydesk.lineage.canary import gate

    path = fresh(tmp_path / "fresh.db")
    checks = gate(path, keep_receipts=True)
    assert all(c.passed for c in checks if c.name != "memoryos"), [c.line() for c in checks]
    with open_workspace(path, read_only=True) as ws:
        receipts = [r for r in receipt_store.load(ws) if r.canary]
    assert {r.run_id.split("/")[1] for r in receipts} == {"run-1", "run-2"}
    newest = max(r.at_utc for r in receipts)
    for later in (timedelta(hours=25), timedelta(days=7)):
        verdicts = classify(receipts, now=newest + later)
        assert len(verdicts) == 8
        assert [v.run_id for v in verdicts if v.color == Color.AT_RISK] == []
        assert {v.state for v in verdicts} == {HealthState.STALE_EVIDENCE}
    assert canary_rows(path) == len(receipts)  # its memories are gone, its receipts stay
