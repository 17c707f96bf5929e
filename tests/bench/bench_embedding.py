"""Embedding benchmark: batch throughput and single-query latency.

Run with ``pytest tests/bench/bench_embedding.py -s`` (or ``python`` on this file).
It prints figures and asserts nothing about time: machines differ. docs/product-format.md, "Embeddings"
quotes ~200 texts/s and ~4 ms a query for the reference machine.
"""

from __future__ import annotations

import random
import statistics
import time

import numpy as np
import pytest

from memorydesk.embedding.embedder import DIM, Embedder

BATCH_SIZE = 32
N_TEXTS = 512
N_QUERIES = 200
ROUNDS = 3

_SUBJECTS = [
    "The Go API", "The Next.js web app", "The Terraform pipeline", "The staging cluster",
    "The billing service", "The nightly backup job", "The release train", "Sentry",
    "The design system", "The on-call rotation", "The Postgres primary", "The CDN config",
]
_VERBS = [
    "must run", "should be reviewed", "is deployed", "fails", "is throttled",
    "was migrated", "needs approval", "is rolled back", "gets rotated", "is cached",
]
_DETAILS = [
    "before every production release", "every weekday at 10:00 UTC",
    "when the error budget is below 20%", "after the smoke tests pass",
    "by two reviewers from the platform team", "with the feature flag turned off",
    "using pnpm instead of npm", "behind the VPN only", "within one working day",
    "unless the change touches the invoice rounding code (banker's rounding, half-even)",
    "and the Storybook snapshots are checked in Chromatic",
    "because the quota was exceeded last quarter",
]
_QUERIES = [
    "how do we deploy", "backup retention", "who approves terraform changes",
    "sentry quota", "invoice rounding rule", "pnpm or npm", "review turnaround",
    "feature flags in production", "staging database credentials", "release day",
]


def realistic_sentences(n: int, seed: int = 7) -> list[str]:
    """``n`` fact-like texts (topic + content), a sentence or three each."""
    rng = random.Random(seed)
    texts = []
    for i in range(n):
        topic = f"topic-{i % 40}"
        sentences = [
            f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_DETAILS)}."
            for _ in range(rng.choice([1, 1, 2, 2, 3]))
        ]
        texts.append(f"{topic} {' '.join(sentences)}")
    return texts


def run_benchmark() -> dict[str, float]:
    embedder = Embedder()
    t0 = time.perf_counter()
    available, reason = embedder.status()
    load_s = time.perf_counter() - t0
    if not available:
        pytest.skip(reason)

    texts = realistic_sentences(N_TEXTS)
    embedder.embed(texts[:BATCH_SIZE], batch_size=BATCH_SIZE)  # warm-up

    rates = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        out = embedder.embed(texts, batch_size=BATCH_SIZE)
        rates.append(len(texts) / (time.perf_counter() - t0))
        assert out.shape == (len(texts), DIM)

    queries = [random.Random(i).choice(_QUERIES) + f" {i}" for i in range(N_QUERIES)]
    for q in queries[:10]:
        embedder.embed_one(q)  # warm-up
    latencies_ms = []
    for q in queries:
        t0 = time.perf_counter()
        embedder.embed_one(q)
        latencies_ms.append((time.perf_counter() - t0) * 1000.0)
    p50, p95 = np.percentile(latencies_ms, [50, 95])

    figures = {
        "load_s": load_s,
        "texts_per_s_median": statistics.median(rates),
        "query_ms_p50": float(p50),
        "query_ms_p95": float(p95),
    }
    print()
    print(f"embedding model load (sha256 + session): {load_s * 1000:.0f} ms")
    print(
        f"batch {BATCH_SIZE}, {N_TEXTS} texts, {ROUNDS} rounds: "
        + ", ".join(f"{r:.0f}" for r in rates)
        + f" texts/s; median {figures['texts_per_s_median']:.0f} texts/s"
    )
    print(
        f"single query, {N_QUERIES} queries: p50 {p50:.2f} ms (median), p95 {p95:.2f} ms"
    )
    return figures


def test_embedding_benchmark() -> None:
    run_benchmark()


if __name__ == "__main__":
    run_benchmark()
