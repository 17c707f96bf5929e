"""The review scan on a 100,000-fact demo (every fact embedded), against the goals of issue 25:
a full scan ≤ 60 s, a rescan after 100 changed facts ≤ 2 s. Figures printed, never asserted.

Run with ``pytest tests/bench/bench_review.py -s``. The demo is built once and cached
(``review_corpus.demo_100k``, through ``bench_files.cached``; about half an hour on the
2-core machine, most of it embedding). Printed side by side in the same run, the
plain-script baselines: reading every active fact's text and vector (the floor of any
scan), and every pair compared (numpy) on a 20,000-vector sample against the index.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from review_corpus import demo_100k

from memorydesk.browse.review import vectors
from memorydesk.browse.review.scan import Options, scan
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace

REPEATS = int(os.environ.get("MEMORYDESK_BENCH_REVIEW_REPEATS", "3"))
#: facts of the demo with real embeddings (all by default; 0 for the text kinds alone, built in minutes)
EMBED = int(os.environ.get("MEMORYDESK_BENCH_REVIEW_EMBED", "100000"))
#: another workspace to scan instead of the demo (copied first; e.g. a smaller demo while the big one builds)
FILE = os.environ.get("MEMORYDESK_BENCH_REVIEW_FILE", "")
#: 0: the full scans and their baselines alone (no rescans, no pair check)
RESCANS = os.environ.get("MEMORYDESK_BENCH_REVIEW_RESCAN", "1") != "0"
#: the plain script of issue 38: one compiled regex over the active facts' topic and content
PLAIN = re.compile(
    r"(?i)(AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|sk-[A-Za-z0-9]{20,}|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|xox[baprs]-[A-Za-z0-9-]{10,}|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}|\+?\d[\d -]{8,}\d"
    r"|ignore (all )?(previous|prior) instructions|disregard .{0,40}instructions|you are now|system prompt"
    r"|[\u200b-\u200f\u202a-\u202e\u2066-\u2069])")


def _floor(ws) -> float:
    started = time.perf_counter()
    with ws.read() as conn:
        rows = conn.exec_driver_sql(f"SELECT topic, content, embedding FROM {ws.layout.facts.name} "
                                    "WHERE superseded_by IS NULL").fetchall()
    blobs = b"".join(bytes(r[2]) for r in rows if r[2] is not None and len(r[2]) == 1536)
    np.frombuffer(blobs, dtype="<f4")
    return time.perf_counter() - started


def _plain_regex(ws) -> tuple[float, float, int]:
    """The plain baseline: every active fact read and searched with one compiled regex (wall, CPU, matches)."""
    t0, c0 = time.perf_counter(), time.process_time()
    found = []
    with ws.read() as conn:
        for fid, topic, content in conn.exec_driver_sql(
                f"SELECT id, topic, content FROM {ws.layout.facts.name} WHERE superseded_by IS NULL"):
            for field, text in (("topic", topic), ("content", content)):
                m = PLAIN.search(text or "")
                if m:
                    found.append({"item_id": fid, "field": field, "evidence": m.group(0)})
    json.dumps(found)
    return time.perf_counter() - t0, time.process_time() - c0, len(found)


def _pairs_against_exact(ws) -> None:
    with ws.read() as conn:
        v = vectors.active_vectors(ws, conn)
    _pairs_against_exact_matrix(v.rows())


def _synthetic_100k() -> np.ndarray:
    """100,000 synthetic unit vectors: 2,000 topics, every 50th row a near copy of the one before."""
    rng = np.random.default_rng(1)
    centres = rng.normal(size=(2000, 384)).astype(np.float32)
    m = centres[rng.integers(0, 2000, 100_000)] + rng.normal(scale=0.8, size=(100_000, 384)).astype(np.float32)
    m[1::50] = m[0::50] + rng.normal(scale=0.1, size=(2000, 384)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return m


def _synthetic_index_at_100k() -> None:
    """The close-pair stage alone on 100,000 synthetic vectors (2,000 topics, 2 % planted near copies):
    for a demo built without embeddings, which has none to pair."""
    m = _synthetic_100k()
    t0 = time.perf_counter()
    arrays = vectors.close_pair_arrays(m, 0.85)
    t1 = time.perf_counter()
    found = set(zip(arrays.i.tolist(), arrays.j.tolist(), strict=True))
    planted = {(i, i + 1) for i in range(0, 100_000, 50)}
    print(f"close pairs of 100,000 synthetic vectors through the index: {t1 - t0:.1f} s, {len(found):,} pairs, "
          f"{100 * len(planted & set(found)) / len(planted):.1f} % of the planted near copies")
    _pairs_against_exact_matrix(m)


def _pairs_against_exact_matrix(matrix: np.ndarray) -> None:
    sample = matrix[np.random.default_rng(0).choice(len(matrix), size=min(20_000, len(matrix)), replace=False)]
    t0 = time.perf_counter()
    every = vectors.pair_arrays_of(sample, np.arange(len(sample)), 0.85)
    t1 = time.perf_counter()
    index = vectors.close_pair_arrays(sample, 0.85)  # above EXACT_UP_TO: the index
    t2 = time.perf_counter()
    exact = set(zip(every.i.tolist(), every.j.tolist(), strict=True))
    ivf = set(zip(index.i.tolist(), index.j.tolist(), strict=True))
    found = len(ivf & exact) / max(len(exact), 1)
    print(f"close pairs (cosine ≥ 0.85) in a 20,000-vector sample: every pair {t1 - t0:.1f} s, the index "
          f"{t2 - t1:.1f} s, which finds {100 * found:.1f} % of the {len(exact):,} pairs")


def test_full_scan_and_rescan_of_100k() -> None:
    source = Path(FILE) if FILE else demo_100k(EMBED)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "review.db"
        for side in ("", "-wal", "-shm"):
            if Path(f"{source}{side}").exists():
                shutil.copyfile(f"{source}{side}", f"{path}{side}")
        with open_workspace(path) as ws:
            floors = [_floor(ws) for _ in range(REPEATS)]
            fulls, cpus, reports, plains = [], [], [], []
            print(f"\nload average {', '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)")
            for _ in range(REPEATS):  # the scan and the plain regex in turn, so the machine's load hits both
                plains.append(_plain_regex(ws))
                t0, c0 = time.perf_counter(), time.process_time()
                reports.append(scan(ws, Options()))
                fulls.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
            report = reports[-1]
            print(f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)")
            plain_wall, plain_cpu = statistics.median(p[0] for p in plains), statistics.median(p[1] for p in plains)
            ratio_wall, ratio_cpu = statistics.median(fulls) / plain_wall, statistics.median(cpus) / plain_cpu
            print(f"plain script (one compiled regex over the active facts, matches as JSON): median "
                  f"{plain_wall:.2f} s wall, {plain_cpu:.2f} s CPU ({plains[-1][2]:,} matches); the full scan: "
                  f"×{ratio_wall:.1f} wall, ×{ratio_cpu:.1f} CPU")
            print(f"full scan of {path.name} ({report.scanned['fact']:,} facts): "
                  f"median {statistics.median(fulls):.1f} s (runs {', '.join(f'{s:.1f}' for s in fulls)}; "
                  f"CPU of the process {', '.join(f'{s:.1f}' for s in cpus)} s); reading the text and vectors alone "
                  f"{statistics.median(floors):.1f} s; findings {report.counts}; notes {report.notes}")
            print("stages of each full scan (s): " + "; ".join(str(r.stages) for r in reports))
            if not RESCANS:
                return
            rescans, rescan_cpus = [], []
            cache = report.cache
            svc = MemoryService(ws)
            with ws.read() as conn:
                ids = [r[0] for r in conn.exec_driver_sql(
                    f"SELECT id FROM {ws.layout.facts.name} WHERE superseded_by IS NULL LIMIT 300").fetchall()]
            for round_ in range(REPEATS):
                for n, fid in enumerate(ids[round_ * 100:(round_ + 1) * 100]):
                    if n % 2:
                        svc.supersede_fact(fid, "system:cleanup")
                    else:
                        svc.propose_fact(domain="bench", topic=f"bench-{round_}-{n}",
                                         content=f"Changed fact {round_}-{n}: deploys run at {n}:00 UTC.")
                t0, c0 = time.perf_counter(), time.process_time()
                again = scan(ws, Options(), cache)
                rescans.append(time.perf_counter() - t0)
                rescan_cpus.append(time.process_time() - c0)
                cache = again.cache
            print(f"load average {os.getloadavg()[0]:.1f}; rescan after 100 changed facts (50 superseded, 50 new): "
                  f"median {statistics.median(rescans):.2f} s (runs {', '.join(f'{s:.2f}' for s in rescans)}; "
                  f"CPU {', '.join(f'{s:.2f}' for s in rescan_cpus)} s); "
                  f"facts read again {again.scanned['fact']:,}; notes {again.notes}")
            if EMBED:
                _pairs_against_exact(ws)
            else:
                _synthetic_index_at_100k()


def test_the_index_against_faiss() -> None:
    """Why the review keeps its own index (docs/architecture.md): the close-pair stage on the
    100,000 synthetic vectors, ours and faiss's inverted file (the same cells and probes, its
    ``range_search``: every pair above the cosine) side by side, on the same cores."""
    faiss = pytest.importorskip("faiss")  # in the test extra (the real MemoryOS imports it)
    m = _synthetic_100k()
    planted = {(i, i + 1) for i in range(0, len(m), 50)}
    ours, theirs = [], []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        arrays = vectors.close_pair_arrays(m, 0.85)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        cells = max(16, int(np.sqrt(len(m))))
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(m.shape[1]), m.shape[1], cells, faiss.METRIC_INNER_PRODUCT)
        index.train(m[np.random.default_rng(0).choice(len(m), size=cells * 40, replace=False)])
        index.add(m)
        index.nprobe = vectors.PROBES
        limits, _cosines, found = index.range_search(m, 0.85)
        theirs.append(time.perf_counter() - t0)
    asked = np.repeat(np.arange(len(m)), np.diff(limits).astype(np.int64))
    faiss_pairs = {(int(a), int(b)) for a, b in zip(asked, found) if a < b}
    our_pairs = set(zip(arrays.i.tolist(), arrays.j.tolist(), strict=True))
    share = {name: 100 * len(found & planted) / len(planted) for name, found in (("ours", our_pairs),
                                                                                ("faiss", faiss_pairs))}
    print(f"\nload average {os.getloadavg()[0]:.1f}; close pairs of 100,000 vectors (cosine ≥ 0.85): ours median "
          f"{statistics.median(ours):.1f} s ({len(our_pairs):,} pairs, {share['ours']:.1f} % of the planted), "
          f"faiss IVF range_search median {statistics.median(theirs):.1f} s ({len(faiss_pairs):,} pairs, "
          f"{share['faiss']:.1f} %)")
