"""Timing helpers shared by the search benchmarks, and the plain baseline they are measured against.

The baseline is what a straightforward implementation does: one FTS5 query (the
product's), plus, for the fused modes, the query embedding and a numpy brute-force cosine
over every vector held in memory. It is measured in the same run as the figures it is
compared with.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from memorydesk.core.product.fts_query import scoped_match
from memorydesk.embedding.embedder import DIM, get_embedder
from memorydesk.store import Workspace

BASELINE = "baseline (FTS5 + numpy cosine)"
BASELINE_FTS = "baseline FTS5 query alone"


def pct(samples: Sequence[float]) -> tuple[float, float]:
    """p50 and p95 of samples in seconds, in ms."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return statistics.median(ordered) * 1000, p95 * 1000


def timed(fn: Callable[[Any], object], args_list: Sequence[Any], warm: bool = True) -> tuple[float, float]:
    """p50/p95 of ``fn`` over ``args_list`` (the first input run once untimed when ``warm``)."""
    if warm:
        fn(args_list[0])
    samples = []
    for args in args_list:
        started = time.perf_counter()
        fn(args)
        samples.append(time.perf_counter() - started)
    return pct(samples)


class RandomEmbedder:
    """Stands in for the model when it is not installed: latency does not depend on meaning."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(3)

    def status(self) -> tuple[bool, str]:
        return True, ""

    def embed_one(self, text: str) -> np.ndarray:
        v = self.rng.standard_normal(DIM).astype(np.float32)
        return v / np.linalg.norm(v)


def embedder() -> Any:
    found = get_embedder()
    ok, reason = found.status()
    if not ok:
        print(f"  ({reason}; timing with random query vectors instead)")
        return RandomEmbedder()
    return found


class Baseline:
    """One FTS5 query, and that plus a numpy cosine over every vector (held in memory)."""

    def __init__(self, ws: Workspace, embed: Any) -> None:
        self.ws, self.embed = ws, embed
        with ws.read() as conn:
            rows = conn.exec_driver_sql("SELECT id, embedding FROM memory_facts_table WHERE embedding IS NOT NULL"
                                        ).fetchall()
        self.ids = [r[0] for r in rows]
        self.matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), DIM)
        self.conn = ws.engine.raw_connection()

    def fts(self, q: str) -> None:
        match = scoped_match(q, self.ws.workspace_id)
        if match:
            self.conn.driver_connection.execute(
                "SELECT f.id FROM memory_facts_fts JOIN memory_facts_table f ON f.rowid = memory_facts_fts.rowid "
                "WHERE memory_facts_fts MATCH ? AND f.superseded_by IS NULL ORDER BY rank LIMIT 20",
                (match,)).fetchall()

    def full(self, q: str) -> None:
        qv = self.embed.embed_one(q)
        sims = self.matrix @ qv
        top = np.argpartition(-sims, 30)[:30]
        _ = [self.ids[i] for i in top[np.argsort(-sims[top])]]
        self.fts(q)

    def close(self) -> None:
        self.conn.close()


def report(title: str, figures: dict[str, tuple[float, float]], against: dict[str, str]) -> None:
    """Print figures (p50 / p95 ms) with their ratio to the baseline named in ``against``."""
    print(f"\n{title} (p50 / p95 in ms; ratio = ours / baseline, p50 and p95)")
    for name, (p50, p95) in figures.items():
        base = against.get(name)
        ratio = ""
        if base is not None and base in figures:
            b50, b95 = figures[base]
            ratio = f"   ×{p50 / b50:.2f} / ×{p95 / b95:.2f} of {base}"
        print(f"  {name:<44} {p50:8.2f} {p95:8.2f}{ratio}")
