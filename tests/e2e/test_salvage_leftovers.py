"""What a killed salvage leaves is removed by the next salvage or open (issue 26, point 11).

A killed ``salvage`` left ``.OUT.db.salvage-PID`` (with ``-wal``/``-shm``, and
``-header`` for a repaired header copy) that nothing removed. The next salvage to that
target, or a read-write open of a file of that name, removes what dead processes of its
own left (never a live process's build). The slow test kills real salvages at seeded
moments.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixtures.product_fixture import build
from memorydesk import cli
from memorydesk.store import open_workspace


def _dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


def _leftovers(target: Path, pid: int) -> list[Path]:
    made = [target.with_name(f".{target.name}.salvage-{pid}{suffix}")
            for suffix in ("", "-wal", "-shm", "-journal", "-header", "-header-wal")]
    for path in made:
        path.write_bytes(b"left by a killed salvage")
    return made


def test_the_next_salvage_removes_what_a_killed_one_left(tmp_path: Path, capsys) -> None:
    source = build(tmp_path / "ws.db")
    out = tmp_path / "saved.db"
    dead = _leftovers(out, _dead_pid())
    alive = out.with_name(f".{out.name}.salvage-1")  # pid 1 is alive: a build that is still running
    alive.write_bytes(b"someone else's")
    assert cli.main(["salvage", str(source), str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert not [p for p in dead if p.exists()] and alive.exists()


def test_a_read_write_open_removes_them_too(tmp_path: Path) -> None:
    ws = build(tmp_path / "ws.db")
    dead = _leftovers(ws, _dead_pid())
    with open_workspace(ws, read_only=True):
        pass
    assert all(p.exists() for p in dead)  # a read-only open writes nothing beside the file
    with open_workspace(ws):
        pass
    assert not [p for p in dead if p.exists()]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_salvages_killed_at_seeded_moments_leave_nothing_after_the_next(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    source = tmp_path / "ws.db"
    with open_workspace(source, create=True) as ws, ws.write() as conn:
        for i in range(3000):
            conn.exec_driver_sql(
                "INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, updated_at) "
                "VALUES (?, ?, 'ops', ?, ?, 1795000000, 1795000000)",
                (f"fact-{i:05d}", ws.workspace_id, f"topic {i}", "words " * rng.randint(5, 80)))
    out = tmp_path / "saved.db"
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-m", "memorydesk", "salvage", str(source), str(out), "--quiet"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.5, 4.0))
        proc.kill()
        proc.wait()
        out.unlink(missing_ok=True)  # a salvage that finished before the kill: start again
    done = subprocess.run([sys.executable, "-m", "memorydesk", "salvage", str(source), str(out), "--quiet"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saved.db", "ws.db"] + sorted(
        p.name for p in tmp_path.iterdir() if p.name.startswith("ws.db-"))
