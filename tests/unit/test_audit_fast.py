"""The fast recall audit gives the slow one's answers.

The audit runs on search's copies of the file: keyword search applies the product's join
from the copies' active bit per rowid (``RowPrints.active``), and the vector voice of a
batch of coming queries is worked out in one pass over the vector copy
(``VectorCopy.prepare``, ``search.ahead``). Here, on the awkward generated workspace
(``fixtures.search_world``: duplicates, equal scores, equal distances, superseded facts, a
second workspace in the file), with the real embedding model:

- a seeded sample audited on copies equals, fact by fact (stage, rank and every number), the
  same facts put one by one through the agent's own ``search`` on a workspace that never
  builds copies (the product's SQL and sqlite-vec's KNN query);
- the prepared nearest embeddings equal sqlite-vec's KNN query, and a change to the file
  drops them;
- the active bit follows supersession, deletion and new rows.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from fixtures.search_world import NOW, World
from memorydesk.core.product.fusion import VARIANTS
from memorydesk.search import audit, bm25, cache
from memorydesk.search import vector as search_vector
from memorydesk.search.agent import search
from memorydesk.search.copies import follow
from memorydesk.search.copies.vectors import VectorCopy
from memorydesk.search.loss import diagnose
from memorydesk.store import open_workspace
from memorydesk.store.ours import VECTOR_TABLE


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    w = World(tmp_path_factory.mktemp("audit-fast") / "world.db", seed=5)
    yield w
    w.close()


@pytest.fixture
def answered(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often the fast paths answered: the active-bit keyword join, and the vector copy
    measuring a query's candidates (once per query, whether prepared or not)."""
    counts = {"active": 0, "measured": 0}
    best, answer = bm25._best_active, VectorCopy._answer

    def active(*args, **kwargs):
        counts["active"] += 1
        return best(*args, **kwargs)

    def measured(self, *args, **kwargs):
        counts["measured"] += 1
        return answer(self, *args, **kwargs)

    monkeypatch.setattr(bm25, "_best_active", active)
    monkeypatch.setattr(VectorCopy, "_answer", measured)
    return counts


@pytest.mark.slow
def test_the_fast_audit_equals_the_agents_search_fact_by_fact(world: World, answered: dict[str, int]) -> None:
    path = world.path
    with open_workspace(path, read_only=True) as ws:
        assert follow.wait_ready(ws) is not None
        facts = audit.sample_facts(ws, 240, seed=20261202)
        fast = audit.audit_facts(ws, facts, what_if=[VARIANTS["no-decay"]], now=NOW)
    assert answered["active"] >= 240 and answered["measured"] >= 200  # the copies answered
    assert len(fast) == 240 and len({i.query for i in fast}) > 100

    answered.update(active=0, measured=0)
    before = follow.settings().build_after
    follow.configure(build_after=10**9)  # this workspace object never builds copies: the product's SQL
    try:
        with open_workspace(path, read_only=True) as ws:
            slow = []
            for fact in facts:
                result = search(ws, fact.topic, mode="hybrid", now=NOW)
                what_if = search(ws, fact.topic, mode="hybrid", now=NOW, variant=VARIANTS["no-decay"])
                slow.append((diagnose(result, [fact.id])[fact.id], diagnose(what_if, [fact.id])[fact.id]))
            assert follow.cache_report(ws)["total"] == 0
    finally:
        follow.configure(build_after=before)
    assert answered == {"active": 0, "measured": 0}

    assert [(i.fact.id, i.loss.stage, i.loss.rank) for i in fast] == \
        [(f.id, loss.stage, loss.rank) for f, (loss, _) in zip(facts, slow, strict=True)]
    assert [i.loss for i in fast] == [loss for loss, _ in slow]  # every number, to the bit
    assert [i.what_if["no-decay"] for i in fast] == [other for _, other in slow]
    stages = {i.loss.stage for i in fast}
    assert {"found", "fusion"} <= stages and len(stages) >= 3  # a sample that exercises the funnel


def test_prepared_nearest_equal_the_knn_query(world: World, answered: dict[str, int]) -> None:
    ws = world.ws
    assert follow.wait_ready(ws) is not None
    rng, nrng = random.Random(31), np.random.default_rng(31)
    queries = [world.query_vector(rng, nrng) for _ in range(150)]
    queries += queries[:10]  # a query asked twice in one batch
    ties = 0
    for k in (3, 30):
        with ws.read() as conn:
            cache.snapshot_version(ws, conn)
            answered["measured"] = 0
            assert search_vector.prepare_nearest(ws, conn, queries, k) == len(queries)
            assert answered["measured"] == len(queries)
            for q in queries:
                got = search_vector._nearest(ws, conn, q, k)
                want = search_vector._knn_query(conn, q, k)
                assert got == want
                ties += len({d for _, d in want}) < len(want)
            assert answered["measured"] == len(queries)  # every answer was the prepared one
    assert ties > 20  # identical stored vectors: equal distances, in the index's own order


@pytest.mark.slow
def test_a_change_to_the_file_drops_the_prepared_answers(tmp_path: Path) -> None:
    world = World(tmp_path / "small.db", seed=9)
    try:
        ws = world.ws
        state = follow.wait_ready(ws)
        assert state is not None and state.vectors is not None
        target = world.vectors[17]
        with ws.read() as conn:
            cache.snapshot_version(ws, conn)
            assert search_vector.prepare_nearest(ws, conn, [target], 5) == 1
        assert len(state.vectors.prepared) == 1
        nearest = search_vector._knn_query
        with ws.read() as conn:
            first = nearest(conn, target, 5)[0][0]
        with ws.write() as conn:  # the nearest vector goes: the prepared answer would be wrong now
            conn.exec_driver_sql(f"DELETE FROM {VECTOR_TABLE} WHERE fact_id = ?", (first,))
        with ws.read() as conn:
            cache.snapshot_version(ws, conn)
            got = search_vector._nearest(ws, conn, target, 5)
            want = nearest(conn, target, 5)
        assert first not in [fid for fid, _ in got]
        assert got == want
        assert state.vectors.prepared == {}
    finally:
        world.close()


@pytest.mark.slow
def test_the_active_bit_follows_supersession_deletion_and_new_rows(tmp_path: Path) -> None:
    world = World(tmp_path / "active.db", seed=4)
    try:
        ws = world.ws
        assert follow.wait_ready(ws) is not None
        facts = ws.layout.facts.name

        def truth() -> np.ndarray:
            rows = world.ref.execute(f"SELECT rowid FROM {facts} WHERE workspace_id = ? AND superseded_by IS NULL",
                                     (ws.workspace_id,)).fetchall()
            return np.array(sorted(r[0] for r in rows), dtype=np.int64)

        def held() -> np.ndarray:
            with ws.read() as conn:
                cache.snapshot_version(ws, conn)
                with follow.using(ws, conn) as state:
                    assert state is not None
                    return np.flatnonzero(state.rows.active)

        assert np.array_equal(held(), truth())
        with ws.read() as conn:
            own = [r[0] for r in conn.exec_driver_sql(
                f"SELECT id FROM {facts} WHERE workspace_id = ? AND superseded_by IS NULL ORDER BY rowid LIMIT 6",
                (ws.workspace_id,))]
            old = conn.exec_driver_sql(f"SELECT id FROM {facts} WHERE superseded_by IS NOT NULL LIMIT 1").scalar()
        with ws.write() as conn:
            conn.exec_driver_sql(f"UPDATE {facts} SET superseded_by = ? WHERE id = ?", (own[1], own[0]))
            conn.exec_driver_sql(f"UPDATE {facts} SET superseded_by = NULL WHERE id = ?", (old,))
            conn.exec_driver_sql(f"UPDATE {facts} SET workspace_id = 'elsewhere' WHERE id = ?", (own[2],))
            conn.exec_driver_sql(f"DELETE FROM {facts} WHERE id = ?", (own[3],))
            conn.exec_driver_sql(
                f"INSERT INTO {facts} (id, workspace_id, domain, topic, content, created_at, updated_at) "
                "VALUES ('brand-new', ?, 'codebase', 'deploy', 'deploy api nightly', 1, 1)", (ws.workspace_id,))
        assert np.array_equal(held(), truth())
        hits = search(ws, "deploy api nightly", mode="keyword").ids
        assert "brand-new" in hits
        assert hits == [fid for fid, _ in world.keyword("deploy api nightly", 20, None)]
    finally:
        world.close()
