"""The fast search paths return exactly what the straightforward computation returns.

(What happens when another process writes the file — the copies following it — is in
``test_search_follow.py``.)

One generated workspace of a few thousand facts, built to be awkward
(``fixtures.search_world``). A few hundred random queries then go through ``search`` and
through plain-SQL references: the product's FTS query, sqlite-vec's KNN query, the
temporal ``ORDER BY``; semantic and hybrid results are recomputed from those voices with
``core.product.fusion``. Ids, bm25 values and scores must be equal to the last bit, and the fast
paths must really have answered (counted).

The reference connection gets a tiny page cache, so SQLite's sorter spills to temporary
runs and merges them: equal scores must still come out as the fast path orders them.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
import sqlean
import sqlite_vec

from fixtures.search_world import NOW, SCOPES, T0, Fixed, World, reference_hybrid, unit
from memorydesk.core.product.fts_query import scoped_match
from memorydesk.core.product.fusion import rrf_fuse
from memorydesk.embedding.embedder import DIM
from memorydesk.search import bm25, bm25_check, cache
from memorydesk.search import vector as search_vector
from memorydesk.search.agent import search
from memorydesk.search.copies import follow
from memorydesk.search.copies.fts_mirror import TermTable
from memorydesk.search.copies.vectors import VectorCopy
from memorydesk.search.scope import repo_scope
from memorydesk.store import open_workspace
from memorydesk.store.ours import VECTOR_TABLE


def _warm(ws, query: str = "deploy api") -> None:
    """Build search's copies of the file (inline here; the desk builds them on a thread)."""
    assert follow.wait_ready(ws) is not None
    search(ws, query, mode="hybrid", now=NOW, embedder=Fixed(np.eye(DIM, dtype=np.float32)[0]))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    w = World(tmp_path_factory.mktemp("equivalence") / "world.db")
    yield w
    w.close()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often each fast path answered (rather than handing over to the plain query)."""
    counts = {"keyword": 0, "vector": 0}
    fast_rows, nearest = bm25._fast_rows, VectorCopy.nearest

    def rows(*args, **kwargs):
        out = fast_rows(*args, **kwargs)
        counts["keyword"] += 1
        return out

    def from_copy(self, *args, **kwargs):
        out = nearest(self, *args, **kwargs)
        counts["vector"] += out is not None
        return out

    monkeypatch.setattr(bm25, "_fast_rows", rows)
    monkeypatch.setattr(VectorCopy, "nearest", from_copy)
    return counts


def test_the_fast_keyword_path_is_available_here() -> None:
    assert bm25_check.passed()


def test_one_shot_commands_take_the_plain_queries_and_build_nothing(tmp_path: Path,
                                                                    counted: dict[str, int]) -> None:
    """The first search of a workspace runs the product's SQL and the KNN query and keeps
    nothing (a one-shot command never pays for the copies); the second starts building
    them (inline in the tests, on a thread in the desk); from then on the fast paths answer."""
    assert bm25_check.passed()  # (its self-check runs the fast path too: not counted here)
    counted.update({name: 0 for name in counted})
    world = World(tmp_path / "small.db", seed=3)
    try:
        qvec = world.vectors[5]
        first = search(world.ws, "deploy api", mode="hybrid", now=NOW, embedder=Fixed(qvec))
        assert counted == {"keyword": 0, "vector": 0}
        assert follow.cache_report()["total"] == 0
        second = search(world.ws, "deploy api", mode="hybrid", now=NOW, embedder=Fixed(qvec))
        assert counted == {"keyword": 1, "vector": 1}
        assert follow.cache_report()["parts"]["vector copy"] > 0
        assert [(h.id, h.score) for h in first.hits] == [(h.id, h.score) for h in second.hits]
    finally:
        world.close()


def _rewarm(world: World, counted: dict[str, int]) -> None:
    """The copies follow one workspace object at a time: another test's file may have taken them."""
    _warm(world.ws)
    counted.update({name: 0 for name in counted})


def test_keyword_search_equals_the_products_query(world: World, counted: dict[str, int]) -> None:
    _rewarm(world, counted)
    rng = random.Random(11)
    asked = 0
    for _ in range(400):
        query = world.query(rng)
        repo = rng.choice(SCOPES)
        limit = rng.choice([20, 20, 5, 50])
        want = world.keyword(query, limit, repo)
        got = search(world.ws, query, mode="keyword", limit=limit, repo=repo)
        assert [(h.id, h.bm25) for h in got.hits] == want, query
        assert all(h.score == -h.bm25 for h in got.hits)
        asked += scoped_match(query, world.ws.workspace_id) is not None
    assert counted["keyword"] == asked > 300


def test_without_a_copy_of_the_index_search_runs_the_products_sql(world: World, counted: dict[str, int],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the copy cannot be made (here: no ``fts5vocab`` module), keyword search is the product's query."""

    def refuse(*args, **kwargs):
        raise sqlean.OperationalError("no such module: fts5vocab")

    monkeypatch.setattr(TermTable, "build", refuse)
    follow.forget()
    assert follow.wait_ready(world.ws) is None
    counted.update({name: 0 for name in counted})
    rng = random.Random(21)
    for _ in range(60):
        query = world.query(rng)
        repo = rng.choice(SCOPES)
        got = search(world.ws, query, mode="keyword", repo=repo)
        assert [(h.id, h.bm25) for h in got.hits] == world.keyword(query, 20, repo), query
    assert counted["keyword"] == 0


def test_equal_scores_keep_rowid_order_when_the_sorter_spills(tmp_path: Path, counted: dict[str, int]) -> None:
    """Thousands of matches with a handful of distinct scores: the reference's sorter (with a
    one-page cache) writes sorted runs to disk and merges them; the order must not change."""
    rng = random.Random(5)
    with open_workspace(tmp_path / "spill.db", create=True) as ws:
        rows = [(f"s{i:05d}", ws.workspace_id, "codebase", rng.choice(["kiwi", "lime", "fig"]),
                 " ".join(["kiwi"] * rng.randint(1, 3) + ["pear"] * rng.randint(0, 2)), 0.5, "fact", T0, T0)
                for i in range(9000)]
        with ws.write() as conn:
            conn.exec_driver_sql(
                f"INSERT INTO {ws.layout.facts.name} (id, workspace_id, domain, topic, content, confidence, "
                "memory_type, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)", rows)
        ref = sqlean.connect(f"file:{tmp_path / 'spill.db'}?mode=ro", uri=True)
        try:
            ref.execute("PRAGMA cache_size = -1")
            _warm(ws, "kiwi")
            counted["keyword"] = 0
            for query, limit in (("kiwi", 20), ("kiwi", 500), ("pear kiwi", 300), ("lime pear", 100), ("fi", 50)):
                match = scoped_match(query, ws.workspace_id)
                want = ref.execute(
                    "SELECT f.id, memory_facts_fts.rank FROM memory_facts_fts JOIN memory_facts_table f "
                    "ON f.rowid = memory_facts_fts.rowid WHERE memory_facts_fts MATCH ? AND f.workspace_id = ? "
                    "AND f.superseded_by IS NULL ORDER BY memory_facts_fts.rank LIMIT ?",
                    (match, ws.workspace_id, limit)).fetchall()
                got = search(ws, query, mode="keyword", limit=limit)
                assert [(h.id, h.bm25) for h in got.hits] == [tuple(r) for r in want], query
                assert len({r[1] for r in want}) < len(want) / 5  # mostly equal scores
        finally:
            ref.close()
    assert counted["keyword"] == 5


def test_vector_voice_equals_the_knn_query(world: World, counted: dict[str, int]) -> None:
    _rewarm(world, counted)
    rng, nrng = random.Random(12), np.random.default_rng(12)
    ties = 0
    for _ in range(300):
        qvec = world.query_vector(rng, nrng)
        repo = rng.choice(SCOPES)
        want = world.vector(qvec, repo)
        with world.ws.read() as conn:
            cache.snapshot_version(world.ws, conn)
            got = search_vector.vector_ids(world.ws, conn, qvec, scope=repo_scope(repo))
        assert got == want
        ties += len({d for _, d in want}) < len(want)
    assert ties > 25  # identical vectors: equal distances, in the index's own order
    assert counted["vector"] == 300


def test_equal_distances_keep_the_index_order_within_and_across_chunks(tmp_path: Path,
                                                                     counted: dict[str, int]) -> None:
    """Copies of one vector in one chunk (1,024 slots) and in later ones, and a deleted copy."""
    nrng = np.random.default_rng(3)
    shared = unit(nrng)
    copies = {3, 700, 701, 1030, 2049, 2050, 2100}
    with open_workspace(tmp_path / "ties.db", create=True) as ws:
        rows = [(f"t{i:04d}", ws.workspace_id, "codebase", "t", "text", 0.5, "fact",
                 (shared if i in copies else unit(nrng)).tobytes(), T0, T0) for i in range(2300)]
        with ws.write() as conn:
            conn.exec_driver_sql(
                f"INSERT INTO {ws.layout.facts.name} (id, workspace_id, domain, topic, content, confidence, "
                "memory_type, embedding, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            conn.exec_driver_sql(f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) VALUES (?, ?)",
                                 [(r[0], r[7]) for r in rows])
            conn.exec_driver_sql(f"DELETE FROM {VECTOR_TABLE} WHERE fact_id = 't0701'")
        _warm(ws)
        counted["vector"] = 0
        for qvec in (shared, (shared + 0.01 * unit(nrng)) / 1.0001):
            for k in (3, 6, 30):
                with ws.read() as conn:
                    cache.snapshot_version(ws, conn)
                    got = search_vector._nearest(ws, conn, qvec, k)
                    want = search_vector._knn_query(conn, qvec, k)
                assert got == want
                assert len({d for _, d in want[:6]}) == 1  # the six copies tie
    assert counted["vector"] == 6


def test_hybrid_and_semantic_equal_the_reference(world: World, counted: dict[str, int]) -> None:
    _rewarm(world, counted)
    rng, nrng = random.Random(13), np.random.default_rng(13)
    for _ in range(150):
        query = world.query(rng)
        qvec = world.query_vector(rng, nrng)
        repo = rng.choice(SCOPES)
        got = search(world.ws, query, mode="hybrid", repo=repo, now=NOW, embedder=Fixed(qvec))
        want = reference_hybrid(world, query, qvec, repo)
        assert [(h.id, h.score) for h in got.hits] == [(h.id, h.score) for h in want.hits], query
        assert [(h.id, h.score, h.score_rank) for h in got.candidates] == \
            [(h.id, h.score, h.score_rank + 1) for h in want.candidates]
        for hit, ref in zip(got.hits, want.hits):
            assert {v: s.rank for v, s in hit.voices.items()} == {c.voice.value: c.rank + 1 for c in ref.contributions}

        sem = search(world.ws, query, mode="semantic", repo=repo, embedder=Fixed(qvec))
        fts = [fid for fid, _ in world.keyword(query, 20, repo)]
        vec = [fid for fid, _ in world.vector(qvec, repo)]
        assert [(h.id, h.score) for h in sem.hits] == [(f.id, f.score) for f in rrf_fuse([fts, vec], limit=10)]
    assert counted["keyword"] > 100 and counted["vector"] > 100


def test_results_follow_changes_to_the_file(world: World) -> None:
    """A write (even from another connection) is seen at once: the copies follow it."""
    rng, nrng = random.Random(14), np.random.default_rng(14)
    queries = [world.query(rng) for _ in range(12)]
    _warm(world.ws)
    state = follow.wait_ready(world.ws)
    for q in queries:
        search(world.ws, q, mode="hybrid", now=NOW, embedder=Fixed(world.vectors[0]))
    target = world.keyword(queries[0], 20, None) or world.keyword("deploy", 20, None)
    words = " ".join(world.words[:3])
    with sqlean.connect(str(world.path), isolation_level=None) as other:  # not the desk's own connection
        other.enable_load_extension(True)
        sqlite_vec.load(other)
        other.execute("BEGIN IMMEDIATE")
        if target:
            other.execute("UPDATE memory_facts_table SET superseded_by = 'system:cleanup' WHERE id = ?",
                          (target[0][0],))
        vec = unit(nrng)
        other.execute("INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, confidence, "
                      "memory_type, embedding, created_at, updated_at) VALUES ('late', ?, 'codebase', 'late', ?, "
                      "0.9, 'fact', ?, ?, ?)", (world.ws.workspace_id, words, vec.tobytes(), NOW, NOW))
        other.execute(f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) VALUES ('late', ?)", (vec.tobytes(),))
        other.execute("COMMIT")
    for q in [*queries, words]:
        assert [(h.id, h.bm25) for h in search(world.ws, q, mode="keyword").hits] == world.keyword(q, 20, None)
        got = search(world.ws, q, mode="hybrid", now=NOW, embedder=Fixed(vec))
        want = reference_hybrid(world, q, vec, None)
        assert [(h.id, h.score) for h in got.hits] == [(h.id, h.score) for h in want.hits]
    assert search(world.ws, "x", mode="hybrid", now=NOW, embedder=Fixed(vec)).hits[0].voices["temporal"].rank == 1
    assert follow.wait_ready(world.ws) is state and state.followed == 1  # followed, not rebuilt


def test_workspace_phrase_changes_scores_so_it_stays(world: World) -> None:
    """Why the workspace clause is kept: without it bm25 differs (so would the order, at times)."""
    query = world.words[0]
    wid = world.ws.workspace_id
    scoped = dict(world.keyword(query, 50, None))
    text_only = scoped_match(query, "")  # no ASCII letter or digit: the product leaves the clause out
    assert text_only is not None and "workspace_id" not in text_only
    rows = world.ref.execute(
        "SELECT f.id, memory_facts_fts.rank FROM memory_facts_fts JOIN memory_facts_table f "
        "ON f.rowid = memory_facts_fts.rowid WHERE memory_facts_fts MATCH ? AND f.workspace_id = ? "
        "AND f.superseded_by IS NULL ORDER BY memory_facts_fts.rank LIMIT 50", (text_only, wid)).fetchall()
    unscoped = dict(rows)
    common = set(scoped) & set(unscoped)
    assert common and all(scoped[f] != unscoped[f] for f in common)
    assert not math.isclose(sum(scoped.values()), sum(unscoped.values()), rel_tol=1e-3)
