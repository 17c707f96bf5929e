"""A demo workspace built beside its final path and moved into place only when complete.

An interrupted or failed build (an error, Ctrl+C, a person pressing Cancel) never
leaves a half-written workspace: the file being built is removed, side files included.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memorydesk.demo import builder as demo
from memorydesk.demo.builder import DemoSummary

SIDE_FILES = ("-wal", "-shm", "-journal")


def remove_with_side_files(path: Path) -> None:
    for suffix in ("", *SIDE_FILES):
        Path(str(path) + suffix).unlink(missing_ok=True)


def create(path: Path, *, facts: int, seed: int = 7, now: int | None = None, embed: int | None = None,
           bulk: bool | None = None, progress: Callable[[str], None] | None = None,
           counted: Callable[[int, int], None] | None = None) -> DemoSummary:
    """Build the demo beside ``path`` and move it into place when complete (replacing ``path``).

    ``progress`` and ``counted`` are the builder's (``demo.builder.build_demo``).
    """
    say = progress or (lambda _line: None)
    building = path.with_name(f".{path.name}.building-{os.getpid()}")
    remove_with_side_files(building)
    say(f"building a demo workspace of ~{facts:,} facts (seed {seed})…")
    try:
        summary = demo.build_demo(building, facts=facts, seed=seed, now=now,
                                  embed=demo.DEFAULT_EMBED if embed is None else embed, bulk=bulk, progress=progress,
                                  counted=counted)
        demo.finish_file(building)
        if path.exists():
            remove_with_side_files(path)
        os.replace(building, path)
    except BaseException:
        remove_with_side_files(building)
        raise
    summary.path = path
    return summary
