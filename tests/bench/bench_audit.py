"""Recall-audit benchmark: 10,000 sampled facts of a 100,000-fact workspace (goal: under
5 minutes on the 2-core development machine), and the what-ifs' cost.

Run with ``make bench`` or ``pytest tests/bench/bench_audit.py -s``. The workspace is
``MEMORYDESK_BENCH_AUDIT_WS`` when set (a demo built with ``memory-desk demo create PATH
--facts 100000``), else one is built here first (several minutes). Figures are printed,
never asserted.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from memorydesk.search import audit
from memorydesk.search.cache import clear_caches
from memorydesk.store import open_workspace

SAMPLE = int(os.environ.get("MEMORYDESK_BENCH_AUDIT_SAMPLE", "10000"))


def _workspace(tmp: str) -> Path:
    given = os.environ.get("MEMORYDESK_BENCH_AUDIT_WS")
    if given:
        return Path(given)
    from memorydesk.demo.builder import build_demo

    path = Path(tmp) / "audit-100k.db"
    build_demo(path, facts=100_000, seed=7, embed=2000)
    return path


def test_audit_10k_of_100k() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = _workspace(tmp)
        with open_workspace(path, read_only=True) as ws:
            clear_caches(ws)
            t0 = time.perf_counter()
            facts = audit.sample_facts(ws, SAMPLE, seed=1)
            t1 = time.perf_counter()
            items = audit.audit_facts(ws, facts)
            t2 = time.perf_counter()
            queries = len({i.query for i in items})
            summary = audit.summarize(items, time.time())
            print(f"\naudit of {len(items):,} sampled facts ({queries:,} distinct topics) of {path.name}: "
                  f"sample {t1 - t0:.1f} s, searches {t2 - t1:.1f} s "
                  f"({1000 * (t2 - t1) / max(queries, 1):.1f} ms a query); recall@10 "
                  f"{summary['recall_at_10']}, stages {summary['stages']}")
            small = facts[:1000]
            t3 = time.perf_counter()
            audit.audit_facts(ws, small, what_if=audit.variants(["no-decay", "no-mmr"]))
            t4 = time.perf_counter()
            print(f"1,000 facts with two what-ifs: {t4 - t3:.1f} s")
