"""Salvage always finishes and reads through a broken header; ``check`` says what is wrong (issue 35, points 2, 3).

2. One flipped cell pointer (byte ``311*4096+100`` of the product sample) made salvage loop for ever
   on ``memory_access_grants_table`` (a seek past the damaged cell landed on an earlier row, so the
   same rows were read again and again) and left ``.salvage-PID`` files behind.
3. With only bytes 18–19, the page count or the magic string damaged, salvage said "nothing can be
   salvaged", and ``check`` called the file "truncated" or "not an SQLite database".
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import sqlean

from helpers import SAMPLE_DB, sha256
from memorydesk import cli
from memorydesk.store.salvage import TableSalvage
from memorydesk.store.salvage_reader import Reader

FLIPPED = 311 * 4096 + 100


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    if not SAMPLE_DB.is_file():
        pytest.skip("../shared/data is not present in this checkout")
    path = tmp_path / "w.db"
    path.write_bytes(SAMPLE_DB.read_bytes())
    return path


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def _set(path: Path, offset: int, value: bytes) -> None:
    data = bytearray(path.read_bytes())
    data[offset:offset + len(value)] = value
    path.write_bytes(bytes(data))


def _facts(path: Path) -> list[tuple]:
    conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return conn.execute("SELECT id, domain, topic, content, superseded_by FROM memory_facts_table "
                            "ORDER BY id").fetchall()
    finally:
        conn.close()


def _salvage(source: Path, out: Path) -> subprocess.CompletedProcess:
    """In a process of its own, bounded: the old salvage never ended on this file."""
    return subprocess.run([sys.executable, "-m", "memorydesk", "salvage", str(source), str(out)],
                          capture_output=True, text=True, timeout=300)


def test_a_flipped_cell_pointer_is_stepped_over_once_and_salvage_finishes(sample: Path, tmp_path: Path) -> None:
    _flip(sample, FLIPPED)
    before = sha256(sample)
    out = tmp_path / "saved.db"
    done = _salvage(sample, out)
    assert done.returncode == 1, done.stderr  # finished, and says a row was lost
    line = next(x for x in done.stdout.splitlines() if x.startswith("memory_access_grants_table:"))
    assert line == "memory_access_grants_table: 93 row(s) copied of 94; rows with rowids 47 could not be read"
    assert "every row was copied" not in done.stdout and "could not be read (above)" in done.stdout
    assert len(_facts(out)) == 291 and sha256(sample) == before
    assert not [p.name for p in tmp_path.iterdir() if ".salvage-" in p.name]  # no .salvage-PID files


def test_every_read_moves_forward_and_a_walk_has_a_bound(sample: Path) -> None:
    """The reader on the damaged table: each stretch is recorded once; with too few reads allowed it
    stops and counts the rest as one lost stretch instead of reading on."""
    _flip(sample, FLIPPED)
    conn = sqlean.connect(f"file:{sample}?immutable=1", uri=True)
    try:
        columns = '"workspace_id", "agent_role", "memory_domain", "permission"'
        result = TableSalvage("memory_access_grants_table")
        reader = Reader(conn, "memory_access_grants_table", columns, result, budget=10_000)
        rowids = [row[0] for batch in reader.batches() for row in batch]
        assert rowids == sorted(set(rowids)) and len(rowids) == 93 and result.lost == [(47, 47)]
        assert reader.allowed - reader.budget < 600  # the old walk re-read these rows ~159,000 times
        short = TableSalvage("memory_access_grants_table")
        stopped = [row for batch in Reader(conn, "memory_access_grants_table", columns, short, budget=3).batches()
                   for row in batch]
        assert short.failed.startswith("reading stopped after 3 reads") and short.lost[-1][1] == 2**63 - 1
        assert len(stopped) < 94 and not short.complete
    finally:
        conn.close()


@pytest.mark.parametrize(("case", "offset", "value", "said"), [
    ("format bytes", 18, b"\x07\x09", "bytes 18–19 (the file-format versions) hold 7 and 9"),
    ("format bytes zero", 18, b"\x00\x00", "bytes 18–19 (the file-format versions) hold 0 and 0"),
    ("page count", 28, (99_999).to_bytes(4, "big"), "bytes 28–31 say the file has 99,999 pages"),
    ("magic", 0, b"garbage garbage\x00", "bytes 0–15 hold b'garbage garbage\\x00'"),
    ("magic zeroed", 0, bytes(16), "bytes 0–15 hold"),
])
def test_salvage_reads_through_a_broken_header_and_check_says_what_is_broken(
        sample: Path, tmp_path: Path, case: str, offset: int, value: bytes, said: str) -> None:
    whole = _facts(sample)
    assert len(whole) == 291
    _set(sample, offset, value)
    before = sha256(sample)
    out = tmp_path / "saved.db"
    done = _salvage(sample, out)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"wrote {out}: every row was copied"
    assert _facts(out) == whole  # 291 of 291 facts, as they were
    checked = subprocess.run([sys.executable, "-m", "memorydesk", "check", str(sample)], capture_output=True,
                             text=True, timeout=120)
    assert checked.returncode == 2 and checked.stderr.count("\n") == 1, checked.stderr
    assert "the file's header is damaged" in checked.stderr and said in checked.stderr, checked.stderr
    assert "truncated" not in checked.stderr and "not an SQLite database" not in checked.stderr
    if case == "page count":
        assert "the count is damaged, not the file" in checked.stderr
    assert "salvage" in checked.stderr and sha256(sample) == before


def test_a_file_cut_short_is_still_called_truncated(sample: Path, capsys) -> None:
    data = sample.read_bytes()
    sample.write_bytes(data[: len(data) // 2])  # half the pages: the tables point past the end
    code = cli.main(["check", str(sample)])
    _out, err = capsys.readouterr()
    assert code == 2 and "the file is truncated" in err and "header is damaged" not in err


def test_a_salvage_stopped_by_sigterm_leaves_no_build_files(sample: Path, tmp_path: Path) -> None:
    """SIGTERM (a service manager, `timeout`) ends a salvage the way Ctrl+C does: its build is removed."""
    out = tmp_path / "saved.db"
    env_hook = {"MEMORYDESK_TEST_STOP_AT": "salvage.table:3"}
    import os

    proc = subprocess.Popen([sys.executable, "-m", "memorydesk", "salvage", str(sample), str(out)],
                            env={**os.environ, **env_hook}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:  # the hook's mark: the process waits there for the signal
        if line.startswith("memory-desk: test point salvage.table 3"):
            break
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in err
    assert not out.exists() and not [p.name for p in tmp_path.iterdir() if ".salvage-" in p.name]
