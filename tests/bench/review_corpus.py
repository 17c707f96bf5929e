"""The 100,000-fact demo the review benchmark scans, built once (every fact embedded) and
cached through ``bench_files.cached``."""

from __future__ import annotations

from pathlib import Path

from bench_files import cached

FACTS = 100_000
RECIPE = 1


def demo_100k() -> Path:
    from memorydesk.demo.builder import build_demo

    return cached(f"review-demo-{FACTS}-r{RECIPE}.db",
                  lambda p: build_demo(p, facts=FACTS, seed=7, embed=FACTS),
                  f"a {FACTS:,}-fact demo with every fact embedded")
