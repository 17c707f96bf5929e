"""A read-only folder or mount with committed changes still in ``-wal`` (issue 26, point 4).

The desk used to open such a file immutable, which ignores the log: ``search`` found 0
hits and ``check`` said "no problems found" about a snapshot that lacked committed rows.
It now reads a private copy of the file and its log (and says so), or refuses.
The mount is a real tmpfs remounted read-only (needs root; skipped elsewhere).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures import damage
from fixtures.product_fixture import build
from memorydesk import cli
from memorydesk.store import files, open_workspace

COMMIT_AND_DIE = ("import os, sys, sqlean; c = sqlean.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=WAL'); "
                  "c.execute(\"UPDATE memory_facts_table SET content = 'Zanzibar rollout every Thursday' "
                  "WHERE id = 'f-03'\"); c.execute(\"DELETE FROM memory_facts_table WHERE id = 'f-12'\"); "
                  "c.commit(); os._exit(0)")


@contextlib.contextmanager
def read_only_mount(tmp_path: Path) -> Iterator[Path]:
    """A workspace whose last commits are only in its ``-wal``, on a mount then made read-only."""
    with damage.small_disk(tmp_path, 8) as disk:
        path = build(disk / "ws.db")
        subprocess.run([sys.executable, "-c", COMMIT_AND_DIE, str(path)], check=True)
        assert files.wal_pending(path)
        done = subprocess.run(["mount", "-o", "remount,ro", str(disk)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot remount read-only here: {done.stderr.strip()}")
        yield path


def _copies() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob(f"{files.COPY_PREFIX}{os.getpid()}-*")}


def test_commands_read_what_is_committed_on_a_read_only_mount(tmp_path: Path, capsys) -> None:
    with read_only_mount(tmp_path) as path:
        before = {p.name: p.read_bytes() for p in path.parent.iterdir()}
        code = cli.main(["search", str(path), "Zanzibar", "--mode", "keyword"])
        out, _err = capsys.readouterr()
        assert code == 0 and "f-03" in out and "1 hit" in out
        code = cli.main(["check", str(path)])
        out, err = capsys.readouterr()
        assert code == 1 and "invalid_row" not in out  # f-12, the invalid row, was deleted in the log
        assert "private copy" in err
        with open_workspace(path, read_only=True) as ws:
            assert ws.copy is not None and not ws.live_refresh and any("private copy" in n for n in ws.notes)
            with ws.read() as conn:
                assert conn.exec_driver_sql("SELECT count(*) FROM memory_facts_table").scalar() == 11
            copy = ws.copy
        assert not copy.exists() and not _copies()
        assert {p.name: p.read_bytes() for p in path.parent.iterdir()} == before  # nothing written there


def test_salvage_reads_the_log_too(tmp_path: Path, capsys) -> None:
    with read_only_mount(tmp_path) as path:
        out = tmp_path / "saved.db"
        assert cli.main(["salvage", str(path), str(out), "--quiet"]) == 0
        with open_workspace(out, read_only=True) as ws, ws.read() as conn:
            content = conn.exec_driver_sql("SELECT content FROM memory_facts_table WHERE id = 'f-03'").scalar()
            assert content == "Zanzibar rollout every Thursday"
        assert not _copies()
