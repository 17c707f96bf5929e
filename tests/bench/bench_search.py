"""Search and preamble latency on large synthetic workspaces, with a naive baseline.

Run with ``pytest tests/bench/bench_search.py -s`` (or ``python`` on this file; set
``MEMDESK_BENCH_SIZES=10000,100000,1000000`` to choose sizes). Prints p50/p95 in ms;
asserts nothing about time. Workspaces are built once with bulk Core inserts
(synthetic but varied text, random unit vectors) and cached in the temp folder.

Goals: keyword p95 ≤ 30 ms at 1M; hybrid p95 ≤ 150 ms at 100k including the query
embedding; preamble p95 ≤ 20 ms at 1M. The baseline, measured in the same run, is
what a straightforward implementation does: one FTS5 query plus a numpy brute-force
cosine over every vector held in memory.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from memorydesk.core.fts_query import scoped_match
from memorydesk.memory.embedder import DIM, get_embedder
from memorydesk.memory.preamble import build_preamble
from memorydesk.memory.search import search
from memorydesk.store import open_workspace
from memorydesk.store.ours import VECTOR_TABLE

SIZES = [int(s) for s in os.environ.get("MEMDESK_BENCH_SIZES", "10000,100000").split(",") if s]
N_QUERIES = int(os.environ.get("MEMDESK_BENCH_QUERIES", "60"))
CACHE = Path(tempfile.gettempdir()) / "memorydesk-bench"
T0 = 1_790_000_000
AGENT = "bench-agent"

_SUBJECTS = ["The Go API", "The web app", "Terraform", "The staging cluster", "Billing", "The backup job",
             "The release train", "Sentry", "The design system", "On-call", "Postgres", "The CDN", "Redis",
             "The search service", "Playwright", "The invoice exporter", "Kafka", "The auth gateway"]
_VERBS = ["must run", "should be reviewed", "is deployed", "fails", "is throttled", "was migrated",
          "needs approval", "is rolled back", "gets rotated", "is cached", "times out", "is sharded"]
_DETAILS = ["before every production release", "every weekday at 10:00 UTC", "when the error budget is low",
            "after the smoke tests pass", "by two reviewers", "with the feature flag off", "using pnpm",
            "behind the VPN only", "within one working day", "with banker's rounding (half-even)",
            "and snapshots are checked in Chromatic", "because the quota was exceeded", "in eu-central-1"]
_TYPES = ["fact"] * 6 + ["decision", "preference", "event", "request", "learning", "observation"]
_DOMAINS = ["codebase", "infrastructure", "conventions", "decisions", "product", "pr-reviews",
            "repo:acme-web/conventions", "repo:acme-api/architecture"]
QUERIES = ["how do we deploy the api", "backup retention", "who approves terraform changes", "sentry quota",
           "invoice rounding rule", "pnpm or npm", "review turnaround time", "feature flags in production",
           "staging cluster region", "release day", "redis cache invalidation", "kafka consumer lag"]
TASKS = ["Prepare the production release of the Go API and check the smoke tests",
         "Rotate the Redis credentials behind the VPN before Friday",
         "Investigate why the invoice exporter times out on large accounts"]


def _build(path: Path, n: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    tmp = path.with_suffix(".building")
    for suffix in ("", "-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    ws = open_workspace(tmp)
    facts = ws.layout.facts
    batch = 5000
    ids = [f"bench-{i:07d}" for i in range(n)]
    with ws.write() as conn:
        conn.execute(ws.layout.agents.insert().values(id=AGENT, name="Bench", title="Bench", agent_md_path="",
                                                      workspace_id=ws.workspace_id, skills="", created_at=T0))
        conn.execute(ws.layout.notes.insert().values(id="note-1", workspace_id=ws.workspace_id, agent_id=AGENT,
                                                     content="- prefers small PRs\n- watch the flaky suite",
                                                     updated_at=T0))
        for i in range(12):
            conn.execute(ws.layout.policies.insert().values(
                id=f"pol-{i}", workspace_id=ws.workspace_id, domain=rng.choice(_DOMAINS),
                rule=f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_DETAILS)}.", active=True,
                created_at=T0, updated_at=T0 + i))
        for start in range(0, n, batch):
            stop = min(start + batch, n)
            vecs = nrng.standard_normal((stop - start, DIM)).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            rows = []
            for j, i in enumerate(range(start, stop)):
                sentences = " ".join(
                    f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_DETAILS)} (ref {rng.randrange(10**6)})."
                    for _ in range(rng.choice([1, 1, 2, 3])))
                rows.append({
                    "id": ids[i], "workspace_id": ws.workspace_id, "domain": rng.choice(_DOMAINS),
                    "topic": f"topic-{rng.randrange(5000)}", "content": sentences,
                    "confidence": round(rng.uniform(0.3, 1.0), 2), "memory_type": rng.choice(_TYPES),
                    "superseded_by": ids[i - 1] if i and rng.random() < 0.05 else None,
                    "embedding": vecs[j].tobytes(), "created_at": T0 + i * 30, "updated_at": T0 + i * 30,
                })
            conn.execute(facts.insert(), rows)
            conn.exec_driver_sql(f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) VALUES (?, ?)",
                                 [(r["id"], r["embedding"]) for r in rows])
            edges = [{"id": f"edge-{i}-{k}", "workspace_id": ws.workspace_id, "source_fact_id": ids[i],
                      "target_fact_id": ids[rng.randrange(n)], "edge_type": ("related_to", "contextual")[k],
                      "weight": round(rng.uniform(0.35, 1.0), 3), "created_at": T0}
                     for i in range(start, stop) for k in range(2)]
            conn.execute(ws.layout.edges.insert(), edges)
    ws.close()
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(tmp) + suffix)
        if src.exists():
            src.replace(Path(str(path) + suffix))


def workspace_of(n: int) -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"search-{n}.db"
    if not path.exists():
        started = time.perf_counter()
        _build(path, n)
        print(f"  built {n:,} facts in {time.perf_counter() - started:.1f} s → {path}")
    return path


def _pct(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return statistics.median(ordered) * 1000, p95 * 1000


def _time(fn, args_list) -> tuple[float, float]:
    fn(args_list[0])  # warm
    samples = []
    for args in args_list:
        started = time.perf_counter()
        fn(args)
        samples.append(time.perf_counter() - started)
    return _pct(samples)


class _RandomEmbedder:
    def __init__(self) -> None:
        self.rng = np.random.default_rng(3)

    def status(self) -> tuple[bool, str]:
        return True, ""

    def embed_one(self, text: str) -> np.ndarray:
        v = self.rng.standard_normal(DIM).astype(np.float32)
        return v / np.linalg.norm(v)


def run_size(n: int) -> dict[str, tuple[float, float]]:
    path = workspace_of(n)
    embedder = get_embedder()
    ok, reason = embedder.status()
    if not ok:
        print(f"  ({reason}; timing with random query vectors instead)")
        embedder = _RandomEmbedder()  # type: ignore[assignment]
    queries = [QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" {i}") for i in range(N_QUERIES)]
    figures: dict[str, tuple[float, float]] = {}
    with open_workspace(path, read_only=True) as ws:
        for mode in ("keyword", "semantic", "hybrid"):
            figures[mode] = _time(lambda q, m=mode: search(ws, q, mode=m, embedder=embedder), queries)
        tasks = [TASKS[i % len(TASKS)] for i in range(N_QUERIES)]
        figures["preamble"] = _time(lambda t: build_preamble(ws, AGENT, t), tasks)
        figures["query embedding"] = _time(lambda q: embedder.embed_one(q), queries)

        # baseline: FTS5 + numpy brute-force cosine over every vector, all held in memory
        with ws.read() as conn:
            rows = conn.exec_driver_sql("SELECT id, embedding FROM memory_facts_table").fetchall()
        ids = [r[0] for r in rows]
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), DIM)
        conn = ws.engine.raw_connection()
        try:
            def baseline(q: str) -> None:
                qv = embedder.embed_one(q)
                sims = matrix @ qv
                top = np.argpartition(-sims, 30)[:30]
                _ = [ids[i] for i in top[np.argsort(-sims[top])]]
                match = scoped_match(q, ws.workspace_id)
                if match:
                    conn.driver_connection.execute(
                        "SELECT f.id FROM memory_facts_fts JOIN memory_facts_table f ON f.rowid = memory_facts_fts.rowid "
                        "WHERE memory_facts_fts MATCH ? AND f.superseded_by IS NULL ORDER BY rank LIMIT 20",
                        (match,)).fetchall()

            figures["baseline (FTS5 + numpy cosine)"] = _time(baseline, queries)
        finally:
            conn.close()
    return figures


def report(n: int, figures: dict[str, tuple[float, float]]) -> None:
    base = figures["baseline (FTS5 + numpy cosine)"][0]
    print(f"\n{n:,} facts ({N_QUERIES} queries each)")
    for name, (p50, p95) in figures.items():
        ratio = f"  ×{p50 / base:.2f} of baseline p50" if name in ("semantic", "hybrid") else ""
        print(f"  {name:<32} p50 {p50:8.2f} ms   p95 {p95:8.2f} ms{ratio}")


@pytest.mark.slow
def test_bench_search() -> None:
    for n in SIZES:
        report(n, run_size(n))


if __name__ == "__main__":
    for size in SIZES:
        report(size, run_size(size))
