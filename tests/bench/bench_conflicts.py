"""How fast the Conflicts tab is on a 1,000,000-fact workspace (run with ``make bench``).

Prints, side by side, medians of repeated runs of the read models (first window, the
whole folded list, a window in the middle, each filter, a trail, the bursts) and the
tab itself (open → first rows painted, the whole list known, a trail shown).

The workspace is built once with bulk SQL and cached under the system temp directory:
``MEMDESK_BENCH_FACTS`` facts (default 1,000,000) in topics of one to six versions, each
version superseding the previous one with a resolved contradiction row (about 0.45 rows
per fact, as the demo builder writes), a burst every 400 topics (one write superseding
four facts), and open cross-agent pairs flagged by three harmonize passes. Set
``MEMDESK_BENCH_CONFLICTS_DB`` to measure an existing workspace instead (a demo file).
"""

from __future__ import annotations

import os
import random
import sqlite3
import statistics
import time
import uuid
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from bench_files import cached

from memorydesk.browse.conflicts import bursts as browse_bursts
from memorydesk.browse.conflicts.listing import ConflictQuery, first_lines, line_keys, lines_for_keys
from memorydesk.browse.conflicts.trail import conflict_trail
from memorydesk.store import open_workspace

N_FACTS = int(os.environ.get("MEMDESK_BENCH_FACTS", "1000000"))
RECIPE = 1
AGENTS = [str(uuid.UUID(int=i + 1, version=4)) for i in range(12)]
DOMAINS = ["decisions", "ticket-outcomes", "pr-reviews", "conventions", "incidents", "repo:acme-web/conventions",
           "repo:acme-api/architecture", "design-system"]
WORDS = ("deploy cache schema token retry budget review queue latency index migration owner release rollback "
         "canary tenant quota alert metric feature flag service gateway").split()


def build_big(path: Path, n: int, seed: int = 3) -> Path:
    ws = open_workspace(path, create=True)
    ws_id, facts_table, conflicts_table = ws.workspace_id, ws.layout.facts.name, ws.layout.conflicts.name
    ws.close()
    rnd = random.Random(seed)
    uid = lambda: str(uuid.UUID(int=rnd.getrandbits(128), version=4))  # noqa: E731
    t0 = int(time.time()) - 120 * 86_400
    facts, conflicts = [], []
    written, group = 0, 0
    while written < n:
        group += 1
        domain, topic = rnd.choice(DOMAINS), f"{rnd.choice(WORDS)}-{rnd.choice(WORDS)}-{group}"
        burst = group % 400 == 0
        versions = 5 if burst else (1 if rnd.random() < 0.55 else rnd.randint(2, 6))
        ids = [uid() for _ in range(versions)]
        at = t0 + written * 10
        rows = []
        for i, fid in enumerate(ids):
            words = " ".join(rnd.sample(WORDS, 8))
            created = at + (0 if burst else i * 60)
            rows.append([fid, ws_id, domain, topic, f"{topic}: {words}", round(0.5 + rnd.random() / 2, 2), None,
                         rnd.choice(AGENTS), "fact", rnd.choice(("stated", "inferred", "tool")), created, created])
        if burst:  # the last version supersedes the four others in one write
            for i in range(4):
                rows[i][6] = ids[4]
                conflicts.append((uid(), ws_id, ids[i], ids[4], "contradiction", "superseded", ids[4],
                                  rows[4][10] + 1, rows[4][10] + 1))
        else:
            for i in range(versions - 1):
                rows[i][6] = ids[i + 1]
                conflicts.append((uid(), ws_id, ids[i], ids[i + 1], "contradiction", "superseded", ids[i + 1],
                                  rows[i + 1][10], rows[i + 1][10]))
        if versions == 1 and rnd.random() < 0.06:  # a second agent disagrees: an open pair, flagged 3 times
            other = uid()
            rows.append([other, ws_id, domain, topic, f"{topic}: " + " ".join(rnd.sample(WORDS, 8)), 0.8, None,
                         rnd.choice(AGENTS), "fact", "stated", at + 30, at + 30])
            for k in range(3):
                conflicts.append((uid(), ws_id, ids[0], other, "cross_agent", None, None, None,
                                  t0 + n * 10 + k * 86_400 + group))
        facts.extend(rows)
        written += len(rows)
    conflicts.sort(key=lambda c: c[8])  # rows written as things happened
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA synchronous = OFF")
    trigger = con.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_facts_ai'").fetchone()[0]
    con.execute("DROP TRIGGER memory_facts_ai")
    with con:
        con.executemany(f"INSERT INTO {facts_table} (id, workspace_id, domain, topic, content, confidence, "
                        "superseded_by, authored_by_agent_id, memory_type, veracity, created_at, updated_at) "
                        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", facts)
        con.executemany(f"INSERT INTO {conflicts_table} (id, workspace_id, fact_a_id, fact_b_id, conflict_type, "
                        "resolution, winning_fact_id, resolved_at, created_at) VALUES (?,?,?,?,?,?,?,?,?)", conflicts)
        con.execute("INSERT INTO memory_facts_fts(memory_facts_fts) VALUES ('rebuild')")
        con.execute(trigger)
        con.execute("ANALYZE")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return path


@pytest.fixture(scope="session")
def conflicts_workspace() -> Path:
    given = os.environ.get("MEMDESK_BENCH_CONFLICTS_DB")
    if given:
        return Path(given)
    return cached(f"conflicts-{N_FACTS}-r{RECIPE}.db", lambda p: build_big(p, N_FACTS),
                  f"{N_FACTS:,} facts with conflicts")


def median_ms(fn: Callable[[], object], runs: int = 5) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, result


@pytest.mark.slow
def test_read_models(conflicts_workspace: Path) -> None:
    with open_workspace(conflicts_workspace, read_only=True) as ws:
        with ws.read() as conn:
            facts = conn.exec_driver_sql(f"SELECT count(*) FROM {ws.layout.facts.name}").scalar()
            agent = conn.exec_driver_sql(f"SELECT authored_by_agent_id FROM {ws.layout.facts.name} "
                                         "WHERE authored_by_agent_id IS NOT NULL LIMIT 1").scalar()
            domain = conn.exec_driver_sql(f"SELECT domain FROM {ws.layout.facts.name} LIMIT 1").scalar()
        first_ms, _ = median_ms(lambda: first_lines(ws, ConflictQuery(), 200))
        keys_ms, listing = median_ms(lambda: line_keys(ws, ConflictQuery()), 3)
        keys = listing.keys
        middle = keys[len(keys) // 2:len(keys) // 2 + 200]
        window_ms, lines = median_ms(lambda: lines_for_keys(ws, middle))
        print(f"\n{facts:,} facts, {listing.rows:,} conflict rows in {len(keys):,} lines: first window "
              f"{first_ms:.0f} ms; whole folded list {keys_ms:.0f} ms; a window in the middle {window_ms:.0f} ms")
        fact = lines[0].fact_b
        for label, q in (("open", ConflictQuery(state="open")), ("type", ConflictQuery(type="cross_agent")),
                         ("domain", ConflictQuery(domain=domain)), ("agent", ConflictQuery(agent=agent)),
                         ("text", ConflictQuery(text="rollback canary")), ("fact", ConflictQuery(fact=fact)),
                         ("last 30 days", ConflictQuery(since=int(time.time()) - 30 * 86_400))):
            f_ms, _ = median_ms(lambda q=q: first_lines(ws, q, 200), 3)
            k_ms, found = median_ms(lambda q=q: line_keys(ws, q), 3)
            print(f"  filter {label:<13} first window {f_ms:7.0f} ms, whole list {k_ms:7.0f} ms "
                  f"({len(found.keys):,} lines)")
        trail_ms, _ = median_ms(lambda: [conflict_trail(ws, line.id) for line in lines[:10]], 3)
        bursts_ms, found = median_ms(lambda: browse_bursts.bursts(ws), 3)
        print(f"  a trail {trail_ms / 10:.0f} ms; bursts {bursts_ms:.0f} ms ({len(found):,} found)")


@pytest.mark.slow
@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_the_tab(conflicts_workspace: Path, qtbot, tmp_path) -> None:
    from PySide6.QtCore import QSettings

    from memorydesk.ui.shell.app import ensure_app
    from memorydesk.ui.shell.mainwindow import MainWindow

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path))
    ensure_app()
    ws = open_workspace(conflicts_workspace, read_only=True)
    win = MainWindow(ws)
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    qtbot.waitUntil(lambda: win.ops.pending == 0, timeout=120000)
    t0 = time.perf_counter()
    tab = win.show_tab("conflicts")
    qtbot.waitUntil(lambda: tab.model.rowCount() > 0 and tab.model.line(0) is not None, timeout=120000)
    tab.view.viewport().repaint()
    first = time.perf_counter() - t0
    qtbot.waitUntil(lambda: not tab.filters.busy.isVisible(), timeout=120000)
    whole = time.perf_counter() - t0
    t = time.perf_counter()
    tab.select_row(3)
    qtbot.waitUntil(lambda: tab.trail.trail is not None, timeout=60000)
    trail = time.perf_counter() - t
    t = time.perf_counter()
    row = tab.model.rowCount() // 2
    tab.view.scrollTo(tab.model.index(row, 0))
    qtbot.waitUntil(lambda: tab.model.line(row) is not None, timeout=60000)
    jump = time.perf_counter() - t
    print(f"\nConflicts tab, {tab.model.rowCount():,} lines: first rows painted {first * 1000:.0f} ms; whole list "
          f"known {whole * 1000:.0f} ms; a trail shown {trail * 1000:.0f} ms; jump to the middle {jump * 1000:.0f} ms")
    win.close()
    ws.close()


@pytest.mark.slow
def test_fact_filters(conflicts_workspace: Path) -> None:
    """Issue 27 point 6: filters on the facts' columns, from the arrays kept per file version (read once
    ahead, ``conflict_index.prepare``), beside the row-by-row SQL filter they replace, in the same run."""
    from memorydesk.browse.conflicts import listing as browse
    from memorydesk.browse.conflicts.index import prepare
    from memorydesk.search.cache import clear_caches

    with open_workspace(conflicts_workspace, read_only=True) as ws:
        with ws.read() as conn:
            agent = conn.exec_driver_sql(f"SELECT authored_by_agent_id FROM {ws.layout.facts.name} "
                                         "WHERE authored_by_agent_id IS NOT NULL LIMIT 1").scalar()
            domain = conn.exec_driver_sql(f"SELECT domain FROM {ws.layout.facts.name} LIMIT 1").scalar()
        clear_caches(ws)
        read_ms, _ = median_ms(lambda: (clear_caches(ws), prepare(ws)), 1)
        print(f"\nload average {os.getloadavg()[0]:.1f}; the arrays read once per file version: {read_ms:.0f} ms")

        def sql(q: ConflictQuery) -> object:
            with ws.read() as conn:
                return browse._fold(browse._matching(ws, conn, q, 65536))

        for label, q in (("domain", ConflictQuery(domain=domain)), ("agent", ConflictQuery(agent=agent)),
                         ("text", ConflictQuery(text="rollback canary")),
                         ("domain+text", ConflictQuery(domain=domain, text="canary")),
                         ("agent+open", ConflictQuery(agent=agent, state="open"))):
            f_ms, _ = median_ms(lambda q=q: first_lines(ws, q, 200), 3)
            k_ms, found = median_ms(lambda q=q: line_keys(ws, q), 3)
            s_ms, (keys, _rows) = median_ms(lambda q=q: sql(q), 1)
            assert list(found.keys) == list(keys)
            print(f"  filter {label:<12} first window {f_ms:6.0f} ms, whole list {k_ms:6.0f} ms "
                  f"({len(found.keys):,} lines); row-by-row SQL {s_ms:7.0f} ms; ×{k_ms / s_ms:.3f}")
        print(f"  load average {os.getloadavg()[0]:.1f}")
