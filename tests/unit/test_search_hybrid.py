"""Semantic and hybrid search on hand-built workspaces, with every number recomputed here.

The embeddings are chosen (unit vectors at known angles to the query), so each voice's
order is known without the model; the fusion arithmetic of docs/product-format.md, "The product's rules" is written out
again in this file rather than taken from ``core.product.fusion``.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from memorydesk.embedding.embedder import DIM, get_embedder, to_blob
from memorydesk.search.agent import search
from memorydesk.search.hybrid import graph_ids, temporal_ids
from memorydesk.store import open_workspace
from memorydesk.store.ours import VECTOR_TABLE

H = 3600
T0 = 1_795_000_000
NOW = T0 + 48 * H
_ids = itertools.count(1)

WEIBULL = {"fact": (0.8, 720), "request": (1.5, 72), "decision": (1.0, 336), "preference": (0.4, 4380)}
BIASES = {"factual": (1.0, 1.2, 0.9), "general": (1.0, 1.0, 1.0), "procedural": (1.3, 0.9, 0.7)}


class FakeEmbedder:
    """Returns a fixed query vector; or reports itself unavailable."""

    def __init__(self, vec: np.ndarray | None = None, ok: bool = True) -> None:
        self.vec, self.ok, self.calls = vec, ok, 0

    def status(self) -> tuple[bool, str]:
        return (True, "") if self.ok else (False, "semantic search is off: the test says so")

    def embed_one(self, text: str) -> np.ndarray:
        self.calls += 1
        assert self.ok and self.vec is not None
        return self.vec


def unit(cos: float, axis: int) -> np.ndarray:
    """A unit vector at angle acos(cos) from e0, leaning toward e<axis>."""
    v = np.zeros(DIM, dtype=np.float32)
    v[0] = cos
    v[axis] = math.sqrt(max(0.0, 1 - cos * cos))
    return v


E0 = unit(1.0, 1)


def add_fact(ws, topic: str, content: str, *, vec: np.ndarray | None = None, created: int = T0,
             memory_type: str = "fact", confidence: float = 1.0, domain: str = "codebase",
             superseded_by: str | None = None) -> str:
    fid = f"f{next(_ids):04d}"
    blob = to_blob(vec) if vec is not None else None
    with ws.write() as conn:
        conn.execute(ws.layout.facts.insert().values(
            id=fid, workspace_id=ws.workspace_id, domain=domain, topic=topic, content=content,
            confidence=confidence, memory_type=memory_type, superseded_by=superseded_by, embedding=blob,
            created_at=created, updated_at=created))
        if blob is not None:
            conn.exec_driver_sql(f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) VALUES (?, ?)", (fid, blob))
    return fid


def add_edge(ws, source: str, target: str, weight: float) -> None:
    with ws.write() as conn:
        conn.execute(ws.layout.edges.insert().values(
            id=f"e{next(_ids)}", workspace_id=ws.workspace_id, source_fact_id=source, target_fact_id=target,
            edge_type="related_to", weight=weight, created_at=T0))


def fts_order(ws, term: str) -> list[str]:
    with ws.read() as conn:
        return [r[0] for r in conn.exec_driver_sql(
            "SELECT f.id FROM memory_facts_fts JOIN memory_facts_table f ON f.rowid = memory_facts_fts.rowid "
            "WHERE memory_facts_fts MATCH ? AND f.superseded_by IS NULL ORDER BY bm25(memory_facts_fts) LIMIT 20",
            (f"{term}*",))]


# --- semantic ------------------------------------------------------------------------------


def test_semantic_is_rrf_of_fts_top_20_and_vector_top_30(ws) -> None:
    a = add_fact(ws, "alpha", "kiwi banana cherry", vec=unit(0.90, 1))
    b = add_fact(ws, "beta", "kiwi kiwi kiwi", vec=unit(0.30, 2))
    c = add_fact(ws, "gamma", "a kiwi with plenty of other words around it", vec=None)
    d = add_fact(ws, "delta", "no fruit here", vec=unit(0.99, 3))
    e = add_fact(ws, "epsilon", "nothing either", vec=unit(0.80, 4))
    s = add_fact(ws, "old", "kiwi once", vec=unit(0.95, 5), superseded_by=a)
    fts = fts_order(ws, "kiwi")
    assert set(fts) == {a, b, c} and s not in fts
    vec = [d, a, e, b]  # by distance to e0; the superseded one is dropped
    want = {}
    for ranked in (fts, vec):
        for r, fid in enumerate(ranked):
            want[fid] = want.get(fid, 0.0) + 1 / (60 + r + 1)
    result = search(ws, "kiwi", mode="semantic", embedder=FakeEmbedder(E0))
    got = {h.id: h.score for h in result.hits}
    assert got == pytest.approx(want, rel=1e-12, abs=0)
    assert [h.score for h in result.hits] == sorted(got.values(), reverse=True)
    hit_a = next(h for h in result.hits if h.id == a)
    assert hit_a.voices["fact"].rank == fts.index(a) + 1 and hit_a.voices["vector"].rank == 2
    assert result.notes == []


def test_semantic_limit_is_10(ws) -> None:
    for i in range(25):
        add_fact(ws, f"t{i}", f"kiwi {i}", vec=unit(0.5 + i / 100, 1 + i))
    assert len(search(ws, "kiwi", mode="semantic", embedder=FakeEmbedder(E0)).hits) == 10


# --- hybrid, recomputed ------------------------------------------------------------------------


def _weibull(mtype: str, created: int) -> float:
    k, eta = WEIBULL[mtype]
    return math.exp(-(((NOW - created) / H) / eta) ** k)


def _mmr(scores: dict[str, float], texts: dict[str, str], k: int = 10) -> list[str]:
    toks = {i: set(t.lower().split()) for i, t in texts.items()}

    def jac(x: str, y: str) -> float:
        a, b = toks[x], toks[y]
        return len(a & b) / len(a | b) if a and b else 0.0

    left = sorted(scores, key=lambda i: -scores[i])
    chosen = [left.pop(0)]
    while left and len(chosen) < k:
        best = max(left, key=lambda i: 0.7 * scores[i] - 0.3 * max(jac(i, c) for c in chosen))
        left.remove(best)
        chosen.append(best)
    return chosen


def _graph(edges: list[tuple[str, str, float]], seeds: list[str], active: set[str]) -> list[str]:
    """DESIGN's graph voice written out again: per seed, BFS to depth 2, heaviest edges first."""
    out: list[str] = []
    for seed in seeds:
        seen, level = {seed}, [seed]
        for _ in range(2):
            touching = sorted((e for e in edges if e[0] in level or e[1] in level), key=lambda e: -e[2])
            nxt = []
            for src, dst, _w in touching:
                for near, far in ((src, dst), (dst, src)):
                    if near in level and far not in seen:
                        seen.add(far)
                        nxt.append(far)
            out += nxt
            level = nxt
    return [f for f in dict.fromkeys(out) if f in active]


def test_hybrid_scores_and_order_recomputed_from_the_rules(ws) -> None:
    spec = [
        # topic, content, cos to query, created, type, confidence
        ("deploy-cadence", "kiwi deploys happen Monday to Thursday", 0.70, T0 - 200 * H, "decision", 0.9),
        ("kiwi-farm", "kiwi kiwi growers deliver on Fridays", 0.20, T0 - 10 * H, "fact", 0.6),
        ("release", "release trains leave every second week", 0.95, T0 - 900 * H, "fact", 1.0),
        ("flags", "feature flags default to off in production", 0.85, T0 + 40 * H, "preference", 0.8),
        ("ci", "the kiwi pipeline runs lint then tests", 0.10, T0 + 47 * H, "fact", 0.3),
        ("db", "postgres primary lives in eu-central-1", None, T0 - 5 * H, "fact", 1.0),
    ]
    ids, meta = [], {}
    for topic, content, cos, created, mtype, conf in spec:
        fid = add_fact(ws, topic, content, vec=unit(cos, len(ids) + 1) if cos is not None else None,
                       created=created, memory_type=mtype, confidence=conf)
        ids.append(fid)
        meta[fid] = (topic, content, cos, created, mtype, conf)
    add_edge(ws, ids[0], ids[5], 0.7)  # the top keyword hit links to the vector-less fact
    add_edge(ws, ids[5], ids[2], 0.4)  # depth 2
    query = "what is the kiwi schedule"
    fts = fts_order(ws, "kiwi") + fts_order(ws, "schedule")
    fts = list(dict.fromkeys(fts))
    vec = sorted((f for f in ids if meta[f][2] is not None), key=lambda f: -meta[f][2])
    temporal = sorted(ids, key=lambda f: -meta[f][3])
    seeds = list(dict.fromkeys(fts[:3] + vec[:3]))
    edges = [(ids[0], ids[5], 0.7), (ids[5], ids[2], 0.4)]
    vec_b, fts_b, imp_b = BIASES["factual"]  # "what is"
    weights = {"fact": 0.25 * fts_b, "vector": 0.35 * vec_b, "temporal": 0.15 * imp_b, "graph": 0.25}

    result = search(ws, query, mode="hybrid", embedder=FakeEmbedder(E0), now=NOW)
    assert result.intent == "factual"
    graph = _graph(edges, seeds, active=set(ids))
    assert ids[5] in graph
    lists = {"fact": fts, "vector": vec, "temporal": temporal, "graph": graph}
    want: dict[str, float] = {}
    for fid in ids:
        rrf = sum(weights[v] / (60 + lst.index(fid) + 1) for v, lst in lists.items() if fid in lst)
        if rrf:
            _, _, _, created, mtype, conf = meta[fid]
            want[fid] = rrf * (0.02 + 0.98 * _weibull(mtype, created)) * (0.8 + 0.2 * conf)
    got = {h.id: h.score for h in result.hits}
    assert got == pytest.approx(want, rel=1e-12, abs=0)
    texts = {f: f"{meta[f][0]} {meta[f][1]}" for f in want}
    assert result.ids == _mmr(want, texts)
    for h in result.hits:
        for voice, share in h.voices.items():
            assert share.rank == lists[voice].index(h.id) + 1
            assert share.weight == pytest.approx(weights[voice])
        assert h.intent == "factual"
        assert h.decay == pytest.approx(_weibull(meta[h.id][4], meta[h.id][3]))
        assert h.confidence_factor == pytest.approx(0.8 + 0.2 * meta[h.id][5])


def test_graph_walk_is_breadth_first_heaviest_first_both_directions(ws) -> None:
    a, b, c, d, e, gone, old = (add_fact(ws, n, f"{n} text") for n in ("a", "b", "c", "d", "e", "gone", "old"))
    add_edge(ws, a, c, 0.5)
    add_edge(ws, b, a, 0.9)  # reached backwards, heavier: first
    add_edge(ws, b, d, 0.8)  # depth 2
    add_edge(ws, d, e, 0.99)  # depth 3: out of reach
    add_edge(ws, a, "f-missing", 0.95)  # dangling: dropped
    add_edge(ws, c, old, 0.6)
    with ws.write() as conn:
        conn.execute(ws.layout.facts.update().where(ws.layout.facts.c.id == old).values(superseded_by="system:cleanup"))
    with ws.read() as conn:
        assert graph_ids(ws, conn, [a]) == [b, c, d]
        # a second seed walks on its own; repeats are removed in walk order
        assert graph_ids(ws, conn, [e, a]) == [d, b, c]  # e: d, then b; a adds c
    del gone


def test_temporal_voice_is_the_30_newest_active_facts(ws) -> None:
    made = [add_fact(ws, f"t{i}", "x", created=T0 + i * 60) for i in range(35)]
    with ws.write() as conn:
        conn.execute(ws.layout.facts.update().where(ws.layout.facts.c.id == made[-1]).values(superseded_by=made[0]))
    with ws.read() as conn:
        assert temporal_ids(ws, conn) == list(reversed(made[4:34]))


def test_mmr_pushes_a_near_duplicate_down(ws) -> None:
    text = "backups run nightly at two and are kept for thirty days in the eu bucket"
    others = [add_fact(ws, f"other-{i}", f"unrelated note number {i} about backups", vec=unit(0.5 - i / 50, 3 + i),
                       created=T0 - 100 * H) for i in range(5)]
    dup = add_fact(ws, "backups", text + " indeed", vec=unit(0.98, 2))
    first = add_fact(ws, "backups", text, vec=unit(0.99, 1))
    result = search(ws, "backups", mode="hybrid", embedder=FakeEmbedder(E0), now=NOW)
    by_score = sorted(result.hits, key=lambda h: -h.score)
    assert by_score[1].id == dup  # second by score alone…
    assert result.ids[0] == first
    assert result.ids.index(dup) > max(result.ids.index(o) for o in others)  # …but last after MMR
    assert next(h for h in result.hits if h.id == dup).mmr_penalty > 0.25


def test_decay_moves_a_stale_request_below_a_fresh_fact(ws) -> None:
    stale = add_fact(ws, "rotate", "rotate rotate the api keys rotate", vec=unit(0.99, 1),
                     created=NOW - 10 * 24 * H, memory_type="request")
    fresh = add_fact(ws, "keys", "api keys rotate quarterly", vec=unit(0.90, 2), created=NOW - H)
    result = search(ws, "rotate keys", mode="hybrid", embedder=FakeEmbedder(E0), now=NOW)
    hit = {h.id: h for h in result.hits}
    assert hit[stale].voices["fact"].rank == 1 and hit[stale].voices["vector"].rank == 1
    assert hit[stale].rrf > hit[fresh].rrf
    assert hit[stale].decay < 0.01
    assert result.ids.index(fresh) < result.ids.index(stale)


# --- degraded modes --------------------------------------------------------------------------


def test_without_the_embedder_fused_modes_use_keyword_voices_and_say_why(ws) -> None:
    a = add_fact(ws, "kiwi", "kiwi facts", vec=unit(0.9, 1))
    b = add_fact(ws, "other", "no fruit", vec=unit(0.99, 2))
    add_edge(ws, a, b, 0.5)
    off = FakeEmbedder(ok=False)
    semantic = search(ws, "kiwi", mode="semantic", embedder=off)
    assert semantic.ids == [a] and "test says so" in " ".join(semantic.notes)
    hybrid = search(ws, "kiwi", mode="hybrid", embedder=off, now=NOW)
    assert set(hybrid.ids) == {a, b}
    assert all("vector" not in h.voices for h in hybrid.hits)
    assert next(h for h in hybrid.hits if h.id == b).voices["graph"].rank == 1
    assert any("keyword-derived" in n for n in hybrid.notes)


def test_without_any_embedding_the_model_is_not_even_asked(ws) -> None:
    add_fact(ws, "kiwi", "kiwi facts")
    probe = FakeEmbedder(E0)
    result = search(ws, "kiwi", mode="hybrid", embedder=probe, now=NOW)
    assert probe.calls == 0 and result.ids
    assert any("no fact in this workspace has an embedding" in n for n in result.notes)


def test_read_only_product_file_searches_stored_embeddings_with_numpy(tmp_path: Path) -> None:
    from fixtures.product_fixture import build

    path = build(tmp_path / "p.db")
    import sqlean

    with sqlean.connect(str(path), isolation_level=None) as conn:
        conn.execute("UPDATE memory_facts_table SET embedding = ? WHERE id = 'f-03'", (to_blob(unit(0.9, 1)),))
        conn.execute("UPDATE memory_facts_table SET embedding = ? WHERE id = 'f-04'", (to_blob(unit(0.95, 2)),))
        conn.execute("UPDATE memory_facts_table SET embedding = ? WHERE id = 'f-02'", (to_blob(unit(1.0, 3)),))
        conn.execute("UPDATE memory_facts_table SET embedding = x'0011' WHERE id = 'f-01'")  # malformed
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    from helpers import sha256

    before = sha256(path)
    with open_workspace(path, read_only=True) as ro:
        assert not ro.has_vectors
        result = search(ro, "zzzz", mode="semantic", embedder=FakeEmbedder(E0))
    assert result.ids == ["f-04", "f-03"]  # f-02 is nearest but superseded
    assert sha256(path) == before


# --- repo scope and recall ----------------------------------------------------------------------


def test_repo_scope_and_boost_in_hybrid(ws) -> None:
    mine = add_fact(ws, "lint", "kiwi lint rules", domain="repo:acme-web/conventions", vec=unit(0.9, 1))
    theirs = add_fact(ws, "lint", "kiwi lint rules too", domain="repo:acme-api/conventions", vec=unit(0.9, 2))
    shared = add_fact(ws, "lint", "kiwi lint rules also", domain="conventions", vec=unit(0.9, 3))
    odd = add_fact(ws, "lint", "kiwi lint odd", domain="repo:scratch", vec=unit(0.9, 4))
    result = search(ws, "kiwi lint", mode="hybrid", repo="acme-web", embedder=FakeEmbedder(E0), now=NOW)
    assert set(result.ids) == {mine, shared, odd} and theirs not in result.ids
    boosts = {h.id: h.boost for h in result.hits}
    assert boosts == {mine: 1.35, shared: 1.0, odd: 1.0}
    assert result.repo == "acme-web"


def test_an_agents_hybrid_recall_is_recorded_once(ws) -> None:
    a = add_fact(ws, "kiwi", "kiwi facts", vec=unit(0.9, 1))
    result = search(ws, "kiwi", mode="hybrid", embedder=FakeEmbedder(E0), now=NOW, record_recall=True)
    assert result.recorded and a in result.ids
    with ws.read() as conn:
        row = conn.exec_driver_sql("SELECT recall_count, last_recalled_at FROM memory_facts_table WHERE id = ?",
                                   (a,)).one()
    assert tuple(row) == (1, NOW)


# --- real embeddings ---------------------------------------------------------------------------

REALISTIC = [
    ("deploy-cadence", "Production deploys happen Monday to Thursday; Friday deploys need a go from on-call."),
    ("backup-schedule", "Postgres is snapshotted every night at 02:00 UTC and snapshots are kept for 35 days."),
    ("invoice-rounding", "Invoice totals are rounded half-even to two decimals per line item before summing."),
    ("sentry-quota", "Sentry spike protection throttles the web project when the monthly error quota passes 80%."),
    ("package-manager", "The monorepo uses pnpm workspaces; npm and yarn lockfiles are rejected in CI."),
    ("feature-flags", "New features ship behind LaunchDarkly flags that default to off in production."),
    ("code-review", "Every pull request needs two approvals, one from a code owner of the touched package."),
    ("oncall", "The on-call rotation changes every Tuesday at 10:00 and is managed in PagerDuty."),
    ("secrets", "Secrets live in AWS Secrets Manager; never commit .env files to the repository."),
    ("api-versioning", "Breaking API changes require a new /v2 route; old versions live for six months."),
    ("staging", "Staging runs in eu-central-1 on two small nodes and is reset every Sunday night."),
    ("design-tokens", "Colours and spacing come from the shared design tokens package, never hard-coded."),
    ("testing", "Go handlers are covered by table-driven tests; the web app uses Playwright end to end."),
    ("incident-review", "Every SEV1 incident gets a written blameless postmortem within five working days."),
    ("caching", "Redis is only a cache; the source of truth is always Postgres."),
]
PARAPHRASES = [
    ("when are we allowed to ship to prod during the week", "deploy-cadence"),
    ("how long do we retain database dumps", "backup-schedule"),
    ("how are cents handled on bills", "invoice-rounding"),
    ("error tracker stops accepting events near the monthly limit", "sentry-quota"),
    ("which javascript dependency tool should I use", "package-manager"),
    ("who must sign off on a merge request", "code-review"),
    ("where do we keep passwords and api tokens", "secrets"),
    ("write up after an outage", "incident-review"),
]


def test_paraphrases_find_their_fact_in_the_top_3_with_real_embeddings(ws) -> None:
    embedder = get_embedder()
    ok, reason = embedder.status()
    if not ok:
        pytest.skip(reason)
    vectors = embedder.embed([f"{t} {c}" for t, c in REALISTIC])
    by_topic = {}
    for (topic, content), vec in zip(REALISTIC, vectors):
        by_topic[topic] = add_fact(ws, topic, content, vec=vec, created=NOW - 24 * H)
    for query, topic in PARAPHRASES:
        semantic = search(ws, query, mode="semantic", embedder=embedder)
        assert by_topic[topic] in semantic.ids[:3], (query, [h.topic for h in semantic.hits[:3]])
        # hybrid keeps the product's quirks (the temporal voice and MMR may bury it): the
        # explanation still shows the vector voice had it in its top 3, returned or not
        hybrid = search(ws, query, mode="hybrid", embedder=embedder, now=NOW)
        hit = next(h for h in hybrid.candidates if h.id == by_topic[topic])
        assert hit.voices["vector"].rank <= 3, (query, hit.explain())
