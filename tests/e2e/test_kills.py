"""Kills (SIGKILL) during ``check --repair``, ``lineage ingest``, ``import memoryos`` and ``demo create
--force``, each at a named point of the work (``memorydesk.testpoints``): every file is as before or
done, and no leftover survives the next start.

A kill lands where a test point stops the process, never after a guess of how long the work takes
(issue 35, point 8: two of these counted their kills by timing, and on a busy machine the kills came
after the work had finished). A first run lists the points its work passes; each round then stops a
run at one of them, spread over the list, and kills it there: every round's kill lands.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import sqlean

from fixtures.memoryos_dir import MemoryOSDir, page, qa, session
from fixtures.receipts import synthetic_lines
from memorydesk.demo.place import remove_leftovers
from memorydesk.lineage import receipt_store
from memorydesk.store import files, integrity, open_workspace, receipt_blocks
from memorydesk.testpoints import ENV

# slow; one worker runs them one after another (pytest-xdist's loadgroup): they write big files.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("kills"), pytest.mark.timeout(3600)]


def points(*argv: str) -> list[tuple[str, int]]:
    """The test points one whole run of ``argv`` passes, in order (``MEMORYDESK_TEST_STOP_AT=list``)."""
    done = subprocess.run([sys.executable, "-m", "memorydesk", *map(str, argv)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, ENV: "list"})
    assert done.returncode in (0, 1), done.stderr
    found = [(name, int(n)) for name, n in re.findall(r"^memory-desk: test point (\S+) (\d+)$", done.stderr, re.M)]
    assert found, "the run passed no test point"
    return found


def spread(found: list[tuple[str, int]], rounds: int) -> list[tuple[str, int]]:
    """``rounds`` points spread evenly over ``found`` (each point at least once when there are fewer)."""
    return [found[(i * len(found)) // rounds] for i in range(rounds)] if len(found) >= rounds else \
        [found[i % len(found)] for i in range(rounds)]


def kill_at(point: tuple[str, int], *argv: str) -> None:
    """Run ``argv`` until it stops at ``point`` (it prints the point's line and waits), then SIGKILL it."""
    name, nth = point
    proc = subprocess.Popen([sys.executable, "-m", "memorydesk", *map(str, argv)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, ENV: f"{name}:{nth}"})
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.rstrip("\n") == f"memory-desk: test point {name} {nth}":
            break
    else:
        proc.wait(timeout=60)
        raise AssertionError(f"{argv[0]} never reached {name} {nth} (exit {proc.returncode}): {''.join(seen)[-400:]}")
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


def _memory(path: Path) -> str:
    """A digest of the product's memory rows (what must never change)."""
    conn = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT id, content, superseded_by FROM memory_facts_table ORDER BY id").fetchall()
    finally:
        conn.close()
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()
                  if any(tag in p.name for tag in (".partial-", ".building-", ".importing-")))


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
    listed = tmp_path / "listed" / "repair.db"
    listed.parent.mkdir()
    listed.write_bytes(product_file.read_bytes())
    found = points("check", listed, "--repair")
    assert {"adopt.backup-written", "adopt.tables-made", "repair.fts-rebuilt"} <= {n for n, _ in found}
    for round_, point in enumerate(spread(found, 12)):
        path = tmp_path / f"repair-{round_}.db"
        path.write_bytes(product_file.read_bytes())
        kill_at(point, "check", path, "--repair")
        assert _memory(path) == before, point  # the memory is as it was, wherever the kill landed
        done = subprocess.run([sys.executable, "-m", "memorydesk", "check", str(path), "--repair", "--json"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 1, done.stderr  # finishes: only the fixture's planted problems remain
        assert "fts_out_of_sync" not in json.loads(done.stdout)["summary"]
        assert _leftovers(tmp_path) == [] and len(files.backups_beside(path)) == 1


def test_killed_ingests_store_all_or_nothing(product_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "ingest.db"
    path.write_bytes(product_file.read_bytes())
    with open_workspace(path) as ws:  # adopted once, as its first change would
        ws.adopt()
    receipts = tmp_path / "r.jsonl"
    receipts.write_text("\n".join(synthetic_lines(10_000, 10)) + "\n")
    total = 100_000
    listed = tmp_path / "listed" / "ingest.db"
    listed.parent.mkdir()
    listed.write_bytes(path.read_bytes())
    found = points("lineage", "ingest", listed, receipts)
    assert [n for n, _ in found] == ["ingest.begun", "ingest.names-written", "ingest.block-written"]
    for point in spread(found, 12):
        kill_at(point, "lineage", "ingest", path, receipts)
        with open_workspace(path, read_only=True) as ws:
            stored = receipt_store.count(ws)
        assert stored == 0, point  # every kill lands before the commit: nothing of it is stored
        if stored:  # a later ingest of the same file stores nothing more
            done = subprocess.run([sys.executable, "-m", "memorydesk", "lineage", "ingest", str(path),
                                   str(receipts)], capture_output=True, text=True, timeout=300)
            assert done.returncode == 0 and "stored 0 receipts" in done.stdout
            with open_workspace(path) as ws, ws.write() as conn:
                assert receipt_blocks.remove(conn, lambda rec, _text: rec["id"] > 0) == total
        assert _leftovers(tmp_path) == []
    done = subprocess.run([sys.executable, "-m", "memorydesk", "lineage", "ingest", str(path), str(receipts)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and f"stored {total} receipts" in done.stdout, done.stdout + done.stderr


def test_killed_demo_builds_leave_the_old_file_or_the_new_one(tmp_path: Path) -> None:
    target = tmp_path / "demo.db"
    args = ["demo", "create", target, "--facts", "3000", "--embed", "0", "--bulk", "on", "--quiet", "--force"]
    subprocess.run([sys.executable, "-m", "memorydesk", *map(str, args)], capture_output=True, timeout=600, check=True)
    found = points(*args)  # over an existing file: the replacing steps are passed too
    assert {"demo.batch", "demo.built", "demo.replacing", "demo.old-log-removed"} <= {n for n, _ in found}
    for point in spread(found, 13) + [found[-1]]:
        old = target.read_bytes()
        kill_at(point, *args)
        assert target.exists(), point  # the old file or the new one, never neither
        if target.read_bytes() != old:  # the new one: complete
            with open_workspace(target, read_only=True) as ws:
                assert integrity.check(ws).summary.get("sqlite_corrupt") is None
        remove_leftovers(target)  # what the next `demo create` does first
        assert _leftovers(tmp_path) == []
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())
    assert os.path.exists(target)


def _memoryos(root: Path) -> Path:
    folder = MemoryOSDir(root)
    folder.short_term = [qa(n, f"2025-05-01 {10 + n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}")
                         for n in range(1500)]
    for s_ in range(60):
        pairs = [qa(10_000 + s_ * 10 + n, f"2025-04-{1 + s_ % 28:02d} 09:00:{n:02d}") for n in range(8)]
        folder.add_session(session(f"session_{s_}", [page(f"page_{s_}_{n}", p) for n, p in enumerate(pairs)],
                                   f"2025-04-{1 + s_ % 28:02d} 10:00:00"))
    return folder.write()


def test_killed_imports_leave_no_workspace_or_a_whole_one(tmp_path: Path) -> None:
    data = _memoryos(tmp_path / "data")
    existing = tmp_path / "existing.db"
    open_workspace(existing, create=True).close()
    into_new = points("import", "memoryos", data, tmp_path / "listed.db", "--timezone", "UTC")
    files.remove_database(tmp_path / "listed.db")
    listed = tmp_path / "listed.db"
    open_workspace(listed, create=True).close()
    into_existing = points("import", "memoryos", data, listed, "--timezone", "UTC")
    files.remove_database(listed)
    assert {"import.planned", "import.applied", "import.built"} <= {n for n, _ in into_new}
    for new_point, old_point in zip(spread(into_new, 6), spread(into_existing, 6), strict=True):
        for target, point in ((tmp_path / "new.db", new_point), (existing, old_point)):
            files.remove_database(tmp_path / "new.db")
            before = _items(existing)
            kill_at(point, "import", "memoryos", data, target, "--timezone", "UTC")
            _settle_import(tmp_path, existing, target, before)


def _settle_import(tmp_path: Path, existing: Path, target: Path, before: int) -> None:
    """After a killed import: no half-made workspace, no half an import; start the next one afresh."""
    if target == existing:
        assert _items(existing) == before  # every kill lands before the commit: as before
    else:
        assert not target.exists()  # no half-made workspace
    files.remove_dead_builds(tmp_path / "new.db", "importing")  # what the next import there does first
    assert _leftovers(tmp_path) == [] and not any(".importing-" in p.name for p in tmp_path.iterdir())


def _items(path: Path) -> int:
    conn = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(*) FROM working_memory_items_table").fetchone()[0]
    finally:
        conn.close()
