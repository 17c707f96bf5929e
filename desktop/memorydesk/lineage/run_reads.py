"""Reading runs from a workspace into a :class:`~memorydesk.lineage.runs.RunTable`: every stored
run (:func:`load_runs`), only what is new since a table was read (:func:`load_changes`), and a
table as an operator saw it at a time (:func:`as_of`). Call them on the worker.

Reading what is new costs what is new: the runs with receipts past the table's highest
receipt id are read from the blocks written since each first appeared, with only the strings
they name (``receipt_store.read_runs``), and merged into the table (``runs.combine``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import numpy as np

from memorydesk.core.errors import MemoryDeskError
from memorydesk.lineage import receipt_store
from memorydesk.lineage.runs import RunTable, combine, cut_at, table_from_records
from memorydesk.store import Workspace

Progress = Callable[[int, int], None]  # receipts read, receipts in all


def as_of(ws: Workspace, table: RunTable, now_us: int) -> RunTable:
    """``table`` (every stored receipt) as an operator saw it at ``now_us``: only receipts dated
    at or before it, runs without one left out. Runs wholly before ``now_us`` are as they
    are; only the runs it cuts through are read again, up to ``now_us`` (on the worker)."""
    if not len(table) or now_us >= int(table.end.max()):
        return table
    cut = (table.start <= now_us) & (table.end > now_us)
    ids = [table.run_ids[i] for i in np.flatnonzero(cut).tolist()]
    with ws.read() as conn:
        rec, text = _records(conn, ws, ids)
    after = rec["at"] > now_us
    result = cut_at(table, table_from_records(rec[~after], text, table.max_id), now_us)
    # what the cut leaves out: the receipts of runs not begun yet, and the cut runs' later ones
    begun = table.start <= now_us
    result.later = int(table.count[~begun].sum()) + int(after.sum())
    result.later_runs = int((table.end > now_us).sum())
    firsts = [int(table.start[~begun].min())] if (~begun).any() else []
    result.later_us = min(firsts + ([int(rec["at"][after].min())] if after.any() else []))
    return result


def _records(conn, ws: Workspace, run_ids: list[str] | None) -> tuple[np.ndarray, np.ndarray]:
    if run_ids is None:
        return receipt_store.read_records(conn, ws)
    return receipt_store.read_runs(conn, ws, run_ids)


def read_table(conn, ws: Workspace, run_ids: list[str] | None = None, upto_us: int | None = None,
               max_id: int = 0) -> RunTable:
    """The stored runs (or those of ``run_ids``; with ``upto_us`` only receipts dated at or before
    it) as a RunTable, read in ``conn``'s transaction from the receipt blocks."""
    rec, text = _records(conn, ws, run_ids)
    if upto_us is not None:
        rec = rec[rec["at"] <= upto_us]
    return table_from_records(rec, text, max_id)


def load_runs(ws: Workspace, progress: Progress | None = None,
              cancelled: Callable[[], bool] | None = None) -> RunTable:
    """Every run stored in the workspace (see the module docstring); call it on the worker."""
    with ws.read() as conn:
        max_id, total = receipt_store.watermark(conn, ws)
        stored = receipt_store.read_records(conn, ws)
    if cancelled is not None and cancelled():
        raise Stopped("reading the receipts was stopped")
    if progress is not None:
        progress(len(stored[0]), total)
    return table_from_records(*stored, max_id)


def give_back_memory() -> None:
    """Return freed heap to the system after a load's temporary arrays (glibc keeps it
    otherwise: a 100,000-run load would leave the process ~150 MB larger than it needs)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to do
        return
    libc.malloc_trim(0)


class Stopped(MemoryDeskError):
    """Reading was cancelled."""


#: above this share of runs touched, reading everything again is cheaper than merging
WHOLE_SHARE = 0.25


def load_changes(ws: Workspace, table: RunTable) -> RunTable | None:
    """``table`` brought up to date: only runs with receipts stored after it was read are
    read again; if receipts it holds were removed meanwhile, everything is. None when
    nothing changed."""
    with ws.read() as conn:
        max_id, total = receipt_store.watermark(conn, ws)
        if max_id == table.max_id and total == table.receipts:
            return None
        changed = receipt_store.runs_after(conn, table.max_id)
        whole = (receipt_store.count_upto(conn, table.max_id) != table.receipts
                 or len(changed) > WHOLE_SHARE * max(len(table), 1))
        fresh = read_table(conn, ws, None if whole else changed, max_id=max_id)
    return fresh if whole else combine(table, fresh)
