"""Evaluating the Lineage tab at a past time (run with ``make bench``; figures are printed).

At a time before the newest receipt the tab judges as of that time: the runs the time cuts
through are read again up to it (``run_reads.as_of``, on the worker) and the timeline is laid
out from that table. Measured on the same 100,000 stored runs as ``bench_lineage_ui``
(its cached workspace), at five times across the span, side by side with judging the
whole table at the newest time (the plain path, no cut): medians of three.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest
from bench_lineage_ui import RUNS, report, stored  # noqa: F401  (the cached workspace fixture)

from memorydesk.lineage.run_reads import as_of, load_runs
from memorydesk.lineage.timeline import build
from memorydesk.store import open_workspace

DAY_US = 86_400_000_000


@pytest.mark.slow
def test_bench_evaluate_at_a_past_time(stored: Path) -> None:  # noqa: F811
    with open_workspace(stored, read_only=True) as ws:
        table = load_runs(ws)
        lo, hi = table.span()
        plain = []
        for _ in range(3):
            t = time.perf_counter()
            build(table, hi, DAY_US, grid=False)
            plain.append((time.perf_counter() - t) * 1000)
        report("judge + lay out at the newest time", plain, "ms")
        for share in (0.1, 0.3, 0.5, 0.7, 0.9):
            now = int(lo + (hi - lo) * share)
            cut_ms, lay_ms, cut_runs = [], [], 0
            for _ in range(3):
                t = time.perf_counter()
                cut = as_of(ws, table, now)
                cut_ms.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                build(cut, now, DAY_US, grid=False, source=table)
                lay_ms.append((time.perf_counter() - t) * 1000)
                cut_runs = int(((table.start <= now) & (table.end > now)).sum())
            print(f"[lineage-as-of] at {share:.0%} of the span: {len(cut):,} of {RUNS:,} runs drawn, "
                  f"{cut_runs:,} read again; cut median {statistics.median(cut_ms):.0f} ms, "
                  f"lay out median {statistics.median(lay_ms):.0f} ms")
