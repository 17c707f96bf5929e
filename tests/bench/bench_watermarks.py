"""What noticing another program's writes costs (``store.watermarks``), beside plain reads.

Run with ``pytest tests/bench/bench_watermarks.py -s`` (or ``python`` on this file); prints
figures, asserts nothing about time. On the ``search_corpus`` workspace of each size
(``MEMDESK_BENCH_SIZES``, default ``100000``), opened read-only, ``MEMDESK_BENCH_ROUNDS``
(default 7) rounds, the reads alternating within each round; medians in ms:

- ``marks``: every watched table's quick watermarks in one read (what the watcher reads
  each time ``data_version`` moves);
- ``fact rows' marks``: every fact row's mark (``fact_rows``: the pass the window's watcher
  and search's copies share, once per file version);
- baselines, plain ``sqlean`` on the same file: ``SELECT sum(created_at)`` (every row's
  pages read, nothing made in Python: the floor of any pass over the rows), and
  ``max(updated_at), max(last_recalled_at)`` (what the watcher read instead before the
  row marks: a scan that sees a row written in place only when it moves the newest time).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlean

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search_corpus import workspace_of  # noqa: E402

from memorydesk.store import open_workspace  # noqa: E402
from memorydesk.store.watermarks import fact_rows, marks  # noqa: E402

SIZES = [int(s) for s in os.environ.get("MEMDESK_BENCH_SIZES", "100000").split(",") if s]
ROUNDS = int(os.environ.get("MEMDESK_BENCH_ROUNDS", "7"))


def run_size(n: int) -> None:
    path = workspace_of(n)
    plain = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    with open_workspace(path, read_only=True) as ws:
        facts = ws.layout.facts.name

        def quick() -> None:
            with ws.read() as conn:
                marks(conn, ws.layout)

        def rows() -> None:
            with ws.read() as conn:
                fact_rows(ws, conn, None)  # no version: read every time, never the kept one

        reads: dict[str, Callable[[], object]] = {
            "marks (every table's, one read)": quick,
            "fact rows' marks (one pass)": rows,
            "plain: SELECT sum(created_at)": lambda: plain.execute(f"SELECT sum(created_at) FROM {facts}").fetchall(),
            "plain: max(updated_at), max(last_recalled_at)": lambda: plain.execute(
                f"SELECT max(updated_at), max(last_recalled_at) FROM {facts}").fetchall(),
        }
        for read in reads.values():
            read()  # the file's pages in the cache, as on a desk open for a while
        times: dict[str, list[float]] = {name: [] for name in reads}
        load = [os.getloadavg()[0]]
        for _ in range(ROUNDS):
            for name, read in reads.items():
                started = time.perf_counter()
                read()
                times[name].append((time.perf_counter() - started) * 1000)
            load.append(os.getloadavg()[0])
    plain.close()
    print(f"\n{n:,} facts, {ROUNDS} rounds, load average {min(load):.1f}–{max(load):.1f} (median ms, range):")
    for name, samples in times.items():
        print(f"  {name:<48} {statistics.median(samples):8.1f}   ({min(samples):.1f}–{max(samples):.1f})")


@pytest.mark.slow
def test_bench_watermarks() -> None:
    for n in SIZES:
        run_size(n)


if __name__ == "__main__":
    for size in SIZES:
        run_size(size)
