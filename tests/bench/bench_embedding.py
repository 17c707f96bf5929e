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


def session_options(rounds: int = 3) -> dict[tuple[bool, int], tuple[float, float, float]]:
    """Each session setting the desk could use (graph optimisations on/off × 1 or 2 threads),
    each in a fresh process so nothing is shared: median ms to build the session, to embed the
    first query, and per query after that (p50 of 30). A one-shot command pays the first two;
    the window pays mostly the third."""
    import subprocess
    import sys

    script = ("import sys, time, statistics\n"
              "from memorydesk.embedding.embedder import Embedder\n"
              "e = Embedder(optimize=sys.argv[1] == '1', threads=int(sys.argv[2]))\n"
              "t = time.perf_counter(); e.status(); build = time.perf_counter() - t\n"
              "t = time.perf_counter(); e.embed_one('when did we deploy the canary'); first = time.perf_counter() - t\n"
              "lat = []\n"
              "for i in range(30):\n"
              "    t = time.perf_counter(); e.embed_one(f'query number {i} about the release'); "
              "lat.append(time.perf_counter() - t)\n"
              "print(build * 1000, first * 1000, statistics.median(lat) * 1000)\n")
    figures: dict[tuple[bool, int], list[list[float]]] = {}
    for _ in range(rounds):
        for optimize in (True, False):
            for threads in (1, 2):
                out = subprocess.run([sys.executable, "-c", script, "1" if optimize else "0", str(threads)],
                                     capture_output=True, text=True, check=True).stdout.split()
                figures.setdefault((optimize, threads), []).append([float(x) for x in out])
    result = {key: tuple(statistics.median(r[i] for r in runs) for i in range(3)) for key, runs in figures.items()}
    print(f"\nsession options, medians of {rounds} fresh processes:")
    for (optimize, threads), (build, first, query) in result.items():
        print(f"  optimisations {'on ' if optimize else 'off'}, {threads} thread{'s' if threads > 1 else ' '}: "
              f"build {build:6.0f} ms, first query {first:6.1f} ms, then {query:5.1f} ms a query; "
              f"one-shot total {build + first:6.0f} ms")
    return result  # type: ignore[return-value]


def test_session_options() -> None:
    session_options()


if __name__ == "__main__":
    run_benchmark()
    session_options()
