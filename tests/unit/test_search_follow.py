"""Search's copies follow a file that another process keeps writing (``search.copies.follow``).

A real second process (plain sqlean, the product's triggers) writes random batches to the
generated workspace of ``fixtures.search_world``: inserts (some also indexed in our vector
table, as a desk would), supersessions by id and by sentinel (without touching
``updated_at``, as the product's cleanup does), restores, edits of topic and content (some
with a new vector), deletes, recalls, new creation times. After each batch searches must
equal the plain-SQL references to the last bit, the copies must have followed the change
(the same copies, patched; not rebuilt), and at the end the patched copies must give
exactly what copies built afresh give.
"""

from __future__ import annotations

import random
import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import sqlean
import sqlite_vec

from fixtures.search_world import NOW, OTHER, SCOPES, T0, Fixed, World, reference_hybrid, unit
from fixtures.second_writer import SecondWriter
from memorydesk.core.changes import Kind
from memorydesk.core.product.fusion import rrf_fuse
from memorydesk.search.agent import search
from memorydesk.search.cache import snapshot_version
from memorydesk.search.copies import follow
from memorydesk.search.copies.follow import FileState
from memorydesk.search.scope import repo_scope
from memorydesk.search.vector import vector_ids
from memorydesk.store.ours import VECTOR_TABLE
from memorydesk.store.watermarks import FACT_ROW_COLUMNS, Follower


class Facts:
    """What the test knows about the file's facts, to write sensible random batches."""

    def __init__(self, world: World) -> None:
        with world.ws.read() as conn:
            rows = conn.exec_driver_sql("SELECT id, workspace_id, superseded_by FROM memory_facts_table").fetchall()
            indexed = {r[0] for r in conn.exec_driver_sql(f"SELECT fact_id FROM {VECTOR_TABLE}")}
        self.ids = [r[0] for r in rows]
        self.superseded = {r[0] for r in rows if r[2] is not None}
        self.indexed = indexed
        self.serial = 0
        self.our_index = True  # False: a product file, without our vector table

    def batch(self, world: World, rng: random.Random, nrng: np.random.Generator, size: int) -> list[dict]:
        ops: list[dict] = []
        for _ in range(size):
            roll = rng.random()
            if roll < 0.35 or len(self.ids) < 50:
                self.serial += 1
                fid = f"late-{self.serial:05d}"
                vec = unit(nrng) if rng.random() < 0.9 else None
                with_vector = self.our_index and vec is not None and rng.random() < 0.8
                ops.append({"op": "insert", "id": fid, "workspace_id": world.ws.workspace_id if rng.random() < 0.6
                            else OTHER, "domain": rng.choice(["codebase", "repo:acme-web/conventions", "repo:odd"]),
                            "topic": "-".join(rng.choices(world.words[:80], k=2)),
                            "content": " ".join(rng.choices(world.words, world.weights, k=rng.choice([1, 3, 9, 30]))),
                            "confidence": round(rng.random(), 2), "memory_type": "fact",
                            "embedding": vec.tobytes().hex() if vec is not None else None, "vector": with_vector,
                            "created_at": T0 + rng.randrange(0, 500) * 3600})
                self.ids.append(fid)
                if with_vector:
                    self.indexed.add(fid)
                continue
            fid = rng.choice(self.ids)
            if roll < 0.47:
                ops.append({"op": "supersede", "id": fid, "by": rng.choice([rng.choice(self.ids), "system:cleanup"]),
                            "sentinel": rng.random() < 0.5})
                self.superseded.add(fid)
            elif roll < 0.55 and self.superseded:
                back = rng.choice(sorted(self.superseded))
                ops.append({"op": "supersede", "id": back, "by": None})
                self.superseded.discard(back)
            elif roll < 0.72:
                vec = unit(nrng) if rng.random() < 0.4 else None
                ops.append({"op": "edit", "id": fid, "topic": "-".join(rng.choices(world.words[:80], k=2)),
                            "content": " ".join(rng.choices(world.words, world.weights, k=rng.choice([2, 5, 20]))),
                            "embedding": vec.tobytes().hex() if vec is not None else None,
                            "vector": fid in self.indexed})
            elif roll < 0.84:
                ops.append({"op": "delete", "id": fid, "vector": fid in self.indexed})
                self.ids.remove(fid)
                self.superseded.discard(fid)
                self.indexed.discard(fid)
            elif roll < 0.92:
                ops.append({"op": "recall", "id": fid})
            else:
                ops.append({"op": "created", "id": fid, "created_at": T0 + rng.randrange(0, 500) * 3600})
        return ops


def _results(world: World, queries: list[tuple[str, np.ndarray, str | None]]) -> list:
    out = []
    for query, qvec, repo in queries:
        key = search(world.ws, query, mode="keyword", repo=repo)
        hyb = search(world.ws, query, mode="hybrid", repo=repo, now=NOW, embedder=Fixed(qvec))
        sem = search(world.ws, query, mode="semantic", repo=repo, embedder=Fixed(qvec))
        out.append(([(h.id, h.bm25) for h in key.hits], [(h.id, h.score) for h in hyb.hits],
                    [(h.id, h.score, h.score_rank) for h in hyb.candidates], [(h.id, h.score) for h in sem.hits]))
    return out


def _check_against_sql(world: World, queries: list[tuple[str, np.ndarray, str | None]], results: list) -> None:
    for (query, qvec, repo), (key, hyb, cands, sem) in zip(queries, results, strict=True):
        assert key == world.keyword(query, 20, repo), query
        want = reference_hybrid(world, query, qvec, repo)
        assert hyb == [(h.id, h.score) for h in want.hits], query
        assert cands == [(h.id, h.score, h.score_rank + 1) for h in want.candidates], query
        fts = [fid for fid, _ in world.keyword(query, 20, repo)]
        vec = [fid for fid, _ in world.vector(qvec, repo)]
        assert sem == [(f.id, f.score) for f in rrf_fuse([fts, vec], limit=10)], query
        with world.ws.read() as conn:
            snapshot_version(world.ws, conn)
            assert vector_ids(world.ws, conn, qvec, scope=repo_scope(repo)) == world.vector(qvec, repo)


@pytest.mark.slow
def test_patched_copies_equal_the_products_sql_and_fresh_copies(tmp_path: Path) -> None:
    world = World(tmp_path / "followed.db", seed=21)
    rng, nrng = random.Random(21), np.random.default_rng(21)
    facts = Facts(world)
    try:
        state = follow.wait_ready(world.ws)
        assert state is not None and state.vectors is not None
        with SecondWriter(world.path) as writer:
            for round_ in range(14):
                writer.write(facts.batch(world, rng, nrng, rng.choice([1, 2, 7, 30, 100])))
                queries = [(world.query(rng), world.query_vector(rng, nrng), rng.choice(SCOPES)) for _ in range(6)]
                _check_against_sql(world, queries, _results(world, queries))
                assert follow.wait_ready(world.ws) is state, f"rebuilt in round {round_}"
                assert state.followed == round_ + 1
        queries = [(world.query(rng), world.query_vector(rng, nrng), rng.choice(SCOPES)) for _ in range(40)]
        patched = _results(world, queries)
        terms = sorted({t for t in state.keyword.table.terms[::7]} | {"de", "re", "ca", "zz"})
        postings = {t: state.keyword.table.postings(t) for t in terms}
        follow.forget()
        fresh_state = follow.wait_ready(world.ws)
        assert fresh_state is not None and fresh_state is not state
        assert _results(world, queries) == patched
        for t in terms:  # the patched copy holds exactly what a fresh one reads from the index
            rows, tf = fresh_state.keyword.table.postings(t)
            assert np.array_equal(rows, postings[t][0]) and tf.tobytes() == postings[t][1].tobytes(), t
        live = fresh_state.keyword.doc_len >= 0
        assert np.array_equal(state.keyword.doc_len[: len(live)][live], fresh_state.keyword.doc_len[live])
        assert state.keyword.n_hit == fresh_state.keyword.n_hit
        assert state.recent[None].ids == fresh_state.recent[None].ids[-len(state.recent[None].ids):]
    finally:
        world.close()


def test_a_schema_change_rebuilds_on_a_thread_while_searches_run_the_products_sql(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    world = World(tmp_path / "schema.db", seed=5)
    try:
        state = follow.wait_ready(world.ws)
        assert state is not None
        follow.configure(background=True)
        release = threading.Event()
        build = FileState.build

        def slow_build(*args, **kwargs):
            release.wait(30)
            return build(*args, **kwargs)

        monkeypatch.setattr(FileState, "build", slow_build)
        rng, nrng = random.Random(5), np.random.default_rng(5)
        facts = Facts(world)
        with SecondWriter(world.path) as writer:
            writer.write([{"op": "sql", "sql": "CREATE TABLE memdesk_probe (x)"}])
            queries = [(world.query(rng), world.query_vector(rng, nrng), rng.choice(SCOPES)) for _ in range(3)]
            started = time.monotonic()
            _check_against_sql(world, queries, _results(world, queries))  # while the rebuild waits
            assert time.monotonic() - started < 25
            assert follow.cache_report()["total"] == 0  # nothing kept meanwhile: the product's SQL answered
            writer.write(facts.batch(world, rng, nrng, 20))  # the file moves on during the rebuild
            release.set()
            rebuilt = follow.wait_ready(world.ws)
        assert rebuilt is not None and rebuilt is not state and rebuilt.schema != state.schema
        assert rebuilt.followed == 1  # the build caught up with the write before it was used
        _check_against_sql(world, queries, _results(world, queries))
        assert follow.wait_ready(world.ws) is rebuilt
    finally:
        release.set()
        follow.forget()
        world.close()


def test_more_than_it_pays_to_follow_is_rebuilt(tmp_path: Path) -> None:
    world = World(tmp_path / "bulk.db", seed=6)
    facts = Facts(world)
    rng, nrng = random.Random(6), np.random.default_rng(6)
    try:
        state = follow.wait_ready(world.ws)
        follow.configure(max_follow_rows=2)
        with SecondWriter(world.path) as writer:
            writer.write(facts.batch(world, rng, nrng, 200))
        queries = [(world.query(rng), world.query_vector(rng, nrng), rng.choice(SCOPES)) for _ in range(4)]
        _check_against_sql(world, queries, _results(world, queries))
        rebuilt = follow.wait_ready(world.ws)
        assert rebuilt is not None and rebuilt is not state and rebuilt.followed == 0
    finally:
        follow.configure(max_follow_rows=follow.CacheSettings().max_follow_rows)
        world.close()


def test_memory_is_bounded_and_reported(tmp_path: Path) -> None:
    world = World(tmp_path / "bounded.db", seed=7)
    rng, nrng = random.Random(7), np.random.default_rng(7)
    try:
        state = follow.wait_ready(world.ws)
        full = follow.cache_report()
        assert full["parts"]["vector copy"] > 0 and full["total"] <= full["max_bytes"]
        small = full["total"] - full["parts"]["vector copy"] + 1024 * 1024
        follow.configure(max_bytes=small)
        follow.forget()
        state = follow.wait_ready(world.ws)
        assert state is not None and state.vectors is None
        report = follow.cache_report()
        assert report["total"] <= small and report["parts"]["vector copy"] == 0
        assert any("vector copy" in note for note in report["notes"])
        queries = [(world.query(rng), world.query_vector(rng, nrng), rng.choice(SCOPES)) for _ in range(4)]
        _check_against_sql(world, queries, _results(world, queries))  # the KNN query answers instead
        follow.configure(max_bytes=1024)
        follow.forget()
        assert follow.wait_ready(world.ws) is None  # not even the index fits: the product's SQL throughout
        _check_against_sql(world, queries, _results(world, queries))
    finally:
        follow.configure(max_bytes=follow.CacheSettings().max_bytes)
        world.close()


def test_a_search_on_an_older_snapshot_does_not_use_newer_copies(tmp_path: Path) -> None:
    world = World(tmp_path / "older.db", seed=8)
    facts = Facts(world)
    rng, nrng = random.Random(8), np.random.default_rng(8)
    try:
        state = follow.wait_ready(world.ws)
        with world.ws.read() as old:
            old_version = snapshot_version(world.ws, old)
            with SecondWriter(world.path) as writer:
                writer.write(facts.batch(world, rng, nrng, 5))
            search(world.ws, "deploy", mode="keyword")  # follows to the new version
            assert state.version > old_version
            with follow.using(world.ws, old) as seen:
                assert seen is None
    finally:
        world.close()


def test_a_product_file_opened_read_only_is_followed_too(tmp_path: Path) -> None:
    """Without our vector index the vector voice scans the stored embeddings; that copy follows as well."""
    from memorydesk.search import vector as search_vector
    from memorydesk.store import open_workspace

    world = World(tmp_path / "product.db", seed=9)
    path = world.path
    facts = Facts(world)
    world.close()
    with sqlean.connect(str(path), isolation_level=None) as conn:  # what the product's own file looks like
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.execute(f"DROP TABLE {VECTOR_TABLE}")
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'memdesk%'"
                                    ).fetchall():
            conn.execute(f"DROP TABLE {name}")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    rng, nrng = random.Random(9), np.random.default_rng(9)
    with open_workspace(path, read_only=True) as ws:
        assert not ws.has_vectors
        state = follow.wait_ready(ws)
        assert state is not None and state.embeddings is not None and state.vectors is None
        facts.indexed, facts.our_index = set(), False
        with SecondWriter(path) as writer:
            for round_ in range(5):
                writer.write(facts.batch(world, rng, nrng, rng.choice([1, 10, 60])))
                for _ in range(8):
                    qvec = world.query_vector(rng, nrng)
                    with ws.read() as conn:
                        snapshot_version(ws, conn)
                        got = search_vector._nearest(ws, conn, qvec, 30)
                        fresh = search_vector._nearest_in_matrix(search_vector._load_index(ws, conn), qvec, 30)
                    assert got == fresh
                assert follow.wait_ready(ws) is state and state.followed == round_ + 1


_SHADOW = re.compile(r"(?<!')memory_facts_fts_(data|idx|docsize|config)\b")


def test_following_reads_rows_and_asks_fts5_never_its_storage(tmp_path: Path) -> None:
    """Every statement run while the copies follow a write: none of ours reads FTS5's shadow tables
    (FTS5's own statements name them quoted, ``'main'.'memory_facts_fts_data'``)."""
    world = World(tmp_path / "public.db", seed=12)
    facts = Facts(world)
    rng, nrng = random.Random(12), np.random.default_rng(12)
    try:
        state = follow.wait_ready(world.ws)
        assert state is not None
        with SecondWriter(world.path) as writer:
            writer.write(facts.batch(world, rng, nrng, 40))
        statements: list[str] = []
        with world.ws.read() as conn:
            raw = conn.connection.driver_connection
            raw.set_trace_callback(statements.append)
            try:
                version = snapshot_version(world.ws, conn)
                with follow.using(world.ws, conn) as seen:
                    assert seen is state and state.version == version and state.followed == 1
            finally:
                raw.set_trace_callback(None)
        ours = [s for s in statements if _SHADOW.search(s)]
        assert any("memory_facts_fts MATCH" in s for s in statements)  # FTS5 was asked (the probes)
        assert any(s.startswith("SELECT rowid, id, workspace_id") for s in statements)  # the rows were read
        assert ours == []
        queries = [(world.query(rng), world.query_vector(rng, nrng), rng.choice(SCOPES)) for _ in range(6)]
        _check_against_sql(world, queries, _results(world, queries))
    finally:
        world.close()


def test_an_index_out_of_step_with_its_table_is_not_trusted(tmp_path: Path) -> None:
    """A program that bypasses the product's triggers leaves the index saying something else than
    the rows: the copies do not take the rows' word for it; searches give what the product's SQL
    gives (FTS5's own answer)."""
    world = World(tmp_path / "bypass.db", seed=13)
    rng, nrng = random.Random(13), np.random.default_rng(13)
    try:
        with world.ws.read() as conn:
            fid = conn.exec_driver_sql("SELECT id FROM memory_facts_table WHERE superseded_by IS NULL "
                                       "AND workspace_id = ? LIMIT 1", (world.ws.workspace_id,)).scalar_one()
        with SecondWriter(world.path) as writer:
            writer.write([{"op": "sql", "sql": "DROP TRIGGER memory_facts_au"}])
            state = follow.wait_ready(world.ws)  # built after the schema change: the next write is followed
            assert state is not None
            writer.write([{"op": "edit", "id": fid, "topic": "zyxwvut", "content": "quixotic zyxwvut",
                           "vector": False}])
        assert search(world.ws, "zyxwvut", mode="keyword").hits == []  # the index never heard of it
        assert [(h.id, h.bm25) for h in search(world.ws, "quixotic", mode="keyword").hits] == \
            world.keyword("quixotic", 20, None)
        assert follow.wait_ready(world.ws) is not state  # not followed: FTS5 disagreed, the copies were rebuilt
        queries = [(world.query(rng), world.query_vector(rng, nrng), rng.choice(SCOPES)) for _ in range(6)]
        _check_against_sql(world, queries, _results(world, queries))
    finally:
        world.close()


def test_the_watcher_and_the_copies_notice_a_write_one_way(tmp_path: Path) -> None:
    """The window's watcher and search's copies read the same public marks: another program's
    write is read once per file version (every fact row's mark), whoever asks first; a creation
    time changed in place, which moves no count or time the watcher used to read, is seen by
    both; after the watcher brought the copies up (``catch_up``) a search reads no row's mark."""
    world = World(tmp_path / "one-way.db", seed=14)
    facts = Facts(world)
    rng, nrng = random.Random(14), np.random.default_rng(14)
    try:
        state = follow.wait_ready(world.ws)
        assert state is not None
        watcher = Follower(world.ws, slow_share=1.0)
        assert watcher.poll() is None  # where the file stands
        with SecondWriter(world.path) as writer:
            writer.write([{"op": "created", "id": facts.ids[7], "created_at": T0 + 999 * 3600}])
            with world.ws.read() as conn:
                version = snapshot_version(world.ws, conn)
                with follow.using(world.ws, conn) as seen:  # a search: the copies follow first
                    assert seen is state and state.version == version and state.followed == 1
            read = world.ws.fact_marks.rows
            assert read.version == version
            assert watcher.poll() == ({Kind.FACT, Kind.DOMAIN}, False)  # seen, though no count or time moved
            assert world.ws.fact_marks.rows is read  # the pass the copies read: not read again
            writer.write([{"op": "insert", "id": "late-one-way", "workspace_id": world.ws.workspace_id,
                           "domain": "codebase", "topic": "one-way", "content": "zyxwvut one way", "confidence": 0.5,
                           "memory_type": "fact", "embedding": None, "vector": False, "created_at": T0}])
            assert watcher.poll() == ({Kind.FACT, Kind.DOMAIN}, False)
            follow.catch_up(world.ws)  # what the window's watcher does when facts moved
            assert state.followed == 2 and follow.wait_ready(world.ws) is state
        statements: list[str] = []
        with world.ws.read() as conn:
            raw = conn.connection.driver_connection
            raw.set_trace_callback(statements.append)
            try:
                snapshot_version(world.ws, conn)
                with follow.using(world.ws, conn) as seen:
                    assert seen is state
            finally:
                raw.set_trace_callback(None)
        assert statements and not [s for s in statements if s.startswith(f"SELECT {FACT_ROW_COLUMNS}")]
        assert [h.id for h in search(world.ws, "zyxwvut", mode="keyword").hits] == ["late-one-way"]
        queries = [(world.query(rng), world.query_vector(rng, nrng), rng.choice(SCOPES)) for _ in range(6)]
        _check_against_sql(world, queries, _results(world, queries))
    finally:
        world.close()
