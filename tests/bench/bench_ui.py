"""How fast the desk is on a 1,000,000-fact workspace (run with ``make bench``).

Measures, and prints: opening the workspace to the first rows painted in the Facts
tab, the background count (the whole list known), a jump to the middle of the list, a
jump to the end, a sort by an unindexed column (confidence) with the longest pause of
the UI thread meanwhile, and a search by keyword and as the agent sees it.
The 1M-fact file is built once with bulk SQL (FTS rebuilt in one pass) and kept in
a cache folder under the system temp directory, keyed by its recipe version.
"""

from __future__ import annotations

import os
import random
import sqlite3
import time
import uuid
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from bench_files import cached

from memorydesk.store import open_workspace

N_FACTS = int(os.environ.get("MEMDESK_BENCH_FACTS", "1000000"))
RECIPE = 2
DOMAINS = ["decisions", "ticket-outcomes", "pr-reviews", "orchestration", "release-notes",
           "repo:acme-web/frontend", "repo:acme-web/infra", "repo:acme-api/backend", "working-memory"]
TYPES = ["fact", "preference", "decision", "event", "observation", "learning", "goal"]
VERACITIES = ["stated", "inferred", "tool", "imported"]
WORDS = ("deploy cache schema token retry budget review queue latency index migration owner "
         "release rollback canary tenant quota alert metric feature flag service gateway").split()


def build_big(path: Path, n: int, seed: int = 1) -> Path:
    """A workspace with ``n`` facts; the FTS index is rebuilt once at the end."""
    ws = open_workspace(path, create=True)
    ws_id, table = ws.workspace_id, ws.layout.facts.name
    ws.close()
    rnd = random.Random(seed)
    now = int(time.time())
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA synchronous = OFF")
    trigger = con.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_facts_ai'").fetchone()[0]
    con.execute("DROP TRIGGER memory_facts_ai")

    def rows():
        for i in range(n):
            words = rnd.sample(WORDS, 6)
            created = now - (n - i) * 30
            yield (str(uuid.UUID(int=rnd.getrandbits(128), version=4)), ws_id, rnd.choice(DOMAINS),
                   f"{words[0]} {words[1]} #{i}", " ".join(words) + f" — note {i} about the {words[2]} path",
                   round(rnd.random(), 3), None if rnd.random() > 0.1 else "human:deleted",
                   rnd.choice(TYPES), rnd.choice(VERACITIES), rnd.randrange(20), 1 + rnd.randrange(5),
                   created, created)

    with con:
        con.executemany(
            f"INSERT INTO {table} (id, workspace_id, domain, topic, content, confidence, superseded_by, "
            "memory_type, veracity, recall_count, mention_count, created_at, updated_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", rows())
        con.execute("INSERT INTO memory_facts_fts(memory_facts_fts) VALUES ('rebuild')")
        con.execute(trigger)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return path


@pytest.fixture(scope="session")
def big_workspace() -> Path:
    return cached(f"facts-{N_FACTS}-r{RECIPE}.db", lambda p: build_big(p, N_FACTS), f"{N_FACTS:,} facts")


@pytest.mark.slow
@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_open_scroll_and_count(big_workspace: Path, qtbot, tmp_path) -> None:
    from PySide6.QtCore import QSettings, Qt, QTimer

    from memorydesk.ui.facts.model import COLUMNS
    from memorydesk.ui.shell.app import ensure_app
    from memorydesk.ui.shell.mainwindow import MainWindow

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path))
    ensure_app()
    t0 = time.perf_counter()
    ws = open_workspace(big_workspace, read_only=True)
    win = MainWindow(ws)
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    facts = win.tab("facts")
    qtbot.waitUntil(lambda: facts.model.rows_loaded() > 0, timeout=60000)
    view = facts.view
    view.viewport().repaint()
    first = time.perf_counter() - t0
    qtbot.waitUntil(lambda: facts.model.count_known(), timeout=120000)
    counted = time.perf_counter() - t0
    total = facts.model.rowCount()

    def jump(row: int) -> float:
        t = time.perf_counter()
        view.scrollTo(facts.model.index(row, 0))
        qtbot.waitUntil(lambda: facts.model.is_row_loaded(row), timeout=60000)
        view.viewport().repaint()
        return time.perf_counter() - t

    middle = jump(total // 2)
    end = jump(total - 1)

    def responsive(start: Callable[[], None], done: Callable[[], bool]) -> tuple[float, float]:
        """(seconds until ``done``, the longest gap between 5 ms timer ticks meanwhile)."""
        ticks = [time.perf_counter()]
        timer = QTimer()
        timer.setInterval(5)
        timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
        timer.start()
        t = time.perf_counter()
        start()
        qtbot.waitUntil(done, timeout=120000)
        took = time.perf_counter() - t
        timer.stop()
        gaps = [b - a for a, b in zip(ticks, ticks[1:])]
        return took, max(gaps, default=0.0)

    column = [name for name, _label in COLUMNS].index("confidence")
    sort_s, sort_stall = responsive(lambda: view.sortByColumn(column, Qt.SortOrder.AscendingOrder),
                                    lambda: win.ops.pending == 0 and facts.query.sort == "confidence")
    keyword_s, _stall = responsive(
        lambda: facts.filters.set_search("deploy rollback"),
        lambda: win.ops.pending == 0 and facts.filters.search_mode.text().startswith("keyword"))
    agent_s, agent_stall = responsive(
        lambda: facts.filters.set_search("when did we deploy the canary", agent_view=True),
        lambda: win.ops.pending == 0 and facts.model.agent_view)
    print(f"\n{N_FACTS:,} facts, {total:,} shown: first rows painted {first * 1000:.0f} ms; "
          f"count known {counted * 1000:.0f} ms; jump to middle {middle * 1000:.0f} ms; "
          f"jump to end {end * 1000:.0f} ms; sort by confidence {sort_s * 1000:.0f} ms "
          f"(longest UI pause {sort_stall * 1000:.0f} ms); keyword search {keyword_s * 1000:.0f} ms; "
          f"as the agent sees it {agent_s * 1000:.0f} ms (longest UI pause {agent_stall * 1000:.0f} ms)")
    win.close()
    ws.close()
