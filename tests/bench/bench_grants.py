"""How fast the Grants tab is on a workspace with 5,000 domains (run with ``make bench``).

The workspace holds 5,000 repo-scoped domains (``repo:<service>/<area>``, 834 services
× 6 areas) created by the service's own ``ensure_domain`` (seeding write for the nine
roles: 45,000 grant rows), their six bare names, a few hundred removed and overridden
rows, and 200,000 facts spread over the domains (bulk SQL, FTS rebuilt once); ANALYZE
runs at the end as a long-lived product file would have it. Built once and kept in a
cache folder under the system temp directory, keyed by its recipe version.

Printed, medians of several runs side by side: reading a first screen (every domain name,
the rows of the first 150 domains), the whole matrix (each domain's cells resolved when
painted) and the whole matrix with every cell resolved;
opening the tab (the window already open on the Facts tab) until the first cells are
painted, and until the whole matrix is read and resolved (filters and counts ready); a
filter over every domain; one edit of a whole role column (5,000 cells, one history row)
and its undo; and a pure-Python reference loop, to tell a busy machine from a slow desk.
"""

from __future__ import annotations

import os
import random
import sqlite3
import statistics
import time
import uuid
from contextlib import closing
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from bench_files import cached

from memorydesk.store import open_workspace

DOMAINS = 5_000
FACTS = 200_000
AREAS = ("architecture", "conventions", "deployments", "releases", "security", "testing")
RECIPE = 1
RUNS = 5


def domain_names() -> list[str]:
    return [f"repo:svc-{i // len(AREAS):04d}/{AREAS[i % len(AREAS)]}" for i in range(DOMAINS)]


def build(path: Path, seed: int = 5) -> Path:
    from memorydesk.memory import policies

    rnd = random.Random(seed)
    ws = open_workspace(path, create=True)
    names = domain_names()
    with ws.write() as conn:
        for k, name in enumerate([*AREAS, *names]):
            policies.ensure_domain(ws, conn, name, "coder", now=1_790_000_000 + k)
    ws_id, facts, grants = ws.workspace_id, ws.layout.facts.name, ws.layout.grants.name
    ws.close()
    con = sqlite3.connect(path)
    con.execute("PRAGMA synchronous = OFF")
    trigger = con.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_facts_ai'").fetchone()[0]
    con.execute("DROP TRIGGER memory_facts_ai")
    with con:
        gone = rnd.sample(names, 300)
        con.executemany(f"DELETE FROM {grants} WHERE memory_domain = ? AND agent_role = ?",
                        [(d, rnd.choice(("pm", "designer", "general"))) for d in gone])
        con.executemany(f"UPDATE {grants} SET permission = ? WHERE memory_domain = ? AND agent_role = ?",
                        [(rnd.choice(("none", "read", "READ", "admin")), d, "qa") for d in rnd.sample(names, 300)])
        con.executemany(f"INSERT OR IGNORE INTO {grants} VALUES (?, ?, ?, 'write')",
                        [(ws_id, rnd.choice(("engineer", "Coder")), d) for d in rnd.sample(names, 100)])
        now = int(time.time())
        con.executemany(
            f"INSERT INTO {facts} (id, workspace_id, domain, topic, content, confidence, memory_type, veracity, "
            "created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            ((str(uuid.UUID(int=rnd.getrandbits(128), version=4)), ws_id, rnd.choice(names), f"topic {i}",
              f"note {i} about deploys and reviews", 0.8, "fact", "stated", now - i, now - i) for i in range(FACTS)))
        con.execute("INSERT INTO memory_facts_fts(memory_facts_fts) VALUES ('rebuild')")
        con.execute(trigger)
        con.execute("ANALYZE")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return path


@pytest.fixture(scope="session")
def many_domains() -> Path:
    return cached(f"grants-{DOMAINS}-r{RECIPE}.db", build, f"{DOMAINS:,} domains and {FACTS:,} facts")


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"


@pytest.mark.slow
@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_open_filter_and_edit_5000_domains(many_domains: Path, qtbot, tmp_path) -> None:
    from PySide6.QtCore import QEvent, QObject, QSettings

    from memorydesk.browse.grants import read_first_screen, read_matrix
    from memorydesk.core.product.grants import ROLES
    from memorydesk.memory.reviewer import Reviewer
    from memorydesk.ui.shell.app import ensure_app
    from memorydesk.ui.shell.mainwindow import MainWindow

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path))
    ensure_app()
    reads, lazies, firsts, calibration = [], [], [], []
    for _ in range(RUNS):
        t, total = time.perf_counter(), 0
        for i in range(2_000_000):
            total += i
        calibration.append(time.perf_counter() - t)
    with open_workspace(many_domains, read_only=True) as ws:
        for _ in range(RUNS):
            t = time.perf_counter()
            read_first_screen(ws)
            firsts.append(time.perf_counter() - t)
            t = time.perf_counter()
            read_matrix(ws, complete=False)
            lazies.append(time.perf_counter() - t)
            t = time.perf_counter()
            matrix = read_matrix(ws)
            reads.append(time.perf_counter() - t)
        assert len(matrix.domains) >= DOMAINS
        filters = []
        for _ in range(RUNS):
            t = time.perf_counter()
            matrix.rows_shown("fail_open", "")
            filters.append(time.perf_counter() - t)

    class Painted(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.at: float | None = None
            self.model = None

        def eventFilter(self, _obj, event) -> bool:
            if event.type() == QEvent.Type.Paint and self.at is None and self.model is not None \
                    and self.model.rowCount() > 0:
                self.at = time.perf_counter()
            return False

    opens, wholes = [], []
    for _ in range(RUNS):
        ws = open_workspace(many_domains, read_only=True)
        win = MainWindow(ws)
        qtbot.addWidget(win)
        win.resize(1280, 800)
        win.show()
        qtbot.waitUntil(lambda: win.ops.pending == 0, timeout=60000)
        tab = win.tab("grants")
        painted = Painted()
        painted.model = tab.model
        tab.view.viewport().installEventFilter(painted)
        t = time.perf_counter()
        win.show_tab("grants")
        qtbot.waitUntil(lambda: painted.at is not None, timeout=60000)
        opens.append(painted.at - t)
        qtbot.waitUntil(lambda: tab.resolved, timeout=60000)
        wholes.append(time.perf_counter() - t)
        assert tab.model.rowCount() >= DOMAINS
        tab.view.viewport().removeEventFilter(painted)
        win.close()
        ws.close()

    copy = tmp_path / "edit.db"
    with closing(sqlite3.connect(many_domains)) as src, closing(sqlite3.connect(copy)) as dst:
        src.backup(dst)
    edits, undos = [], []
    with open_workspace(copy) as ws:
        names = [d.name for d in read_matrix(ws).domains]
        reviewer = Reviewer(ws, "bench", embedder=False)
        for k in range(3):
            role = ROLES[k].value
            t = time.perf_counter()
            result = reviewer.set_grants([(role, d) for d in names], "read")
            edits.append(time.perf_counter() - t)
            assert len(result.history_ids) == 1
            t = time.perf_counter()
            reviewer.undo()
            undos.append(time.perf_counter() - t)
    print(f"\n{len(matrix.domains):,} domains, {len(matrix.index):,} grant rows, {FACTS:,} facts: "
          f"read a first screen {ms(firsts)}, the whole matrix with cells left to resolve {ms(lazies)}, "
          f"with every cell resolved {ms(reads)}; open the tab → first cells painted {ms(opens)}, → the whole "
          f"matrix read and resolved {ms(wholes)}; "
          f"fail-open filter {ms(filters)}; set a whole role column ({len(names):,} cells, one history row) "
          f"{ms(edits)}, its undo {ms(undos)}. Machine load: a 2,000,000-step Python loop took {ms(calibration)}")
