"""Salvage beside SQLite's own recovery engine, on the product's sample damaged five ways (issue 35).

For each damage: our ``memory-desk salvage`` (rows of ``memory_facts_table`` and of all tables that
reach the new file, seconds, median of 3) and SQLite's ``.recover`` through every SQLite shell found
here (the Debian ``sqlite3`` package, the ``sqlite3_shell`` APSW ships), its SQL replayed into a fresh
file the same way. A shell that cannot recover says so. Printed, never asserted.

    make bench   # or: pytest tests/bench/bench_salvage.py -s -p no:randomly
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import SAMPLE_DB

CASES = {
    "undamaged": [],
    "flipped cell pointer (byte 311*4096+100)": [(311 * 4096 + 100, None)],
    "bytes 18-19 = 7, 9": [(18, b"\x07\x09")],
    "page count 99,999": [(28, (99_999).to_bytes(4, "big"))],
    "magic string overwritten": [(0, b"garbage garbage\x00")],
}


def _damaged(folder: Path, edits) -> Path:
    path = folder / "w.db"
    data = bytearray(SAMPLE_DB.read_bytes())
    for offset, value in edits:
        if value is None:
            data[offset] ^= 0xFF
        else:
            data[offset:offset + len(value)] = value
    path.write_bytes(bytes(data))
    return path


def _rows(path: Path) -> tuple[int, int]:
    conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                                            "'sqlite_%' AND name NOT LIKE 'memory_facts_fts%' AND name NOT LIKE "
                                            "'memdesk_%'")]
        facts = conn.execute("SELECT count(*) FROM memory_facts_table").fetchone()[0] if "memory_facts_table" in \
            names else 0
        return facts, sum(conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names)
    except sqlite3.Error:
        return 0, 0
    finally:
        conn.close()


def _ours(source: Path, out: Path) -> tuple[float, str]:
    shutil.rmtree(out.parent, ignore_errors=True)
    out.parent.mkdir()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "memorydesk", "salvage", str(source), str(out), "--quiet"],
                          capture_output=True, text=True, timeout=600)
    return time.perf_counter() - started, f"exit {done.returncode}"


def _shells() -> dict[str, str]:
    found = {}
    if shutil.which("sqlite3"):
        found["sqlite3 (Debian) .recover"] = shutil.which("sqlite3")
    try:
        from apsw.sqlite_extra import path as extra_path  # type: ignore[import-not-found]

        found["APSW sqlite3_shell .recover"] = extra_path("sqlite3_shell")
    except Exception:  # noqa: BLE001 - APSW is not a dependency: measured only where it is installed
        pass
    return found


def _recover(shell: str, source: Path, out: Path) -> tuple[float, str]:
    shutil.rmtree(out.parent, ignore_errors=True)
    out.parent.mkdir()
    started = time.perf_counter()
    done = subprocess.run([shell, "-readonly", str(source), ".recover"], capture_output=True, timeout=600)
    took = time.perf_counter() - started
    if done.returncode != 0:
        return took, (done.stderr.decode(errors="replace").strip().splitlines() or ["failed"])[-1][:60]
    conn = sqlite3.connect(out)
    try:
        conn.executescript(done.stdout.decode("utf-8", "replace"))
    except sqlite3.Error as exc:
        return took, f"its SQL fails: {exc}"[:60]
    finally:
        conn.close()
    return took, "exit 0"


@pytest.mark.skipif(not SAMPLE_DB.is_file(), reason="../shared/data is not present in this checkout")
def test_salvage_beside_sqlite_recover(tmp_path: Path) -> None:
    load = os.getloadavg()[0]
    shells = _shells()
    print(f"\nsalvage on the product sample ({SAMPLE_DB.stat().st_size:,} bytes, 291 facts), load {load:.1f}")
    print(f"{'damage':44} {'tool':30} {'facts':>7} {'rows':>6} {'s (median of 3)':>16}  outcome")
    for case, edits in CASES.items():
        (tmp_path / "src").mkdir()
        source = _damaged(tmp_path / "src", edits)
        tools = {"memory-desk salvage": lambda s, o: _ours(s, o)}
        tools.update({name: (lambda s, o, sh=shell: _recover(sh, s, o)) for name, shell in shells.items()})
        for tool, run in tools.items():
            times, outcome = [], ""
            for _ in range(3):
                took, outcome = run(source, tmp_path / "out" / "saved.db")
                times.append(took)
            facts, rows = _rows(tmp_path / "out" / "saved.db") if (tmp_path / "out" / "saved.db").exists() else (0, 0)
            print(f"{case:44} {tool:30} {facts:>7} {rows:>6} {statistics.median(times):>16.2f}  {outcome}")
        shutil.rmtree(tmp_path / "src")
