"""The graph voice from search's copy of the edges gives what SQLite gives, walk by walk.

A generated file built to be awkward for the walk: many equal weights (the order among them is
the rowid's), weights stored as text, a text that is no number (read as 0.0), -0.0 beside 0.0,
self-loops, the same pair linked twice (two edge types) and both ways, edges to facts that do
not exist, to superseded facts and to facts of another workspace, and edges of that other
workspace. The same walks, the same active ids (``active_in_scope``) and the same edges a level
reads (``walk``, which the Graph tab's focus shows) come from a workspace object with the copy
and from one that never builds copies (SQLite's answers); a change drops the copy and the
recall audit's ``prepare_graph`` builds it again for the new version; a file whose edges the
arrays cannot mirror (a NaN weight) gets no copy, says so, and its graph voice is SQLite's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from memorydesk.search import cache
from memorydesk.search.copies import follow
from memorydesk.search.hybrid import graph_ids, walk
from memorydesk.search.scope import repo_scope
from memorydesk.search.vector import active_in_scope
from memorydesk.store import Workspace, open_workspace

OTHER = "another-workspace-0000"
DOMAINS = ["codebase", "repo:acme-web/conventions", "repo:acme-api/architecture"]


def _build(path: Path, seed: int, facts_n: int = 900) -> list[str]:
    rng = random.Random(seed)
    with open_workspace(path, create=True) as ws:
        wid = ws.workspace_id
        facts, edges = ws.layout.facts.name, ws.layout.edges.name
        ids = [f"f{i:04d}" for i in range(facts_n)]
        rows = []
        for i, fid in enumerate(ids):
            mine = rng.random() < 0.85
            superseded = rng.choice(ids) if rng.random() < 0.12 else None
            rows.append((fid, wid if mine else OTHER, rng.choice(DOMAINS), f"t{i}", f"c{i}", superseded, 1, 1))
        named = ids + [f"missing-{i}" for i in range(40)]
        weights: list[object] = [0.5, 0.5, 0.5, 0.75, 1.0, "0.5", "0.75", "heavy", -0.0, 0.0, 0.3]
        links = []
        for n in range(4 * facts_n):
            a = rng.choice(named)
            b = a if rng.random() < 0.02 else rng.choice(named)
            weight = rng.choice(weights) if rng.random() < 0.7 else round(rng.uniform(0, 1), 2)
            links.append((f"e{n}", wid if rng.random() < 0.9 else OTHER, a, b, rng.choice(["related_to", "ctx"]),
                          weight))
        with ws.write() as conn:
            conn.exec_driver_sql(f"INSERT INTO {facts} (id, workspace_id, domain, topic, content, superseded_by, "
                                 f"created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)", rows)
            conn.exec_driver_sql(f"INSERT OR IGNORE INTO {edges} (id, workspace_id, source_fact_id, target_fact_id, "
                                 f"edge_type, weight, created_at) VALUES (?,?,?,?,?,?,1)", links)
        return named


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Workspace, Workspace, list[str]]]:
    """The same file opened twice: ``fast`` with search's copies, ``plain`` never building them."""
    named = _build(tmp_path / "graph.db", seed=3)
    before = follow.settings().build_after
    follow.configure(build_after=10**9)
    fast = open_workspace(tmp_path / "graph.db")
    plain = open_workspace(tmp_path / "graph.db")
    try:
        yield fast, plain, named
    finally:
        follow.configure(build_after=before)
        fast.close()
        plain.close()


def _answers(ws: Workspace, named: list[str], seed: int, walks: bool = True) -> list[object]:
    rng = random.Random(seed)
    out: list[object] = []
    with ws.read() as conn:
        cache.snapshot_version(ws, conn)
        for _ in range(150):
            seeds = rng.sample(named, rng.randint(1, 6))
            scope = repo_scope("acme-web") if rng.random() < 0.2 else None
            out.append(graph_ids(ws, conn, seeds, scope=scope))
            out.append(sorted(active_in_scope(ws, conn, rng.sample(named, 30), scope)))
        for fid in rng.sample(named, 40) if walks else []:
            out.append(walk(ws, conn, fid))
    return out


def _graph_held(ws: Workspace) -> bool:
    with ws.read() as conn:
        cache.snapshot_version(ws, conn)
        with follow.using(ws, conn) as state:
            return state is not None and state.graph_now() is not None


def test_walks_from_the_copy_equal_sqlites(pair) -> None:
    fast, plain, named = pair
    state = follow.wait_ready(fast)
    assert state is not None and state.graph_now() is not None
    assert follow.cache_report(fast)["parts"]["graph edges and fact ids"] > 0
    assert follow.cache_report(plain)["total"] == 0
    got, want = _answers(fast, named, 1), _answers(plain, named, 1)
    assert got == want
    walks = [w for w in want if isinstance(w, list) and w and isinstance(w[0], str)]
    assert sum(len(w) for w in walks) > 500  # the walks do reach far
    levels = [e for w in want if isinstance(w, list) and w and not isinstance(w[0], str) for e in w]
    assert len({e.weight for e in levels}) < len(levels) / 4  # many equal weights: rowid order decides


def test_a_change_drops_the_copy_and_the_audit_builds_it_again(pair) -> None:
    fast, plain, named = pair
    assert follow.wait_ready(fast) is not None
    edges, facts = fast.layout.edges.name, fast.layout.facts.name
    with fast.write() as conn:
        conn.exec_driver_sql(f"UPDATE {edges} SET weight = 2.0 WHERE rowid % 7 = 0")
        conn.exec_driver_sql(f"DELETE FROM {edges} WHERE rowid % 11 = 0")
        conn.exec_driver_sql(f"UPDATE {facts} SET superseded_by = 'system:cleanup' WHERE rowid % 13 = 0")
        conn.exec_driver_sql(f"INSERT INTO {edges} (id, workspace_id, source_fact_id, target_fact_id, edge_type, "
                             f"weight, created_at) VALUES ('new-1', ?, 'f0001', 'f0002', 'related_to', 9.0, 1)",
                             (fast.workspace_id,))
    assert not _graph_held(fast)  # the search after the change followed the file and dropped the edges
    assert _answers(fast, named, 2) == _answers(plain, named, 2)  # SQLite's walks meanwhile
    assert follow.prepare_graph(fast)
    assert _graph_held(fast)
    assert _answers(fast, named, 3) == _answers(plain, named, 3)


def test_edges_the_arrays_cannot_mirror_get_no_copy(tmp_path: Path) -> None:
    named = _build(tmp_path / "nan.db", seed=5, facts_n=300)
    with open_workspace(tmp_path / "nan.db") as ws, ws.write() as conn:
        conn.exec_driver_sql(f"UPDATE {ws.layout.edges.name} SET weight = 'nan' WHERE rowid = 5")
    before = follow.settings().build_after
    follow.configure(build_after=10**9)
    try:
        with open_workspace(tmp_path / "nan.db") as fast, open_workspace(tmp_path / "nan.db") as plain:
            state = follow.wait_ready(fast)
            assert state is not None and state.graph_now() is None
            assert any("graph's edges: an edge weight that is not a number" in n
                       for n in follow.cache_report(fast)["notes"])
            assert not follow.prepare_graph(fast)
            # (the order of a level's edges around a NaN weight is Python's sort's, not a rule: not compared)
            assert _answers(fast, named, 4, walks=False) == _answers(plain, named, 4, walks=False)
    finally:
        follow.configure(build_after=before)
