"""The Lineage tab on a fleet's receipts in ClickHouse, at scale (run with ``make bench``, ``-s``).

Ten million receipts (1,000,000 runs, 2,000 scopes, thirty days) are written into the Collector
exporter's ``otel_traces`` table (its own DDL) in a chDB data directory, as the exporter writes the
desk's spans (``fixtures.clickhouse_traces.fleet_sql``). Then, each ``REPEAT`` times, medians printed:

- *first frame*: what the tab reads and lays out before it draws — the source's extent, the runs
  of the time in view (the last hour, each with its receipts an hour either side), judged by
  the one classifier, and the timeline built from them;
- *counts by state*: ClickHouse's runs per state, lane and sourceVersion of the window in view (what
  the tab asks for after the first frame), checked against the states the desk drew; and over the
  whole thirty days;
- *a run's detail*: one run's receipts by its id, explained — through the exporter's trace-id lookup
  table (the trace id the desk derives from the runId) and by the runId attribute (spans another
  system wrote);
- memory: the process's resident size before chDB is imported, once a chDB session is open, and
  after the desk's reads;
- beside them, in the same run: a plain ``GROUP BY`` of the same table (receipts per status over
  every row), what any query on it costs at least.

``MEMDESK_BENCH_FLEET_RUNS`` scales it down; ``MEMDESK_BENCH_FLEET_DIR`` keeps the data directory
between runs (it is filled only when empty).
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import time
import tracemalloc
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from fixtures.clickhouse_traces import ChdbTarget, fleet_sql, table_ddl
from memorydesk.core.receipt_codes import from_us
from memorydesk.lineage import timeline
from memorydesk.lineage.fleet import read as fleet
from memorydesk.lineage.fleet.source import parse_source
from memorydesk.lineage.receipt_views import FleetReceipts

RUNS = int(os.environ.get("MEMDESK_BENCH_FLEET_RUNS", "1000000"))
REPEAT = int(os.environ.get("MEMDESK_BENCH_REPEAT", "3"))
HOUR_US = 3_600_000_000
DAY_US = 24 * HOUR_US


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
        target.run("DROP DATABASE IF EXISTS otel", "CREATE DATABASE otel", *table_ddl("otel"),
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
    start = rss_mb()
    before = "written by chDB in this run" if "chdb" in sys.modules else "chDB not imported yet"
    with source.open() as engine:
        engine.arrow("SELECT 1")
    with_chdb = rss_mb()
    plain, first, states, engine_days, by_trace, by_attribute, grown_first = [], [], [], [], [], [], []
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
        tl = timeline.build(table, now, DAY_US, timeline.Filters(), grid=False)
        first.append(time.perf_counter() - started)
        grown_first.append(rss_mb() - with_chdb)
        assert tl.runs_shown == len(table)

        started = time.perf_counter()  # what the tab asks for once the first frame is drawn
        counted = view.states(None, now, DAY_US)
        states.append(time.perf_counter() - started)
        drawn = np.bincount(table.states_at(now, DAY_US), minlength=10)
        assert {s.rule: n for s, n in counted.states.items()} == {r: int(n) for r, n in enumerate(drawn) if n}

        run_id = table.run_ids[len(table) // 2]
        engine = view.engine()
        assert engine.lookup
        started = time.perf_counter()
        explained = view.detail(None, run_id, from_us(now), timedelta(hours=24))
        by_trace.append(time.perf_counter() - started)
        assert explained is not None and len(explained.receipts) == 10
        engine.lookup = False  # spans another system wrote, with trace ids of its own: by the runId attribute
        started = time.perf_counter()
        explained = view.detail(None, run_id, from_us(now), timedelta(hours=24))
        by_attribute.append(time.perf_counter() - started)
        assert explained is not None and len(explained.receipts) == 10
        view.close()
    grown = rss_mb() - with_chdb

    tracemalloc.start()  # what the desk itself holds for the first frame (Python objects and numpy arrays)
    view = FleetReceipts(source_name)
    table = view.load()
    tl = timeline.build(table, view.window.until_us, DAY_US, timeline.Filters(), grid=False)
    held = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    view.close()

    started = time.perf_counter()  # once: a minute or more
    with replace(source, query_seconds=900).open() as engine:  # a figure, past the desk's 30 s limit
        whole = fleet.state_counts(engine, now - 31 * DAY_US, now, now, DAY_US)
    engine_days.append(time.perf_counter() - started)
    assert sum(whole.states.values()) == RUNS
    print(f"[fleet] plain GROUP BY of the table (every row)        {median(plain)}")
    print(f"[fleet] first frame: {len(table):,} runs of the last hour read, judged, laid out  {median(first)}")
    print(f"[fleet] ClickHouse's counts per state, lane and sourceVersion of those runs (after the first frame)  "
          f"{median(states)}")
    print(f"[fleet] ClickHouse's counts per state over all 30 days ({sum(whole.states.values()):,} runs), once  "
          f"{median(engine_days)}")
    print(f"[fleet] a run's detail through the trace-id lookup      {median(by_trace)}")
    print(f"[fleet] a run's detail by the runId attribute           {median(by_attribute)}")
    print(f"[fleet] memory: {start:,.0f} MB at first ({before}); chDB imported and a session open: "
          f"+{with_chdb - start:,.0f} MB; the desk's reads: +{statistics.median(grown_first):,.0f} MB after the "
          f"first frame, +{grown:,.0f} MB after every read (resident {rss_mb():,.0f} MB); of that the desk's own "
          f"objects for the first frame: {held:,.0f} MB (tracemalloc), the rest is chDB's")
