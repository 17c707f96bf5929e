"""What a killed salvage leaves is removed by the next salvage or open (issue 26, point 11).

A killed ``salvage`` left ``.OUT.db.salvage-PID`` (with ``-wal``/``-shm``, and
``-header`` for a repaired header copy) that nothing removed. The next salvage to that
target, or a read-write open of a file of that name, removes what dead processes of its
own left (never a live process's build). The slow test kills real salvages at seeded
moments.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.product_fixture import build
from memorydesk import cli
from memorydesk.store import open_workspace
from memorydesk.testpoints import ENV


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
def test_salvages_killed_at_named_points_leave_nothing_after_the_next(tmp_path: Path) -> None:
    """Each kill lands where a test point stops the salvage (``memorydesk.testpoints``): between tables,
    between batches of rows, before the indexes are rebuilt, once the new file is complete — never after
    a guessed delay. The next salvage to the same OUT.db removes what each left, and finishes."""
    source = tmp_path / "ws.db"
    with open_workspace(source, create=True) as ws, ws.write() as conn:
        for i in range(3000):
            conn.exec_driver_sql(
                "INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, updated_at) "
                "VALUES (?, ?, 'ops', ?, ?, 1795000000, 1795000000)",
                (f"fact-{i:05d}", ws.workspace_id, f"topic {i}", "words " * (5 + i % 75)))
    out = tmp_path / "saved.db"
    for point in ("salvage.table:2", "salvage.batch:4", "salvage.indexes:1", "salvage.built:1"):
        proc = subprocess.Popen([sys.executable, "-m", "memorydesk", "salvage", str(source), str(out), "--quiet"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, ENV: point})
        assert proc.stderr is not None
        mark = proc.stderr.readline().strip()  # the salvage stops there and waits
        assert mark == f"memory-desk: test point {point.replace(':', ' ')}", mark
        proc.kill()
        proc.wait()
        proc.stderr.close()
        assert not out.exists() and [p for p in tmp_path.iterdir() if ".salvage-" in p.name], point
    done = subprocess.run([sys.executable, "-m", "memorydesk", "salvage", str(source), str(out), "--quiet"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saved.db", "ws.db"] + sorted(
        p.name for p in tmp_path.iterdir() if p.name.startswith("ws.db-"))
