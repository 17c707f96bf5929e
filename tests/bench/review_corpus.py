"""The 100,000-fact demo the review benchmark scans, built once (every fact embedded) and
cached through ``bench_files.cached``."""

from __future__ import annotations

from pathlib import Path

from bench_files import cached

FACTS = 100_000
RECIPE = 1


def demo_100k(embed: int = FACTS) -> Path:
    """The demo with real embeddings for its first ``embed`` facts (all by default)."""
    from memorydesk.demo.builder import build_demo

    name = f"review-demo-{FACTS}-r{RECIPE}.db" if embed == FACTS else f"review-demo-{FACTS}-e{embed}-r{RECIPE}.db"
    return cached(name, lambda p: build_demo(p, facts=FACTS, seed=7, embed=embed),
                  f"a {FACTS:,}-fact demo with {embed:,} facts embedded")
