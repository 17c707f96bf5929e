"""The fast search paths return exactly what the straightforward computation returns.

One generated workspace of a few thousand facts, built to be awkward: a Zipf vocabulary
with prefix-sharing words, very short texts (so many equal bm25 scores), exact duplicate
facts, repeated words, non-ASCII text, superseded facts, repo-scoped domains, a second
workspace sharing the file (more rows than ours, so the workspace phrase has a real idf),
duplicate and missing embeddings, equal ``created_at`` times. A few hundred random queries
then go through ``search`` and through a reference written out here as plain SQL: the
product's FTS query, sqlite-vec's KNN query, the temporal ``ORDER BY``; semantic and hybrid
results are recomputed from those voices with ``core.fusion``. Ids, bm25 values and scores
must be equal to the last bit, and the fast paths must really have answered (counted).

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

from memorydesk.core.fts_query import scoped_match
from memorydesk.core.fusion import FusionRecord, Voice, hybrid_fuse, rrf_fuse
from memorydesk.core.intent import classify_intent
from memorydesk.core.text import candidate_text
from memorydesk.embedding.embedder import DIM
from memorydesk.search import bm25, cache
from memorydesk.search import vector as search_vector
from memorydesk.search.agent import search
from memorydesk.search.hybrid import graph_ids
from memorydesk.search.scope import repo_scope
from memorydesk.store import open_workspace
from memorydesk.store.ours import VECTOR_TABLE

T0 = 1_795_000_000
NOW = T0 + 30 * 86_400
OTHER = "0ther-team-7d1e-4c2b-9f00-5a5a5a5a5a5a"
SCOPES = (None, "acme-web")
_REAL = ("deploy deployment deployed api apis rapid release releases backup postgres post cache cached redis kafka "
         "terraform staging stage production review reviewer rotate rotation secret token tokens build builds "
         "night nightly weekly invoice rounding flags feature features on-call oncall pager alert alerts quota "
         "schema migration migrate index indexes retry retries timeout latency cluster region bucket").split()
_ODD = ["café", "Löschfrist", "naïve", "—", "✓", "שלום", "Ωmega", "résumé", "straße", "日本語"]
_DOMAINS = ["codebase", "infrastructure", "conventions", "repo:acme-web/conventions", "repo:acme-web/architecture",
            "repo:acme-api/architecture", "repo:odd"]
_TYPES = ["fact", "fact", "fact", "decision", "preference", "event", "request", "learning", "observation", "whatever"]


def _vocabulary(rng: random.Random, n: int = 420) -> tuple[list[str], list[float]]:
    words = list(_REAL)
    while len(words) < n:
        w = "".join(rng.choice("bcdfgklmnprstvz") + rng.choice("aeiou") for _ in range(rng.randint(1, 3)))
        if w not in words:
            words.append(w)
    rng.shuffle(words)
    weights = [1.0 / (r + 2.7) ** 1.07 for r in range(len(words))]
    return words, weights


def _unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal(DIM).astype(np.float32)
    return (v / np.linalg.norm(v)).astype(np.float32)


class World:
    """The generated file and everything the reference needs to know about it."""

    def __init__(self, path: Path, seed: int = 7) -> None:
        self.path = path
        rng = random.Random(seed)
        nrng = np.random.default_rng(seed)
        self.words, self.weights = _vocabulary(rng)
        self.ws = open_workspace(path, create=True)
        wid = self.ws.workspace_id
        facts, edges = self.ws.layout.facts.name, self.ws.layout.edges.name
        rows: list[tuple] = []
        self.vectors: list[np.ndarray] = []
        own: list[int] = []
        for i in range(4200):
            mine = rng.random() < 0.45
            if mine and own and rng.random() < 0.08:  # an exact duplicate of an earlier fact of ours
                src = rows[rng.choice(own)]
                topic, content = src[3], src[4]
            else:
                n = rng.choice([1, 1, 2, 2, 3, 4, 6, 9, 14, 20, 30, 45])
                words = rng.choices(self.words, self.weights, k=n)
                if rng.random() < 0.07:
                    words.insert(rng.randrange(len(words) + 1), rng.choice(_ODD))
                content = " ".join(words)
                if rng.random() < 0.3:
                    content = content[:1].upper() + content[1:] + "."
                topic = "-".join(rng.choices(self.words[:80], k=rng.randint(1, 3)))
            blob = None
            roll = rng.random()
            if roll < 0.05:
                pass  # no embedding
            elif roll < 0.09 and self.vectors:
                blob = rng.choice(self.vectors).tobytes()  # the very same vector as an earlier fact
            else:
                vec = _unit(nrng)
                self.vectors.append(vec)
                blob = vec.tobytes()
            fid = f"g{i:05d}"
            superseded = None
            if mine and own and rng.random() < 0.08:
                superseded = rng.choice(["system:cleanup", rows[rng.choice(own)][0]])
            rows.append((fid, wid if mine else OTHER, rng.choice(_DOMAINS), topic, content,
                         round(rng.uniform(-0.2, 1.2), 2), rng.choice(_TYPES), superseded, blob,
                         T0 + rng.randrange(0, 400) * 3600, T0))
            if mine:
                own.append(i)
        with self.ws.write() as conn:
            conn.exec_driver_sql(
                f"INSERT INTO {facts} (id, workspace_id, domain, topic, content, confidence, memory_type, "
                f"superseded_by, embedding, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
            conn.exec_driver_sql(f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) VALUES (?, ?)",
                                 [(r[0], r[8]) for r in rows if r[8] is not None])
            conn.exec_driver_sql(
                f"INSERT INTO {edges} (id, workspace_id, source_fact_id, target_fact_id, edge_type, weight, "
                f"created_at) VALUES (?,?,?,?,?,?,?)",
                [(f"e{i}-{k}", wid, rows[i][0], rows[rng.choice(own)][0], ("related_to", "contextual")[k],
                  rng.choice([0.5, 0.75, round(rng.uniform(0.35, 1.0), 3)]), T0) for i in own for k in range(2)])
        self.ref = sqlean.connect(f"file:{path}?mode=ro", uri=True)
        self.ref.enable_load_extension(True)
        sqlite_vec.load(self.ref)
        self.ref.execute("PRAGMA cache_size = -1")  # a tiny cache: the sorter spills and merges runs

    def close(self) -> None:
        self.ref.close()
        self.ws.close()

    # --- random input -------------------------------------------------------------------

    def query(self, rng: random.Random) -> str:
        words = rng.choices(self.words, self.weights, k=rng.randint(1, 4))
        words = [w[: rng.choice([2, 3, 4])] if rng.random() < 0.25 else w for w in words]
        shape = rng.choice(["{}", "how to {}", "when did {} change", "what is the {}", "{}?", "tell me about {}",
                            "the {} and it"])
        return shape.format(" ".join(words))

    def query_vector(self, rng: random.Random, nrng: np.random.Generator) -> np.ndarray:
        roll = rng.random()
        if roll < 0.2:
            return rng.choice(self.vectors)  # distance 0 to a stored vector (and its copies)
        if roll < 0.4:
            v = rng.choice(self.vectors) + 0.05 * _unit(nrng)
            return (v / np.linalg.norm(v)).astype(np.float32)
        return _unit(nrng)

    # --- the reference --------------------------------------------------------------------

    def keyword(self, query: str, limit: int, repo: str | None) -> list[tuple[str, float]]:
        """The product's FTS query, as plain SQL."""
        wid = self.ws.workspace_id
        match = scoped_match(query, wid)
        if match is None or limit <= 0:
            return []
        scope = repo_scope(repo)
        scope_sql, scope_params = scope.sql("f") if scope is not None else ("", ())
        rows = self.ref.execute(
            "SELECT f.id, memory_facts_fts.rank FROM memory_facts_fts "
            "JOIN memory_facts_table f ON f.rowid = memory_facts_fts.rowid "
            f"WHERE memory_facts_fts MATCH ? AND f.workspace_id = ? AND f.superseded_by IS NULL{scope_sql} "
            "ORDER BY memory_facts_fts.rank LIMIT ?", (match, wid, *scope_params, limit)).fetchall()
        return [(r[0], r[1]) for r in rows]

    def active(self, ids: list[str], repo: str | None) -> set[str]:
        scope = repo_scope(repo)
        marks = ",".join("?" * len(ids))
        rows = self.ref.execute(f"SELECT id, domain FROM memory_facts_table WHERE id IN ({marks}) "
                                "AND workspace_id = ? AND superseded_by IS NULL", (*ids, self.ws.workspace_id))
        return {r[0] for r in rows if scope is None or scope.admits(r[1])}

    def vector(self, qvec: np.ndarray, repo: str | None, k: int = 30) -> list[tuple[str, float]]:
        """sqlite-vec's KNN query, then the inactive and out-of-scope ones dropped."""
        rows = self.ref.execute(f"SELECT fact_id, distance FROM {VECTOR_TABLE} WHERE embedding MATCH ? AND k = ? "
                                "ORDER BY distance", (np.asarray(qvec, dtype="<f4").tobytes(), k)).fetchall()
        keep = self.active([r[0] for r in rows], repo) if rows else set()
        return [(r[0], r[1]) for r in rows if r[0] in keep]

    def temporal(self, repo: str | None) -> list[str]:
        scope = repo_scope(repo)
        scope_sql, scope_params = scope.sql("f") if scope is not None else ("", ())
        rows = self.ref.execute(f"SELECT f.id FROM memory_facts_table f WHERE f.workspace_id = ? "
                                f"AND f.superseded_by IS NULL{scope_sql} ORDER BY f.created_at DESC, f.rowid DESC "
                                "LIMIT 30", (self.ws.workspace_id, *scope_params)).fetchall()
        return [r[0] for r in rows]

    def records(self, ids: set[str], repo: str | None) -> dict[str, FusionRecord]:
        scope = repo_scope(repo)
        marks = ",".join("?" * len(ids))
        out = {}
        for fid, domain, topic, content, conf, mtype, created in self.ref.execute(
                f"SELECT id, domain, topic, content, confidence, memory_type, created_at FROM memory_facts_table "
                f"WHERE id IN ({marks})", tuple(ids)):
            boost = 1.35 if scope is not None and domain.startswith(scope.prefix) else 1.0
            out[fid] = FusionRecord(float(created), mtype, float(conf), candidate_text(topic, content), boost)
        return out


class Fixed:
    """An embedder that returns the vector it is given."""

    def __init__(self, vec: np.ndarray) -> None:
        self.vec = vec

    def status(self) -> tuple[bool, str]:
        return True, ""

    def embed_one(self, text: str) -> np.ndarray:
        return self.vec


def _warm(ws, query: str = "deploy api") -> None:
    """Enough searches for the fast paths to start (the vector copy comes last)."""
    for _ in range(search_vector.COPY_AFTER):
        search(ws, query, mode="hybrid", now=NOW, embedder=Fixed(np.eye(DIM, dtype=np.float32)[0]))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    w = World(tmp_path_factory.mktemp("equivalence") / "world.db")
    _warm(w.ws)
    yield w
    w.close()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often each fast path answered (rather than handing over to the plain query)."""
    counts = {"keyword": 0, "vector": 0, "counted terms": 0}
    fast_rows, from_copy = bm25._fast_rows, search_vector._nearest_from_copy
    counted_terms = bm25._term_postings_counted

    def rows(*args, **kwargs):
        out = fast_rows(*args, **kwargs)
        counts["keyword"] += 1
        return out

    def terms(*args, **kwargs):
        counts["counted terms"] += 1
        return counted_terms(*args, **kwargs)

    def nearest(*args, **kwargs):
        out = from_copy(*args, **kwargs)
        counts["vector"] += out is not None
        return out

    monkeypatch.setattr(bm25, "_fast_rows", rows)
    monkeypatch.setattr(bm25, "_term_postings_counted", terms)
    monkeypatch.setattr(search_vector, "_nearest_from_copy", nearest)
    return counts


def test_the_fast_keyword_path_is_available_here() -> None:
    assert bm25.fast_path_available()


def test_one_shot_commands_and_busy_files_take_the_plain_queries(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The first search of a file version uses the product's SQL, the first few the KNN query:
    building the caches would not pay off for a file that changes between searches, or for
    a one-shot command."""
    calls = {"fast": 0, "copy": 0}
    fast_rows, vec0_copy = bm25._fast_rows, search_vector._vec0_copy

    def counting_rows(*args, **kwargs):
        calls["fast"] += 1
        return fast_rows(*args, **kwargs)

    def counting_copy(*args, **kwargs):
        calls["copy"] += 1
        return vec0_copy(*args, **kwargs)

    monkeypatch.setattr(bm25, "_fast_rows", counting_rows)
    monkeypatch.setattr(search_vector, "_vec0_copy", counting_copy)
    world = World(tmp_path / "small.db", seed=3)
    try:
        qvec = world.vectors[5]
        first = search(world.ws, "deploy api", mode="hybrid", now=NOW, embedder=Fixed(qvec))
        assert calls == {"fast": 0, "copy": 0}
        second = search(world.ws, "deploy api", mode="hybrid", now=NOW, embedder=Fixed(qvec))
        assert calls == {"fast": 1, "copy": 0}
        for _ in range(search_vector.COPY_AFTER - 2):
            search(world.ws, "deploy api", mode="hybrid", now=NOW, embedder=Fixed(qvec))
        assert calls["copy"] == 1
        assert [(h.id, h.score) for h in first.hits] == [(h.id, h.score) for h in second.hits]
    finally:
        world.close()


def _rewarm(world: World, counted: dict[str, int]) -> None:
    """The caches follow one workspace object at a time: another test's file may have taken them."""
    _warm(world.ws)
    counted.update({name: 0 for name in counted})


def test_keyword_search_equals_the_products_query(world: World, counted: dict[str, int]) -> None:
    _rewarm(world, counted)
    cache.clear_caches("fts-term")
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
    assert counted["counted terms"] > 100  # first-seen terms came from the index's instances


def test_keyword_search_without_the_instances_table(world: World, counted: dict[str, int],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no temporary fts5vocab table can be made, FTS5 ranks each new term itself."""
    monkeypatch.setattr(bm25, "_instances_table", lambda raw, fts: False)
    _rewarm(world, counted)
    cache.clear_caches("fts-term")
    rng = random.Random(21)
    for _ in range(100):
        query = world.query(rng)
        repo = rng.choice(SCOPES)
        got = search(world.ws, query, mode="keyword", repo=repo)
        assert [(h.id, h.bm25) for h in got.hits] == world.keyword(query, 20, repo), query
    assert counted["counted terms"] == 0 and counted["keyword"] > 80


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
    shared = _unit(nrng)
    copies = {3, 700, 701, 1030, 2049, 2050, 2100}
    with open_workspace(tmp_path / "ties.db", create=True) as ws:
        rows = [(f"t{i:04d}", ws.workspace_id, "codebase", "t", "text", 0.5, "fact",
                 (shared if i in copies else _unit(nrng)).tobytes(), T0, T0) for i in range(2300)]
        with ws.write() as conn:
            conn.exec_driver_sql(
                f"INSERT INTO {ws.layout.facts.name} (id, workspace_id, domain, topic, content, confidence, "
                "memory_type, embedding, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            conn.exec_driver_sql(f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) VALUES (?, ?)",
                                 [(r[0], r[7]) for r in rows])
            conn.exec_driver_sql(f"DELETE FROM {VECTOR_TABLE} WHERE fact_id = 't0701'")
        _warm(ws)
        counted["vector"] = 0
        for qvec in (shared, (shared + 0.01 * _unit(nrng)) / 1.0001):
            for k in (3, 6, 30):
                with ws.read() as conn:
                    cache.snapshot_version(ws, conn)
                    got = search_vector._nearest(ws, conn, qvec, k)
                    want = search_vector._knn_query(conn, qvec, k)
                assert got == want
                assert len({d for _, d in want[:6]}) == 1  # the six copies tie
    assert counted["vector"] == 6


def _reference_hybrid(world: World, query: str, qvec: np.ndarray, repo: str | None):
    fts = [fid for fid, _ in world.keyword(query, 20, repo)]
    vec = [fid for fid, _ in world.vector(qvec, repo)]
    temporal = world.temporal(repo)
    seeds = list(dict.fromkeys(fts[:3] + vec[:3]))
    with world.ws.read() as conn:
        graph = graph_ids(world.ws, conn, seeds, scope=repo_scope(repo))
    voices = {Voice.FACT: fts, Voice.TEMPORAL: temporal, Voice.GRAPH: graph, Voice.VECTOR: vec}
    records = world.records({f for ids in voices.values() for f in ids}, repo)
    return hybrid_fuse(voices, records, classify_intent(query), NOW)


def test_hybrid_and_semantic_equal_the_reference(world: World, counted: dict[str, int]) -> None:
    _rewarm(world, counted)
    rng, nrng = random.Random(13), np.random.default_rng(13)
    for _ in range(150):
        query = world.query(rng)
        qvec = world.query_vector(rng, nrng)
        repo = rng.choice(SCOPES)
        got = search(world.ws, query, mode="hybrid", repo=repo, now=NOW, embedder=Fixed(qvec))
        want = _reference_hybrid(world, query, qvec, repo)
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
    """Caches are per file version: a write (even from another connection) is seen at once."""
    rng, nrng = random.Random(14), np.random.default_rng(14)
    queries = [world.query(rng) for _ in range(12)]
    for q in queries:  # warm every cache
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
        vec = _unit(nrng)
        other.execute("INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, confidence, "
                      "memory_type, embedding, created_at, updated_at) VALUES ('late', ?, 'codebase', 'late', ?, "
                      "0.9, 'fact', ?, ?, ?)", (world.ws.workspace_id, words, vec.tobytes(), NOW, NOW))
        other.execute(f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) VALUES ('late', ?)", (vec.tobytes(),))
        other.execute("COMMIT")
    for q in [*queries, words]:
        assert [(h.id, h.bm25) for h in search(world.ws, q, mode="keyword").hits] == world.keyword(q, 20, None)
        got = search(world.ws, q, mode="hybrid", now=NOW, embedder=Fixed(vec))
        want = _reference_hybrid(world, q, vec, None)
        assert [(h.id, h.score) for h in got.hits] == [(h.id, h.score) for h in want.hits]
    assert search(world.ws, "x", mode="hybrid", now=NOW, embedder=Fixed(vec)).hits[0].voices["temporal"].rank == 1


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
