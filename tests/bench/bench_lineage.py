"""How fast lineage receipts are read and classified (run with ``make bench``, ``-s``).

Generates 1,000,000 receipts in 100,000 runs (10 per run, runs interleaved; mostly
complete lineages, some broken the article's ways), writes them as JSON Lines, then
times reading the file (``read_jsonl``) and classifying every run (``classify``)
a few times and prints the medians, plus one run of the command itself
(``memory-desk lineage classify --json``, interpreter start and output included).
Prints figures only; the target (≤ 10 s on a 2-core machine) is checked by eye.
``MEMDESK_BENCH_RUNS`` and ``MEMDESK_BENCH_REPEAT`` scale it down for a quick look.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from fixtures.receipts import NOW, NOW_TEXT, synthetic_lines
from memorydesk.core.health.scalar import classify
from memorydesk.lineage.jsonl import read_jsonl

RUNS = int(os.environ.get("MEMDESK_BENCH_RUNS", "100000"))
PER_RUN = 10
REPEAT = int(os.environ.get("MEMDESK_BENCH_REPEAT", "3"))


@pytest.fixture(scope="module")
def receipts_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lineage") / "receipts.jsonl"
    started = time.perf_counter()
    with open(path, "w", encoding="utf-8") as out:
        for line in synthetic_lines(RUNS, PER_RUN):
            out.write(line)
            out.write("\n")
    size = path.stat().st_size / 1e6
    print(f"\n[lineage] generated {RUNS * PER_RUN:,} receipts in {RUNS:,} runs, {size:.0f} MB, "
          f"in {time.perf_counter() - started:.1f} s")
    return path


@pytest.mark.slow
def test_bench_read_and_classify(receipts_file: Path) -> None:
    parse_times, classify_times, totals = [], [], []
    states: Counter[str] = Counter()
    for _ in range(REPEAT):
        started = time.perf_counter()
        receipts = read_jsonl(receipts_file)
        parsed = time.perf_counter()
        results = classify(receipts, now=NOW)
        done = time.perf_counter()
        parse_times.append(parsed - started)
        classify_times.append(done - parsed)
        totals.append(done - started)
        assert len(receipts) == RUNS * PER_RUN and len(results) == RUNS
        states = Counter(str(r.state) for r in results)
        del receipts, results
    print(f"[lineage] read_jsonl  median {statistics.median(parse_times):6.2f} s  (runs: "
          + ", ".join(f"{t:.2f}" for t in parse_times) + ")")
    print(f"[lineage] classify    median {statistics.median(classify_times):6.2f} s  (runs: "
          + ", ".join(f"{t:.2f}" for t in classify_times) + ")")
    print(f"[lineage] both        median {statistics.median(totals):6.2f} s")
    print("[lineage] states: " + ", ".join(f"{state} {count:,}" for state, count in states.most_common()))


PLAIN = """
import json, sys
runs = {}
with open(sys.argv[1], "rb") as stream:
    for line in stream:
        if line.strip():
            row = json.loads(line)
            runs.setdefault(row["runId"], []).append(row)
print(len(runs))
"""


@pytest.mark.slow
def test_bench_command(receipts_file: Path) -> None:
    """The whole command, and beside it in the same run a plain script as its own process:
    ``json.loads`` per line and a group-by runId (goal ≤ ×1.2)."""
    desk, plain = [], []
    for _ in range(REPEAT):
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "memorydesk", "lineage", "classify", str(receipts_file),
             "--now", NOW_TEXT, "--json"],
            capture_output=True, text=True, timeout=600)
        desk.append(time.perf_counter() - started)
        assert result.returncode in (0, 1), result.stderr
        started = time.perf_counter()
        script = subprocess.run([sys.executable, "-c", PLAIN, str(receipts_file)], capture_output=True, text=True,
                                timeout=600, check=True)
        plain.append(time.perf_counter() - started)
        assert int(script.stdout) == RUNS
    print(f"[lineage] memory-desk lineage classify --json: median {statistics.median(desk):.2f} s, "
          f"{len(result.stdout) / 1e6:.1f} MB of output, exit {result.returncode}")
    print(f"[lineage] plain json.loads + group-by runId, its own process: median {statistics.median(plain):.2f} s; "
          f"ratio ×{statistics.median(desk) / statistics.median(plain):.2f} (goal ≤ ×1.2); "
          f"load average {os.getloadavg()[0]:.1f}")


@pytest.mark.slow
def test_bench_ingest(receipts_file: Path, tmp_path: Path) -> None:
    """Receipts stored in a workspace, all in one transaction (goal ≥ 50,000 receipts/s)."""
    from memorydesk.lineage.receipt_store import ingest
    from memorydesk.store import open_workspace

    receipts = read_jsonl(receipts_file)
    rates, again = [], []
    for attempt in range(REPEAT):
        with open_workspace(tmp_path / f"ingest-{attempt}.db", create=True) as ws:
            started = time.perf_counter()
            stored = ingest(ws, receipts).stored
            elapsed = time.perf_counter() - started
            started = time.perf_counter()
            skipped = ingest(ws, receipts).skipped  # the same file again: every receipt already stored
            again.append(len(receipts) / (time.perf_counter() - started))
        assert stored == skipped == len(receipts)
        rates.append(stored / elapsed)
    print(f"[lineage] ingest      median {statistics.median(rates):,.0f} receipts/s  (runs: "
          + ", ".join(f"{r:,.0f}" for r in rates) + f"; {len(receipts):,} receipts each)")
    print(f"[lineage] re-ingest   median {statistics.median(again):,.0f} receipts/s  (all skipped as already "
          "stored; runs: " + ", ".join(f"{r:,.0f}" for r in again) + ")")
