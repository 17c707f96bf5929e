"""Recall-audit benchmark: the audit per fact on 20,000- and 100,000-fact demos (every fact
embedded), after search's copies are built, side by side in one run with a brute-force
baseline per topic (a plain script: the product's FTS5 query and a numpy cosine scan of
every embedding, the query embedded by the same model), their ratio, and 10,000 sampled
facts of the 100,000 (goals: ≤ 30 ms a fact at 100,000, no more than ×1.3 the per-fact time
at 20,000, 10,000 facts in ≤ 5 minutes). Figures are printed (medians, with the load
average), never asserted.

Run with ``pytest tests/bench/bench_audit.py -s``. The workspaces are built once and kept
(``bench_files.cached``; the 100,000 is ``review_corpus.demo_100k``); ``MEMORYDESK_BENCH_AUDIT_WS20``
/ ``…_WS100`` name others. ``MEMORYDESK_BENCH_AUDIT_SIZES`` (default ``20000,100000``) picks the demos;
``MEMORYDESK_BENCH_AUDIT_SAMPLE`` (default 600) facts give the per-fact
figures; ``MEMORYDESK_BENCH_AUDIT_FULL`` (default 10000; 0: skip) facts are audited in one run.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import numpy as np
import pytest
import sqlean
from bench_files import cached

from memorydesk.core.product.fts_query import scoped_match
from memorydesk.embedding.embedder import BLOB_BYTES, get_embedder
from memorydesk.search import audit
from memorydesk.search.copies import follow
from memorydesk.store import open_workspace

SAMPLE = int(os.environ.get("MEMORYDESK_BENCH_AUDIT_SAMPLE", "600"))
FULL = int(os.environ.get("MEMORYDESK_BENCH_AUDIT_FULL", "10000"))
SIZES = [int(n) for n in os.environ.get("MEMORYDESK_BENCH_AUDIT_SIZES", "20000,100000").split(",")]
CHUNK = 100  # facts per timed run of the audit (a median over runs)
BASELINE_TOPICS = 200


def _demo(facts: int) -> Path:
    given = os.environ.get(f"MEMORYDESK_BENCH_AUDIT_WS{facts // 1000}")
    if given:
        return Path(given)
    if facts == 100_000:
        from review_corpus import demo_100k

        return demo_100k()
    from memorydesk.demo.builder import build_demo

    return cached(f"audit-demo-{facts}-r1.db", lambda p: build_demo(p, facts=facts, seed=7, embed=facts),
                  f"a {facts:,}-fact demo, every fact embedded")


def _load() -> str:
    return ", ".join(f"{v:.2f}" for v in os.getloadavg())


def _audit_per_fact(path: Path) -> tuple[float, int, dict]:
    """The audit's median ms a fact over runs of ``CHUNK`` sampled facts, copies built (``info["cpu"]``:
    the median CPU ms a fact of the process, every thread, model and BLAS included)."""
    with open_workspace(path, read_only=True) as ws:
        assert follow.wait_ready(ws) is not None, "search's copies were not built"
        facts = audit.sample_facts(ws, SAMPLE, seed=1)
        audit.audit_facts(ws, facts[:10])  # the model loaded, the fast path's self-check done
        per_fact, cpu = [], []
        stages: dict[str, int] = {}
        for start in range(0, len(facts), CHUNK):
            part = facts[start : start + CHUNK]
            t0, c0 = time.perf_counter(), time.process_time()
            items = audit.audit_facts(ws, part)
            per_fact.append(1000 * (time.perf_counter() - t0) / len(part))
            cpu.append(1000 * (time.process_time() - c0) / len(part))
            for item in items:
                stages[item.loss.stage] = stages.get(item.loss.stage, 0) + 1
        topics = [f.topic for f in facts]
        return statistics.median(per_fact), len(facts), {"stages": stages, "topics": topics,
                                                         "cpu": statistics.median(cpu),
                                                         "workspace": ws.workspace_id, "fts": ws.layout.fts,
                                                         "facts": ws.layout.facts.name}


def _baseline_per_topic(path: Path, info: dict) -> float:
    """A plain script's brute force per topic: the product's FTS5 query (top 20, active facts)
    and the 30 nearest by cosine over every stored embedding (loaded once), query embedded."""
    raw = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        fts, facts, workspace_id = info["fts"], info["facts"], info["workspace"]
        rows = raw.execute(f"SELECT id, embedding FROM {facts} WHERE length(embedding) = ?", (BLOB_BYTES,)).fetchall()
        ids = [r[0] for r in rows]
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1)
        embedder = get_embedder()
        embedder.embed_one("warm up")
        times = []
        for topic in info["topics"][:BASELINE_TOPICS]:
            t0 = time.perf_counter()
            match = scoped_match(topic, workspace_id)
            if match is not None:
                raw.execute(f"SELECT f.id, {fts}.rank FROM {fts} JOIN {facts} f ON f.rowid = {fts}.rowid "
                            f"WHERE {fts} MATCH ? AND f.workspace_id = ? AND f.superseded_by IS NULL "
                            f"ORDER BY {fts}.rank LIMIT 20", (match, workspace_id)).fetchall()
            q = embedder.embed_one(topic)
            sims = matrix @ q
            best = np.argpartition(-sims, 30)[:30]
            _ = [ids[i] for i in best[np.argsort(-sims[best])]]
            times.append(1000 * (time.perf_counter() - t0))
        return statistics.median(times)
    finally:
        raw.close()


def _full_run(path: Path, n: int) -> tuple[float, int]:
    with open_workspace(path, read_only=True) as ws:
        assert follow.wait_ready(ws) is not None
        facts = audit.sample_facts(ws, n, seed=2)
        t0 = time.perf_counter()
        items = audit.audit_facts(ws, facts)
        return time.perf_counter() - t0, len(items)


@pytest.mark.timeout(7200)  # the 10,000-fact run alone takes minutes
def test_audit_per_fact_at_20k_and_100k_beside_brute_force() -> None:
    print(f"\nrecall audit, load average at start {_load()} (2 cores)")
    figures = {}
    for size in SIZES:
        path = _demo(size)
        ms, n, info = _audit_per_fact(path)
        base = _baseline_per_topic(path, info)
        figures[size] = ms
        print(f"{size:>7,} facts: audit {ms:6.1f} ms a fact (CPU {info['cpu']:.1f} ms; median of {n // CHUNK} runs "
              f"of {CHUNK}), "
              f"brute force {base:6.1f} ms a topic, audit/brute force ×{ms / base:.2f}; "
              f"stages {info['stages']}; load {_load()}")
    if 20_000 in figures and 100_000 in figures:
        print(f"per fact at 100,000 / at 20,000: ×{figures[100_000] / figures[20_000]:.2f}")
    if FULL and 100_000 in figures:
        seconds, n = _full_run(_demo(100_000), FULL)
        print(f"{n:,} sampled facts of 100,000: {seconds:.0f} s ({1000 * seconds / n:.1f} ms a fact); "
              f"load {_load()}")
    elif 100_000 in figures:
        print(f"10,000 sampled facts of 100,000, from the per-fact median: ≈ {10 * figures[100_000]:.0f} s")
