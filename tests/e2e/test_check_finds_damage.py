"""``check`` finds what SQLite finds (issue 26, point 5).

SQLite 3.50 returns b-tree errors from ``PRAGMA integrity_check`` as ONE row
``*** in database main ***`` followed by the messages; the desk used to drop that row and
say "no problems found" (and ``--repair`` then wrote into the file). Each damage form
here is checked against the SQLite the desk ships with (sqlean), and ``--repair``
refuses every file SQLite calls damaged: exit 2, the file unchanged, pointing to salvage.
The slow test repeats it for seeded random damage.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sqlean

from fixtures import btree_damage, damage
from helpers import sha256
from memorydesk.store import open_workspace

TABLE = "memory_facts_table"


def _workspace(path: Path) -> Path:
    with open_workspace(path, create=True) as ws, ws.write() as conn:
        for i in range(400):
            long = "overflowing words " * (400 if i % 50 == 0 else 3)
            conn.exec_driver_sql(
                "INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, updated_at) "
                "VALUES (?, ?, 'ops', ?, ?, 1795000000, 1795000000)",
                (f"fact-{i:04d}", ws.workspace_id, f"topic {i}", f"deploy note {i} {long}"))
        conn.exec_driver_sql("DELETE FROM memory_facts_table WHERE rowid % 7 = 0")  # a freelist
    damage.checkpoint(path)
    return path


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _workspace(tmp_path_factory.mktemp("pristine") / "ws.db")


def sqlite_says(path: Path) -> list[str]:
    conn = sqlean.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
    except sqlean.Error as exc:
        return [f"raised: {exc}"]
    finally:
        conn.close()


def memory_desk(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *map(str, argv)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONIOENCODING": "utf-8"})


def assert_check_agrees(path: Path) -> None:
    said = sqlite_says(path)
    checked = memory_desk("check", path)
    assert "Traceback" not in checked.stderr and checked.returncode in (0, 1, 2), checked.stderr
    if said == ["ok"]:
        assert "sqlite_corrupt" not in checked.stdout
        return
    assert checked.returncode in (1, 2), (said, checked.stdout)  # 2: not even the schema reads
    assert "sqlite_corrupt" in checked.stdout or checked.returncode == 2, (said, checked.stdout)
    before = sha256(path)
    repaired = memory_desk("check", path, "--repair")
    assert repaired.returncode == 2 and "salvage" in repaired.stderr, (said, repaired.stdout, repaired.stderr)
    assert repaired.stderr.count("\n") == 1
    assert sha256(path) == before
    assert not [p for p in path.parent.iterdir() if "backup" in p.name]


@pytest.mark.parametrize("form", btree_damage.FORMS)
def test_every_damage_form_sqlite_reports_is_found(pristine: Path, tmp_path: Path, form: str) -> None:
    path = tmp_path / "ws.db"
    shutil.copyfile(pristine, path)
    btree_damage.apply(path, form, TABLE)
    said = sqlite_says(path)
    assert said != ["ok"] and said[0].startswith("*** in database main ***"), said  # the form that was missed
    checked = memory_desk("check", path)
    assert checked.returncode == 1 and "sqlite_corrupt" in checked.stdout, checked.stdout
    assert "no problems found" not in checked.stdout
    assert "*** in database" not in checked.stdout  # the header is not a finding of its own
    assert_check_agrees(path)


def test_the_messages_are_split_one_per_problem(pristine: Path, tmp_path: Path) -> None:
    from memorydesk.store.integrity import check

    path = tmp_path / "ws.db"
    shutil.copyfile(pristine, path)
    btree_damage.freelist_count(path)
    btree_damage.fragmentation(path, TABLE)
    with open_workspace(path, read_only=True) as ws:
        found = [p for p in check(ws).problems if p.kind == "sqlite_corrupt"]
    assert any("Freelist" in p.detail for p in found) and any("Fragmentation" in p.detail for p in found)
    assert all("\n" not in p.detail for p in found)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_seeded_random_damage_is_found_whenever_sqlite_finds_it(pristine: Path, tmp_path: Path, seed: int) -> None:
    path = tmp_path / "ws.db"
    shutil.copyfile(pristine, path)
    btree_damage.random_damage(path, TABLE, seed)
    assert_check_agrees(path)
