"""50 random kills (SIGKILL) during ``check --repair``, ``lineage ingest`` and ``demo create --force``:
every file is as before or done, and no leftover survives the next start.

(``import memoryos`` is not in this build yet; its kills belong with it.)
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import sqlean

from fixtures.receipts import synthetic_lines
from memorydesk.demo.place import remove_leftovers
from memorydesk.store import files, integrity, open_workspace

pytestmark = pytest.mark.slow
RNG = random.Random(50)


def _start(*argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "memorydesk", *map(str, argv)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def _kill_after(proc: subprocess.Popen, seconds: float) -> bool:
    """Kill ``proc`` after ``seconds`` (True), unless it finished first (False)."""
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stderr.close()  # type: ignore[union-attr]
        return True
    proc.stderr.close()  # type: ignore[union-attr]
    return False


def _memory(path: Path) -> str:
    """A digest of the product's memory rows (what must never change)."""
    conn = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT id, content, superseded_by FROM memory_facts_table ORDER BY id").fetchall()
    finally:
        conn.close()
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".partial-" in p.name or ".building-" in p.name)


@pytest.fixture(scope="module")
def product_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A product-format file (never adopted) with 5,000 more facts and a full-text index to rebuild."""
    from fixtures.product_fixture import build

    path = build(tmp_path_factory.mktemp("kills") / "pristine.db")
    conn = sqlean.connect(str(path))
    ws_id = conn.execute("SELECT workspace_id FROM memory_facts_table LIMIT 1").fetchone()[0]
    conn.executemany("INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, "
                     "updated_at) VALUES (?, ?, 'bulk', ?, ?, 1795000000, 1795000000)",
                     [(f"k-{i:06d}", ws_id, f"t{i % 97}", f"note {i} about deploys and builds " * 4)
                      for i in range(5_000)])
    conn.execute("DELETE FROM memory_facts_fts_docsize WHERE id % 7 = 0")  # work for --repair
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def test_killed_repairs_leave_the_memory_as_it_was(product_file: Path, tmp_path: Path) -> None:
    before = _memory(product_file)
    killed = 0
    for round_ in range(15):
        path = tmp_path / f"repair-{round_}.db"
        path.write_bytes(product_file.read_bytes())
        killed += _kill_after(_start("check", path, "--repair"), RNG.uniform(0.8, 2.5))
        assert _memory(path) == before  # the memory is as it was, whatever the moment
        done = subprocess.run([sys.executable, "-m", "memorydesk", "check", str(path), "--repair", "--json"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 1, done.stderr  # finishes: only the fixture's planted problems remain
        assert "fts_out_of_sync" not in json.loads(done.stdout)["summary"]
        assert _leftovers(tmp_path) == [] and len(files.backups_beside(path)) == 1
    assert killed >= 5


def test_killed_ingests_store_all_or_nothing(product_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "ingest.db"
    path.write_bytes(product_file.read_bytes())
    open_workspace(path).close()
    receipts = tmp_path / "r.jsonl"
    receipts.write_text("\n".join(synthetic_lines(10_000, 10)) + "\n")
    total = 100_000
    killed = 0
    for _ in range(15):
        killed += _kill_after(_start("lineage", "ingest", path, receipts), RNG.uniform(0.8, 4.0))
        with open_workspace(path, read_only=True) as ws, ws.read() as conn:
            stored = conn.exec_driver_sql("SELECT count(*) FROM memdesk_receipts").scalar()
        assert stored in (0, total)
        if stored:  # a later ingest of the same file stores nothing more
            done = subprocess.run([sys.executable, "-m", "memorydesk", "lineage", "ingest", str(path),
                                   str(receipts)], capture_output=True, text=True, timeout=300)
            assert done.returncode == 0 and "stored 0 receipts" in done.stdout
            with open_workspace(path) as ws, ws.write() as conn:
                conn.exec_driver_sql("DELETE FROM memdesk_receipts")
        assert _leftovers(tmp_path) == []
    assert killed >= 8


def test_killed_demo_builds_leave_the_old_file_or_the_new_one(tmp_path: Path) -> None:
    target = tmp_path / "demo.db"
    args = ["demo", "create", target, "--facts", "6000", "--embed", "0", "--bulk", "on", "--quiet", "--force"]
    first = subprocess.run([sys.executable, "-m", "memorydesk", *map(str, args)], capture_output=True, timeout=600)
    assert first.returncode == 0, first.stderr
    killed = 0
    for round_ in range(20):
        old = target.read_bytes()
        proc = _start("demo", "create", target, "--facts", str(6000 + round_), "--embed", "0", "--bulk", "on",
                      "--quiet", "--force")
        killed += _kill_after(proc, RNG.uniform(0.5, 8.0))
        if target.read_bytes() != old:  # the new one: complete
            with open_workspace(target, read_only=True) as ws:
                assert integrity.check(ws).summary.get("sqlite_corrupt") is None
        remove_leftovers(target)  # what the next `demo create` does first
        assert _leftovers(tmp_path) == []
    assert killed >= 10
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())
    assert os.path.exists(target)
