"""Search and preamble latency on large synthetic workspaces, with the plain baseline.

Run with ``pytest tests/bench/bench_search.py -s`` (or ``python`` on this file). Prints
p50/p95 in ms and asserts nothing about time. Settings (environment):

- ``MEMDESK_BENCH_SIZES``: comma-separated fact counts (default ``10000,100000``;
  add ``1000000`` for the large run, which takes about ten minutes to build once);
- ``MEMDESK_BENCH_QUERIES``: queries (and preamble tasks) per mode, default 100;
- ``MEMDESK_BENCH_WARM_UP``: queries of the warm-up session before the steady-state figures,
  default 300.

The workspaces and their text generator are in ``search_corpus``; the baseline, measured
in the same run, in ``search_timing``. In order, per size: the first searches on the
freshly opened file (search's copies are being built on their thread meanwhile, so these
run the product's SQL), how long the build took, keyword with every term new to search's
term cache, then, after a warm-up session, each mode on its own fresh queries (the steady
state of a desk in use), the preamble on fresh tasks and with every task word new, the
baseline, and what search keeps in memory. What happens while another process writes
the file is in ``bench_search_live``.

Goals (issue 17): keyword p95 ≤ 30 ms at 1M with every term new; hybrid p95 ≤ 150 ms at
100k including the query embedding; preamble p95 ≤ 20 ms at 1M, tasks with never-seen
words included.
"""

from __future__ import annotations

import os
import resource
import time

import numpy as np
import pytest
from search_corpus import AGENT, N_QUERIES, SIZES, TextModel, workspace_of
from search_timing import BASELINE, BASELINE_FTS, Baseline, embedder, report, timed

from memorydesk.search.agent import search
from memorydesk.search.copies import follow
from memorydesk.search.preamble import build_preamble
from memorydesk.store import open_workspace

WARM_UP = int(os.environ.get("MEMDESK_BENCH_WARM_UP", "300"))
AGAINST = {
    "keyword, first searches (copies building)": BASELINE_FTS, "keyword, every term new": BASELINE_FTS,
    "keyword": BASELINE_FTS, "preamble": BASELINE_FTS, "preamble, every task word new": BASELINE_FTS,
    "semantic": BASELINE, "hybrid": BASELINE,
}


def run_size(n: int) -> tuple[dict[str, tuple[float, float]], dict[str, object]]:
    path = workspace_of(n)
    embed = embedder()
    model = TextModel(11)
    qrng = np.random.default_rng(5)
    fresh = {name: [model.query(qrng) for _ in range(N_QUERIES)]
             for name in ("session", "new terms", "keyword", "semantic", "hybrid")}
    tasks = [model.task(qrng) for _ in range(N_QUERIES)]
    new_tasks = [model.task(qrng) for _ in range(N_QUERIES)]
    warm_up = [model.query(qrng) for _ in range(WARM_UP)]
    figures: dict[str, tuple[float, float]] = {}
    facts: dict[str, object] = {}
    follow.forget()
    with open_workspace(path, read_only=True) as ws:
        started = time.perf_counter()
        follow.configure(background=True)
        search(ws, "warm the interpreter", mode="keyword")  # 1st search: nothing is built for a one-shot
        figures["keyword, first searches (copies building)"] = timed(
            lambda q: search(ws, q, mode="keyword"), fresh["session"][:20], warm=False)
        state = follow.wait_ready(ws)
        facts["copies built (s, off the caller's thread)"] = round(time.perf_counter() - started, 1)
        if state is None:
            print("  search's copies were not built: figures below are the product's SQL")

        def keyword_new(q: str) -> None:
            if state is not None:
                state.forget_terms()  # every term of the query new to the term cache
            search(ws, q, mode="keyword")

        figures["keyword, every term new"] = timed(keyword_new, fresh["new terms"])
        for q in warm_up:
            search(ws, q, mode="hybrid", embedder=embed)
        for _ in range(WARM_UP // 3):
            build_preamble(ws, AGENT, model.task(qrng))
        for mode in ("keyword", "semantic", "hybrid"):
            figures[mode] = timed(lambda q, m=mode: search(ws, q, mode=m, embedder=embed), fresh[mode])
        figures["preamble"] = timed(lambda t: build_preamble(ws, AGENT, t), tasks)

        def preamble_new(t: str) -> None:
            if state is not None:
                state.forget_terms()
            build_preamble(ws, AGENT, t)

        figures["preamble, every task word new"] = timed(preamble_new, new_tasks)
        figures["query embedding"] = timed(lambda q: embed.embed_one(q), fresh["hybrid"])
        report_ = follow.cache_report()
        facts["cache (MB)"] = {k: round(v / 2**20, 1) for k, v in report_["parts"].items()}
        facts["cache total / bound (MB)"] = (round(report_["total"] / 2**20), round(report_["max_bytes"] / 2**20))
        facts["peak RSS (MB)"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        base = Baseline(ws, embed)
        try:
            figures[BASELINE_FTS] = timed(base.fts, fresh["keyword"])
            figures[BASELINE] = timed(base.full, fresh["hybrid"])
        finally:
            base.close()
    follow.forget()
    follow.configure(background=True)
    return figures, facts


def _print(n: int, figures: dict[str, tuple[float, float]], facts: dict[str, object]) -> None:
    report(f"{n:,} facts, {N_QUERIES} queries each", figures, AGAINST)
    for name, value in facts.items():
        print(f"  {name}: {value}")


@pytest.mark.slow
def test_bench_search() -> None:
    for n in SIZES:
        _print(n, *run_size(n))


if __name__ == "__main__":
    for size in SIZES:
        _print(size, *run_size(size))
