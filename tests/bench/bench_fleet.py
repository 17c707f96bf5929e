"""The Lineage tab on a fleet's receipts in ClickHouse, at scale (run with ``make bench``, ``-s``).

Ten million receipts (1,000,000 runs, 2,000 scopes, thirty days) are written into the Collector
exporter's ``otel_traces`` table (its own DDL) in a chDB data directory, as the exporter writes the
desk's spans (``fixtures.clickhouse_traces.fleet_sql``). Then, each ``REPEAT`` times, medians printed:

- *first frame*: what the tab reads and lays out before it draws — the source's extent, the runs
  of the time in view (the last hour, each with its receipts an hour either side), judged by
  the one classifier, the engine's counts for the window, and the timeline built from them;
- *counts by state*: the window's runs' states counted at the evaluated time (the legend), and the
  engine's runs per lane and per sourceVersion for the whole thirty days;
- *a run's detail*: one run's receipts by its id, explained;
- the desk's memory: the process's resident size after the reads, less before;
- beside them, in the same run: a plain ``GROUP BY`` of the same table (receipts per status over
  every row), what any query on it costs at least.

``MEMDESK_BENCH_FLEET_RUNS`` scales it down; ``MEMDESK_BENCH_FLEET_DIR`` keeps the data directory
between runs (it is filled only when empty).
"""

from __future__ import annotations

import os
import resource
import statistics
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from fixtures.clickhouse_traces import DDL, ChdbTarget, fleet_sql
from memorydesk.core.health.arrays import from_us
from memorydesk.lineage import timeline
from memorydesk.lineage.fleet import read as fleet
from memorydesk.lineage.fleet.source import parse_source
from memorydesk.lineage.receipt_views import FleetReceipts

RUNS = int(os.environ.get("MEMDESK_BENCH_FLEET_RUNS", "1000000"))
REPEAT = int(os.environ.get("MEMDESK_BENCH_REPEAT", "3"))
HOUR_US = 3_600_000_000


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.fixture(scope="module")
def source_name(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = Path(os.environ.get("MEMDESK_BENCH_FLEET_DIR") or tmp_path_factory.mktemp("fleet"))
    folder.mkdir(parents=True, exist_ok=True)
    target = ChdbTarget(folder)
    target.database = "otel"
    marker = folder / f"filled-{RUNS}"
    if not marker.exists():
        started = time.perf_counter()
        table = "`otel`.`otel_traces`"
        target.run("DROP DATABASE IF EXISTS otel", "CREATE DATABASE otel", DDL.format(table=table),
                   fleet_sql(table, RUNS), f"OPTIMIZE TABLE {table} FINAL")
        marker.write_text("")
        print(f"\n[fleet] wrote {RUNS * 10:,} receipts of {RUNS:,} runs in {time.perf_counter() - started:.0f} s")
    return target.name


def median(times: list[float]) -> str:
    return f"{statistics.median(times) * 1000:,.0f} ms"


@pytest.mark.slow
def test_bench_fleet_tab(source_name: str) -> None:
    print(f"\n[fleet] load {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1 and 5 min), {RUNS * 10:,} receipts")
    source = parse_source(source_name)
    before = rss_mb()
    plain, first, states, engine_counts, detail, grown_first = [], [], [], [], [], []
    for _ in range(REPEAT):
        started = time.perf_counter()
        with source.open() as engine:
            rows = engine.arrow(f"SELECT SpanAttributes['memory.lineage.status'] AS s, count() AS n "
                                f"FROM {source.qualified} GROUP BY s").to_pylist()
        plain.append(time.perf_counter() - started)
        assert sum(r["n"] for r in rows) == RUNS * 10

        view = FleetReceipts(source_name)  # what the tab holds: a connection opened at its first read
        started = time.perf_counter()
        table = view.load()
        now = view.window.until_us
        tl = timeline.build(table, now, 24 * HOUR_US, timeline.Filters(), grid=False)
        first.append(time.perf_counter() - started)
        grown_first.append(rss_mb() - before)

        started = time.perf_counter()
        counted = np.bincount(table.states_at(now, 24 * HOUR_US), minlength=10)
        states.append(time.perf_counter() - started)
        assert counted.sum() == len(table) and tl.runs_shown == len(table)

        run_id = table.run_ids[len(table) // 2]
        started = time.perf_counter()
        explained = view.detail(None, run_id, from_us(now), timedelta(hours=24))
        detail.append(time.perf_counter() - started)
        assert explained is not None and len(explained.receipts) == 10

        view.close()
        started = time.perf_counter()
        with replace(source, query_seconds=600).open() as engine:  # a figure, past the desk's 30 s limit
            whole = fleet.counts(engine)
        engine_counts.append(time.perf_counter() - started)
        assert sum(runs for runs, _ in whole.sources.values()) >= RUNS
    grown = rss_mb() - before
    print(f"[fleet] plain GROUP BY of the table (every row)        {median(plain)}")
    print(f"[fleet] first frame: {len(table):,} runs of the last hour read, judged, laid out  {median(first)}")
    print(f"[fleet] counts by state of the runs in view            {median(states)}; by lane and sourceVersion "
          f"(the engine, the window): within the first frame")
    print(f"[fleet] the engine's counts per lane and sourceVersion over all 30 days  {median(engine_counts)} "
          f"({len(whole.lanes):,} lanes, {len(whole.sources)} sourceVersions)")
    print(f"[fleet] a run's detail (by runId)                      {median(detail)}")
    print(f"[fleet] memory: the process grew by {statistics.median(grown_first):,.0f} MB after the first frame "
          f"(chDB's engine runs in it), {grown:,.0f} MB after every read (resident {rss_mb():,.0f} MB)")
