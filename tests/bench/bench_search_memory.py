"""Issue 27 point 5: what search's memory report counts against what the process holds.

Run with ``pytest tests/bench/bench_search_memory.py -s`` (or ``python`` on this file); prints
figures, asserts nothing. On the cached ``search_corpus`` workspace (``MEMDESK_BENCH_SIZES``,
default ``100000``), in a process that has already searched (modules loaded, no copies yet):
the resident memory (``VmRSS``) before the copies are built and after (the build thread gone,
a few searches run), the report's total (``follow.cache_report``) beside that growth, and the
same with a ``search/cache_mb`` bound that leaves the vector copy out. Also the peak during the
build (``VmHWM``) and what Python and numpy hold (``tracemalloc``, started before the build).
"""

from __future__ import annotations

import gc
import os
import sys
import tracemalloc
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search_corpus import workspace_of  # noqa: E402

from memorydesk.search.agent import search  # noqa: E402
from memorydesk.search.copies import follow  # noqa: E402
from memorydesk.store import open_workspace  # noqa: E402

SIZES = [int(s) for s in os.environ.get("MEMDESK_BENCH_SIZES", "100000").split(",") if s]
MB = 2**20


def _status(key: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def measure(n: int, max_mb: float | None = None) -> dict[str, float]:
    path = workspace_of(n)
    follow.forget()
    follow.configure(background=True)
    if max_mb is not None:
        follow.configure(max_bytes=int(max_mb * MB))
    try:
        with open_workspace(path, read_only=True) as ws:
            for q in ("warm up", "deploy cache", "rollback plan"):
                search(ws, q, mode="keyword")  # the product's SQL: modules loaded, nothing built
            gc.collect()
            try:
                with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
                    refs.write("5")  # the peak (VmHWM) counts from here
            except OSError:
                pass
            before = _status("VmRSS")
            tracemalloc.start(1)
            traced0 = tracemalloc.get_traced_memory()[0]
            follow.wait_ready(ws)
            for q in ("deploy cache", "rollback plan", "queue latency", "schema migration"):
                search(ws, q, mode="keyword")
            gc.collect()
            after, peak = _status("VmRSS"), _status("VmHWM")
            traced = tracemalloc.get_traced_memory()[0] - traced0
            tracemalloc.stop()
            report = follow.cache_report(ws)
        return {"rss": (after - before) / MB, "peak": (peak - before) / MB, "report": report["total"] / MB,
                "traced": traced / MB, "bound": report["max_bytes"] / MB,
                "parts": {k: round(v / MB, 1) for k, v in report["parts"].items()}}
    finally:
        follow.forget()
        follow.configure(max_bytes=follow.CacheSettings().max_bytes)


def run_size(n: int) -> None:
    print(f"\n{n:,} facts (load average {os.getloadavg()[0]:.1f})")
    full = measure(n)
    _print("default bound", full)
    small = full["report"] - full["parts"]["vector copy"] + 8
    _print(f"bound {small:.0f} MB (no vector copy)", measure(n, small))


def _print(label: str, m: dict) -> None:
    print(f"  {label}: the report counts {m['report']:.0f} MB {m['parts']}; the process grew by {m['rss']:.0f} MB "
          f"(×{m['rss'] / m['report']:.2f} the count; bound {m['bound']:.0f} MB); Python and numpy hold "
          f"{m['traced']:.0f} MB; peak during the build +{m['peak']:.0f} MB")


@pytest.mark.slow
def test_bench_search_memory() -> None:
    for n in SIZES:
        run_size(n)


if __name__ == "__main__":
    for size in SIZES:
        run_size(size)
