"""File ▸ Import receipts…: a JSON Lines or OTLP/JSON file into the workspace, all or nothing.

The file is read and checked whole first (a bad line refuses it: ``line N: …`` and
nothing is stored), then stored in one transaction through ``receipt_store.ingest`` —
the same door as ``memory-desk lineage ingest``, so duplicates are treated the same way
(the difference between receipts read and receipts stored is reported as skipped).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from memorydesk.core.errors import BadInput
from memorydesk.lineage import receipt_store
from memorydesk.lineage.jsonl import BadReceiptLine
from memorydesk.lineage.receipt_files import parse_receipts
from memorydesk.store import Workspace

Progress = Callable[[int, int, str], None]  # done, total, what
REPORT_EVERY = 5_000  # lines


@dataclass(frozen=True)
class ImportResult:
    name: str
    read: int
    stored: int
    runs: int

    @property
    def skipped(self) -> int:
        return self.read - self.stored

    def message(self) -> str:
        text = f"Imported {self.stored:,} receipts of {self.runs:,} runs from {self.name}"
        if self.skipped:
            text += f"; {self.skipped:,} duplicates skipped"
        return text + "."


def import_file(ws: Workspace, path: str | os.PathLike[str], progress: Progress | None = None,
                check: Callable[[], None] | None = None) -> ImportResult:
    """Read, check and store every receipt of ``path`` (``check()`` may raise to stop before storing)."""
    path = Path(path)
    report = progress or (lambda _d, _t, _x: None)
    try:
        size = path.stat().st_size
        stream = open(path, "rb")  # noqa: SIM115 - closed below, after the generator is drained
    except OSError as exc:
        raise BadInput(f"cannot read {path.name}: {exc.strerror or exc}") from None

    def lines() -> Iterator[bytes]:
        done = 0
        for n, line in enumerate(stream, 1):
            done += len(line)
            if n % REPORT_EVERY == 0:
                report(done, size, f"reading {path.name}")
                if check is not None:
                    check()
            yield line

    try:
        with stream:
            receipts = parse_receipts(lines())
    except BadReceiptLine as exc:
        raise BadInput(f"{path.name}, {exc}; nothing was imported") from None
    if not receipts:
        raise BadInput(f"{path.name} holds no receipts; nothing was imported")
    if check is not None:
        check()
    report(size, size, f"storing {len(receipts):,} receipts")
    stored = receipt_store.ingest(ws, receipts).stored
    return ImportResult(path.name, len(receipts), stored, len({r.run_id for r in receipts}))
