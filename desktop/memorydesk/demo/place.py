"""A demo workspace built beside its final path and moved into place only when complete.

An interrupted or failed build (an error, Ctrl+C, a person pressing Cancel) never
leaves a half-written workspace: the file being built is removed, side files included.
A build that was killed cannot clean up; the next build beside the same path removes
its files (``remove_leftovers``). The disk's free space is checked before starting.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memorydesk import testpoints
from memorydesk.demo import builder as demo
from memorydesk.demo.builder import DemoSummary
from memorydesk.store import files, open_workspace

SIDE_FILES = ("-wal", "-shm", "-journal")
BYTES_PER_FACT, BYTES_PER_EMBEDDING = 4_500, 6_000  # the file and its log at their largest, measured with room


def remove_with_side_files(path: Path) -> None:
    for suffix in ("", *SIDE_FILES):
        Path(str(path) + suffix).unlink(missing_ok=True)


def remove_leftovers(path: Path) -> list[Path]:
    """Delete the temporary files of earlier builds of ``path`` whose process is gone (a kill)."""
    return files.remove_dead_builds(path, "building")


def create(path: Path, *, facts: int, seed: int = 7, now: int | None = None, embed: int | None = None,
           bulk: bool | None = None, progress: Callable[[str], None] | None = None,
           counted: Callable[[int, int], None] | None = None) -> DemoSummary:
    """Build the demo beside ``path`` and move it into place when complete (replacing ``path``).

    ``progress`` and ``counted`` are the builder's (``demo.builder.build_demo``).
    """
    say = progress or (lambda _line: None)
    for old in remove_leftovers(path):
        say(f"removed {old.name}, left by an interrupted build")
    embedded = min(facts, demo.DEFAULT_EMBED if embed is None else embed)
    files.require_free(path.parent, facts * BYTES_PER_FACT + embedded * BYTES_PER_EMBEDDING,
                       f"a demo workspace of {facts:,} facts")
    building = files.building_path(path, "building")
    remove_with_side_files(building)
    say(f"building a demo workspace of ~{facts:,} facts (seed {seed})…")
    try:
        summary = demo.build_demo(building, facts=facts, seed=seed, now=now,
                                  embed=demo.DEFAULT_EMBED if embed is None else embed, bulk=bulk, progress=progress,
                                  counted=counted)
        testpoints.reached("demo.built")
        files.fold_log(building)
        if path.exists():  # its log must not meet the new file; the file itself goes in the one replace
            testpoints.reached("demo.replacing")
            for suffix in SIDE_FILES:
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            testpoints.reached("demo.old-log-removed")
        os.replace(building, path)
    except BaseException:
        remove_with_side_files(building)
        raise
    summary.path = path
    return summary


def create_empty(path: Path) -> None:
    """An empty workspace at ``path`` (the product's tables and the desk's own, no rows in them),
    built beside it and moved into place when complete, as a demo is."""
    remove_leftovers(path)  # a killed build's files
    building = files.building_path(path, "building")
    remove_with_side_files(building)
    try:
        open_workspace(building, create=True, name=path.stem).close()
        files.fold_log(building)
        if path.exists():
            for suffix in SIDE_FILES:
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        os.replace(building, path)
    except BaseException:
        remove_with_side_files(building)
        raise
