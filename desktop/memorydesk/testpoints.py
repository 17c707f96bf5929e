"""Named points in long work where a test can stop the process and kill it there (never on a guess
of how long the work takes).

``reached(name)`` costs one dictionary lookup unless ``MEMORYDESK_TEST_STOP_AT`` is set:

- ``NAME:N`` — at the N-th time point ``NAME`` is reached, print ``memory-desk: test point NAME N``
  on standard error and wait there until a signal ends the process (the test kills it on that line);
- ``list`` — print that line at every point reached, and go on (how many there are in a run).

The points are named where the work is (``salvage.table``, ``ingest.block``, …); a point is reached
*before* the step it names, so a kill there leaves the step's predecessors done and it not begun.
"""

from __future__ import annotations

import os
import sys
import time

ENV = "MEMORYDESK_TEST_STOP_AT"
_SETTING = os.environ.get(ENV, "")
_counts: dict[str, int] = {}


def reached(name: str) -> None:
    if not _SETTING:
        return
    count = _counts[name] = _counts.get(name, 0) + 1
    if _SETTING == "list":
        print(f"memory-desk: test point {name} {count}", file=sys.stderr, flush=True)
        return
    wanted, _sep, nth = _SETTING.rpartition(":")
    if wanted == name and nth.isdigit() and count == int(nth):
        print(f"memory-desk: test point {name} {count}", file=sys.stderr, flush=True)
        while True:  # until the test's signal ends the process
            time.sleep(3600)
