"""How fast memory over time is (run with ``make bench``): ``diff`` of two 100,000-fact files
with 1 % changed, the History's first page and *as of* first rows at 1,000,000 facts —
each side by side with a plain script in the same run (medians printed, never asserted).

The workspaces are the Conflicts benchmark's (``bench_conflicts.build_big``: topics of one
to six versions, each superseding the last with a contradiction row, open cross-agent
pairs), built once and cached (``bench_files``). The changed copy of the 100,000-fact file
gets 1,000 changes through plain SQL: 400 contents edited in place, 300 facts superseded
by ``system:cleanup``, 200 deleted, 100 new facts.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import statistics
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from bench_conflicts import build_big
from bench_files import cached

from memorydesk.browse import facts as browse
from memorydesk.browse.history.diff import compare
from memorydesk.browse.history.entries import HistoryQuery, history_page
from memorydesk.store import open_workspace

DIFF_FACTS = int(os.environ.get("MEMDESK_BENCH_DIFF_FACTS", "100000"))
BIG_FACTS = int(os.environ.get("MEMDESK_BENCH_FACTS", "1000000"))
RECIPE = 1


def median_s(fn: Callable[[], object], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _change(path: Path) -> None:
    con = sqlite3.connect(path)
    ids = [r[0] for r in con.execute("SELECT id FROM memory_facts_table ORDER BY rowid")]
    ws_id = con.execute("SELECT workspace_id FROM memory_facts_table LIMIT 1").fetchone()[0]
    step = len(ids) // 1000
    picked = ids[::step][:1000]
    with con:
        for fid in picked[:400]:
            con.execute("UPDATE memory_facts_table SET content = content || ' (edited)', updated_at = updated_at + 1 "
                        "WHERE id = ?", (fid,))
        for fid in picked[400:700]:
            con.execute("UPDATE memory_facts_table SET superseded_by = 'system:cleanup' WHERE id = ?", (fid,))
        con.executemany("DELETE FROM memory_facts_table WHERE id = ?", [(f,) for f in picked[700:900]])
        now = int(time.time())
        con.executemany("INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, "
                        "updated_at) VALUES (?, ?, 'decisions', 'new', 'a new fact', ?, ?)",
                        [(str(uuid.uuid4()), ws_id, now, now) for _ in range(100)])
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


@pytest.fixture(scope="module")
def diff_pair() -> tuple[Path, Path]:
    old = cached(f"conflicts-{DIFF_FACTS}-r1.db", lambda p: build_big(p, DIFF_FACTS), f"{DIFF_FACTS:,} facts")

    def build_new(p: Path) -> None:
        shutil.copyfile(old, p)
        _change(p)

    new = cached(f"time-diff-{DIFF_FACTS}-r{RECIPE}.db", build_new, "the copy with 1 % changed")
    return old, new


def plain_diff(old: Path, new: Path) -> int:
    """The baseline: read both fact tables with sqlite3 and compare the rows by id."""
    def read(path: Path) -> dict:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows = {r[0]: r for r in con.execute("SELECT * FROM memory_facts_table")}
        con.close()
        return rows

    a, b = read(old), read(new)
    return len(a.keys() ^ b.keys()) + sum(1 for k, v in a.items() if k in b and b[k] != v)


@pytest.mark.slow
def test_diff_of_two_100k_files(diff_pair: tuple[Path, Path]) -> None:
    old, new = diff_pair
    result = compare(old, new)
    counted = sum(len(v) for v in result.facts.values())
    baseline_found = plain_diff(old, new)
    ours = median_s(lambda: compare(old, new), runs=3)
    plain = median_s(lambda: plain_diff(old, new), runs=3)
    print(f"\ndiff, {DIFF_FACTS:,} facts, 1 % changed: desk {ours:.2f} s (every table, grants resolved) vs plain "
          f"script {plain:.2f} s (facts only) = ×{ours / plain:.2f}; fact differences {counted:,} "
          f"(plain script: {baseline_found:,} rows differ)")


@pytest.fixture(scope="module")
def big() -> Path:
    return cached(f"conflicts-{BIG_FACTS}-r1.db", lambda p: build_big(p, BIG_FACTS), f"{BIG_FACTS:,} facts")


@pytest.mark.slow
def test_history_first_page_and_as_of_first_rows(big: Path) -> None:
    with open_workspace(big, read_only=True) as ws:
        with ws.read() as conn:
            lo, hi = conn.exec_driver_sql(f"SELECT min(created_at), max(created_at) FROM {ws.layout.facts.name}").one()
        first = median_s(lambda: history_page(ws, HistoryQuery(), None, 100))
        day = median_s(lambda: history_page(ws, HistoryQuery(since=hi - 86_400), None, 100))
        page = history_page(ws, HistoryQuery(), None, 100)
        second = median_s(lambda: history_page(ws, HistoryQuery(), page.next_cursor, 100))
        mid = (lo + hi) // 2
        as_of = {state: median_s(lambda s=state: browse.fact_rows(ws, browse.FactQuery(state=s, as_of=mid), 0, 200))
                 for state in ("active", "all", "superseded")}
        now_rows = median_s(lambda: browse.fact_rows(ws, browse.FactQuery(state="active"), 0, 200))
    con = sqlite3.connect(f"file:{big}?mode=ro", uri=True)
    naive = median_s(lambda: con.execute("SELECT * FROM memory_facts_table ORDER BY created_at DESC LIMIT 100")
                     .fetchall(), runs=3)
    plain_as_of = median_s(lambda: con.execute(
        "SELECT * FROM memory_facts_table WHERE created_at <= ? ORDER BY rowid DESC LIMIT 200", (mid,)).fetchall())
    con.close()
    print(f"\nhistory, {BIG_FACTS:,} facts: first page (100) {first * 1000:.0f} ms, next page {second * 1000:.0f} ms, "
          f"first page since a day {day * 1000:.0f} ms; plain script (newest 100 facts by created_at, facts only) "
          f"{naive * 1000:.0f} ms")
    print(f"as of the middle of its span: first 200 rows active {as_of['active'] * 1000:.0f} ms, all "
          f"{as_of['all'] * 1000:.0f} ms, superseded {as_of['superseded'] * 1000:.0f} ms; now (active) "
          f"{now_rows * 1000:.0f} ms; plain script (created by then, no states) {plain_as_of * 1000:.0f} ms")
