"""How fast a MemoryOS data directory is imported (run with ``make bench``, ``-s``).

Builds a directory the way MemoryOS writes one (pretty-printed JSON, 384-float
embeddings on every page, session and knowledge entry): ``USERS`` users with ``QAS``
QAs each, five in STM and the rest as pages in sessions of eight, every other session
promoted, one knowledge line per promoted page. Times, as medians of ``REPEAT`` runs:
reading and checking the directory alone, a first import into a new workspace, and
importing the unchanged directory again (nothing new). Prints figures only.
``MEMDESK_BENCH_QAS`` / ``MEMDESK_BENCH_REPEAT`` scale it.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import pytest

from fixtures.memoryos_dir import MemoryOSDir, knowledge, page, qa, session
from memorydesk.lineage.memoryos import import_directory, load_zone
from memorydesk.lineage.memoryos.checks import find_anomalies
from memorydesk.lineage.memoryos.records import read_directory

USERS = 4
QAS = int(os.environ.get("MEMDESK_BENCH_QAS", "500"))
REPEAT = int(os.environ.get("MEMDESK_BENCH_REPEAT", "3"))
PER_SESSION = 8


def _stamp(n: int) -> str:
    day, minute = divmod(n * 7, 24 * 60)
    return f"2025-{3 + day // 28:02d}-{1 + day % 28:02d} {minute // 60:02d}:{minute % 60:02d}:00"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("memoryos") / "data"
    for u in range(USERS):
        folder = MemoryOSDir(root, user=f"user_{u}", assistant="companion")
        pairs = [qa(n, _stamp(n)) for n in range(QAS)]
        migrated, folder.short_term = pairs[:-5], pairs[-5:]
        for s in range(0, len(migrated), PER_SESSION):
            chunk = migrated[s:s + PER_SESSION]
            promoted = (s // PER_SESSION) % 2 == 0
            pages = [page(f"page_{u}_{s + i}", p, analyzed=promoted, seed=s + i + 1) for i, p in enumerate(chunk)]
            folder.add_session(session(f"session_{u}_{s}", pages, chunk[-1]["timestamp"], seed=s + 1))
            if promoted:
                folder.user_knowledge += [knowledge(f"- fact about topic {s + i}", p["timestamp"], seed=s + i + 7)
                                          for i, p in enumerate(chunk)]
        folder.profile = {"data": "Topic Interest ( High ): asks about topics.", "last_updated": _stamp(QAS)}
        folder.assistant_knowledge = [knowledge(f"- Assistant explained topic {n}", _stamp(n), seed=n + 3)
                                      for n in range(QAS // 4)]
        folder.write()
    size = sum(p.stat().st_size for p in root.rglob("*.json")) / 1e6
    print(f"\n[memoryos] {USERS} users × {QAS} QAs, {size:.0f} MB of JSON")
    return root


def _median(times: list[float]) -> str:
    return f"{statistics.median(times):.2f} s"


@pytest.mark.slow
def test_bench_import(data_dir: Path, tmp_path: Path) -> None:
    zone = load_zone("Europe/Berlin")
    read, first, again = [], [], []
    for i in range(REPEAT):
        started = time.perf_counter()
        directory = read_directory(data_dir, zone)
        find_anomalies(directory)
        read.append(time.perf_counter() - started)
        workspace = tmp_path / f"ws{i}.db"
        started = time.perf_counter()
        result = import_directory(data_dir, workspace, "Europe/Berlin")
        first.append(time.perf_counter() - started)
        started = time.perf_counter()
        repeat = import_directory(data_dir, workspace, "Europe/Berlin")
        again.append(time.perf_counter() - started)
        assert result.imported["mtm_pages"] == USERS * (QAS - 5) and repeat.nothing_new
    pages = USERS * (QAS - 5)
    print(f"[memoryos] read + check {_median(read)} | first import {_median(first)} "
          f"({pages / statistics.median(first):,.0f} pages/s, {len(result.receipts):,} receipts) | "
          f"import again (nothing new) {_median(again)}")
