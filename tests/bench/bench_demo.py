"""Demo-builder benchmark: how fast ``memory-desk demo create`` writes facts.

Run with ``pytest tests/bench/bench_demo.py -s`` (or ``python`` on this file). Builds
10,000 and 100,000-fact workspaces on the bulk path (embeddings off, so the figure
is the memory service's write rate, not the model's) and prints facts/s. The
1,000,000-fact build is optional: set ``MEMORYDESK_BENCH_DEMO_1M=1``. A 2,000-fact
build on the service path with embeddings (what ``make run`` does) is timed too.
Nothing is asserted about time: machines differ.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import pytest

from memorydesk.demo.builder import build_demo
from memorydesk.store import integrity, open_workspace

NOW = 1_767_225_600


def _one(size: int, *, embed: int = 0, check: bool = True) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"demo-{size}.db"
        t0 = time.perf_counter()
        summary = build_demo(path, facts=size, seed=7, now=NOW, embed=embed)
        seconds = time.perf_counter() - t0
        mb = path.stat().st_size / 1e6
        problems = None
        if check:
            with open_workspace(path, read_only=True) as ws:
                problems = len(integrity.check(ws).problems)
    c = summary.counts
    print(f"{size:>9,} requested: {c['facts']:,} facts ({summary.path_used} path, {summary.embedded:,} embedded) in "
          f"{seconds:.1f} s = {c['facts'] / seconds:,.0f} facts/s; {c['edges']:,} edges, {c['conflicts']:,} "
          f"conflicts, {mb:.0f} MB" + ("" if problems is None else f", check: {problems} problems"))
    sys.stdout.flush()
    return c["facts"] / seconds


def run_benchmark() -> dict[str, float]:
    print()
    figures = {"2k_service_embedded": _one(2_000, embed=2_000), "10k": _one(10_000), "100k": _one(100_000)}
    if os.environ.get("MEMORYDESK_BENCH_DEMO_1M") == "1":
        figures["1m"] = _one(1_000_000, check=False)
    return figures


@pytest.mark.slow
def test_demo_benchmark() -> None:
    run_benchmark()


if __name__ == "__main__":
    run_benchmark()
