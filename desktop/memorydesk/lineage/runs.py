"""Every stored run as numpy columns: what the Lineage tab draws, filters and judges.

:func:`load_runs` streams the workspace's receipts run by run (``receipt_store.iter_runs``),
reads each run once with the health classifier (:func:`memorydesk.core.health.assess`)
and keeps only numbers: no receipt object outlives its run, so 100,000 runs need a few
megabytes. The result, a :class:`RunTable`, is judged at any time with
:meth:`RunTable.states_at` (the classifier's own clock step, vectorised).

Conventions
- Times are integer microseconds since the Unix epoch (exact; see ``core.health_arrays``).
- A run's *lane* is the (userScope, assistantScope) of its earliest receipt (a run
  with a scope conflict names more than one; it is drawn where it began).
- A run's bar runs from its first to its last receipt.
- Runs are ordered by lane, then start, then runId; lanes by (userScope, assistantScope).
- *Transitions* are done receipts at the four boundaries the tier-flow chart counts:
  ``mtm`` (STM→MTM), ``lpm`` (MTM→LPM, or STM→LPM directly), ``retrieval``, ``generation``.
- *Memories* are (run, version) pairs with a memory-tier receipt, with the first time
  each was held in STM, left STM (``sourcePresent: false``), and committed in MTM and LPM.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

import numpy as np

from memorydesk.core.errors import MemoryDeskError
from memorydesk.core.health import assess, group_by_run
from memorydesk.core.health_arrays import NEVER, ClockColumns, states_at, to_us
from memorydesk.core.receipts import DONE_STATUSES, Receipt, gc_paused
from memorydesk.lineage import receipt_store
from memorydesk.store import Workspace

BOUNDARIES: Final = ("STM→MTM", "MTM→LPM", "retrieval", "generation")
PLACES: Final = ("STM", "MTM", "LPM", "lost")  # where a memory is (occupancy)

Progress = Callable[[int, int], None]  # receipts read, receipts in all


@dataclass
class RunTable:
    run_ids: list[str]
    lane: np.ndarray  # int32, per run
    start: np.ndarray  # int64 µs
    end: np.ndarray  # int64 µs
    clock: ClockColumns
    canary: np.ndarray  # bool
    lanes: list[tuple[str, str]]  # lane id → (userScope, assistantScope)
    lane_offsets: np.ndarray  # int64, len(lanes) + 1: runs of lane k are [off[k], off[k+1])
    source_versions: list[str]  # code → sourceVersion
    sv_run: np.ndarray  # int32: (run, code) pairs, one per distinct sourceVersion of a run
    sv_code: np.ndarray  # int32
    tr_time: np.ndarray  # int64 µs, sorted
    tr_kind: np.ndarray  # int8: index into BOUNDARIES
    tr_run: np.ndarray  # int32
    mem_run: np.ndarray  # int32
    mem_times: np.ndarray  # int64 (n, 4): held in STM, left STM, in MTM, in LPM (NEVER: not seen)
    count: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # receipts per run
    max_id: int = 0  # the highest stored receipt id read (for reading only what is new)
    index: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.index:
            self.index = {run_id: i for i, run_id in enumerate(self.run_ids)}

    def __len__(self) -> int:
        return len(self.run_ids)

    @property
    def receipts(self) -> int:
        return int(self.count.sum())

    def states_at(self, now_us: int, fresh_us: int) -> np.ndarray:
        """Every run's state (rule number 1-9) at ``now_us``."""
        return states_at(self.clock, now_us, fresh_us)

    def lane_name(self, lane: int) -> str:
        user, assistant = self.lanes[lane]
        return f"{user} / {assistant}"

    def runs_with_source_version(self, name: str) -> np.ndarray:
        """Run indices with a receipt of this sourceVersion."""
        try:
            code = self.source_versions.index(name)
        except ValueError:
            return np.zeros(0, np.int32)
        return self.sv_run[self.sv_code == code]

    def span(self) -> tuple[int, int]:
        if not len(self):
            return 0, 0
        return int(self.start.min()), int(self.end.max())

    @property
    def nbytes(self) -> int:
        arrays = [self.lane, self.start, self.end, self.canary, self.lane_offsets, self.sv_run, self.sv_code,
                  self.tr_time, self.tr_kind, self.tr_run, self.mem_run, self.mem_times, self.clock.fixed,
                  self.clock.closes, self.clock.middle, self.clock.newest, self.clock.waits]
        return sum(a.nbytes for a in arrays)


class _Builder:
    """Collects per-run numbers while the receipts stream past (the hot loop of a load)."""

    def __init__(self) -> None:
        self.run_ids: list[str] = []
        self.assessments: list = []
        self.lane: list[int] = []
        self.start: list[int] = []
        self.end: list[int] = []
        self.canary: list[bool] = []
        self.count: list[int] = []
        self.lanes: dict[tuple[str, str], int] = {}
        self.svs: dict[str, int] = {}
        self.sv_pairs: list[tuple[int, int]] = []
        self.tr_time: list[int] = []
        self.tr_kind: list[int] = []
        self.tr_run: list[int] = []
        self.mem_run: list[int] = []
        self.mem_times: list[int] = []  # four per memory
        self.receipts = 0
        self._us: dict[object, int] = {}

    def us(self, moment) -> int:
        value = self._us.get(moment)
        if value is None:
            if len(self._us) > 500_000:
                self._us.clear()
            value = self._us[moment] = to_us(moment)
        return value

    def add(self, receipts: list[Receipt]) -> None:
        n = len(self.run_ids)
        us = self.us
        self.run_ids.append(receipts[0].run_id)
        self.assessments.append(assess(receipts))
        first = receipts[0]
        first_key = (first.at_utc, first.line or 0)
        lo = hi = us(first.at_utc)
        canary = False
        svs: set[str] = set()
        memories: dict[str, list[int]] = {}
        tr_time, tr_kind = self.tr_time, self.tr_kind
        first_tr = len(tr_time)
        for r in receipts:
            t = us(r.at_utc)
            if t <= lo:
                lo = t
                if (r.at_utc, r.line or 0) < first_key:
                    first, first_key = r, (r.at_utc, r.line or 0)
            elif t > hi:
                hi = t
            if r.canary:
                canary = True
            if r.source_version is not None:
                svs.add(r.source_version)
            tier = r.tier
            if tier == "stm":
                slot = 1 if r.source_present is False else 0 if r.status in DONE_STATUSES else -1
            elif r.status in DONE_STATUSES:
                tr_time.append(t)
                if tier == "mtm":
                    tr_kind.append(0)
                    slot = 2
                elif tier == "lpm":
                    tr_kind.append(1)
                    slot = 3
                else:
                    tr_kind.append(2 if tier == "retrieval" else 3)
                    continue
            else:
                continue
            times = memories.get(r.version)
            if times is None:
                times = memories[r.version] = [NEVER, NEVER, NEVER, NEVER]
            if slot >= 0 and t < times[slot]:
                times[slot] = t
        key = (first.user_scope, first.assistant_scope)
        lane = self.lanes.get(key)
        if lane is None:
            lane = self.lanes[key] = len(self.lanes)
        self.lane.append(lane)
        self.start.append(lo)
        self.end.append(hi)
        self.canary.append(canary)
        for name in svs:
            code = self.svs.get(name)
            if code is None:
                code = self.svs[name] = len(self.svs)
            self.sv_pairs.append((n, code))
        self.tr_run.extend([n] * (len(tr_time) - first_tr))
        for times in memories.values():
            self.mem_run.append(n)
            self.mem_times.extend(times)
        self.count.append(len(receipts))
        self.receipts += len(receipts)

    def table(self, max_id: int = 0) -> RunTable:
        lane_names = sorted(self.lanes)
        renumber = np.zeros(len(lane_names), np.int32)
        for new, key in enumerate(lane_names):
            renumber[self.lanes[key]] = new
        clock = ClockColumns.empty(len(self.assessments))
        for i, a in enumerate(self.assessments):
            clock.set(i, a)
        self.assessments = []
        pairs = np.asarray(self.sv_pairs, np.int64).reshape(-1, 2)
        return assemble(
            self.run_ids, lane_names, renumber[np.asarray(self.lane, np.int64)], np.asarray(self.start, np.int64),
            np.asarray(self.end, np.int64), np.asarray(self.count, np.int32), np.asarray(self.canary, bool), clock,
            sorted(self.svs, key=self.svs.__getitem__), pairs[:, 0], pairs[:, 1],
            np.asarray(self.tr_time, np.int64), np.asarray(self.tr_kind, np.int8), np.asarray(self.tr_run, np.int64),
            np.asarray(self.mem_run, np.int64), np.asarray(self.mem_times, np.int64).reshape(-1, 4), max_id)


def assemble(run_ids: list[str], lanes: list[tuple[str, str]], lane: np.ndarray, start: np.ndarray,
             end: np.ndarray, count: np.ndarray, canary: np.ndarray, clock: ClockColumns,
             source_versions: list[str], sv_run: np.ndarray, sv_code: np.ndarray, tr_time: np.ndarray,
             tr_kind: np.ndarray, tr_run: np.ndarray, mem_run: np.ndarray, mem_times: np.ndarray,
             max_id: int) -> RunTable:
    """A RunTable from per-run columns in any order (run indices in ``sv_run``, ``tr_run`` and
    ``mem_run`` refer to that order): sorted by lane, start and runId, transitions by time."""
    ids = np.asarray(run_ids, dtype=object)
    lane = lane.astype(np.int32)
    order = np.lexsort((ids, start, lane)) if len(ids) else np.zeros(0, np.int64)
    where = np.empty_like(order)
    where[order] = np.arange(len(order))
    by_time = np.argsort(tr_time, kind="stable")
    lane = lane[order]
    return RunTable(
        run_ids=ids[order].tolist(), lane=lane, start=start[order], end=end[order], clock=clock.take(order),
        canary=canary[order], lanes=lanes,
        lane_offsets=np.searchsorted(lane, np.arange(len(lanes) + 1)).astype(np.int64),
        source_versions=source_versions, sv_run=where[sv_run].astype(np.int32), sv_code=sv_code.astype(np.int32),
        tr_time=tr_time[by_time], tr_kind=tr_kind[by_time], tr_run=where[tr_run[by_time]].astype(np.int32),
        mem_run=where[mem_run].astype(np.int32), mem_times=mem_times, count=count[order], max_id=max_id)


def combine(old: RunTable, new: RunTable) -> RunTable:
    """``old`` with every run that ``new`` holds replaced by (or added as) ``new``'s."""
    keep = np.ones(len(old), bool)
    for run_id in new.run_ids:
        i = old.index.get(run_id)
        if i is not None:
            keep[i] = False
    kept = np.flatnonzero(keep)
    lanes = sorted(set(old.lanes) | set(new.lanes))
    lane_id = {key: i for i, key in enumerate(lanes)}
    svs = list(dict.fromkeys(old.source_versions + new.source_versions))
    sv_id = {name: i for i, name in enumerate(svs)}

    def remap(names: list, table: dict) -> np.ndarray:
        return np.asarray([table[n] for n in names], np.int64).reshape(-1)

    lane_a, lane_b = remap(old.lanes, lane_id), remap(new.lanes, lane_id)
    sv_a, sv_b = remap(old.source_versions, sv_id), remap(new.source_versions, sv_id)
    moved = np.full(len(old), -1, np.int64)
    moved[kept] = np.arange(len(kept))
    shift = len(kept)

    def runs(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.concatenate([moved[a[mask]], b.astype(np.int64) + shift])

    sv_keep, tr_keep, mem_keep = keep[old.sv_run], keep[old.tr_run], keep[old.mem_run]
    clock = ClockColumns(*(np.concatenate([getattr(old.clock, f)[kept], getattr(new.clock, f)])
                           for f in ("fixed", "closes", "middle", "newest", "waits")))
    return assemble(
        [old.run_ids[i] for i in kept.tolist()] + new.run_ids, lanes,
        np.concatenate([lane_a[old.lane[kept]], lane_b[new.lane]]), np.concatenate([old.start[kept], new.start]),
        np.concatenate([old.end[kept], new.end]), np.concatenate([old.count[kept], new.count]),
        np.concatenate([old.canary[kept], new.canary]), clock, svs, runs(old.sv_run, new.sv_run, sv_keep),
        np.concatenate([sv_a[old.sv_code[sv_keep]], sv_b[new.sv_code]]),
        np.concatenate([old.tr_time[tr_keep], new.tr_time]), np.concatenate([old.tr_kind[tr_keep], new.tr_kind]),
        runs(old.tr_run, new.tr_run, tr_keep), runs(old.mem_run, new.mem_run, mem_keep),
        np.concatenate([old.mem_times[mem_keep], new.mem_times]), max(old.max_id, new.max_id))


def runs_of(runs: Iterable[list[Receipt]], progress: Progress | None = None, total: int = 0,
            cancelled: Callable[[], bool] | None = None, max_id: int = 0) -> RunTable:
    """A RunTable from runs (each a non-empty list of one run's receipts)."""
    builder = _Builder()
    with gc_paused():
        for n, receipts in enumerate(runs):
            builder.add(receipts)
            if n % 2000 == 1999:
                if progress is not None:
                    progress(builder.receipts, total)
                if cancelled is not None and cancelled():
                    raise Stopped("reading the receipts was stopped")
        return builder.table(max_id)


class Stopped(MemoryDeskError):
    """Reading was cancelled."""


def table_of(receipts: Iterable[Receipt]) -> RunTable:
    """A RunTable from receipts in any order (tests, files)."""
    return runs_of(group_by_run(receipts).values())


def load_runs(ws: Workspace, progress: Progress | None = None,
              cancelled: Callable[[], bool] | None = None) -> RunTable:
    """Every run stored in the workspace (see the module docstring); call it on the worker."""
    with ws.read() as conn:
        max_id, total = receipt_store.watermark(conn, ws)
        return runs_of(receipt_store.iter_runs(ws, conn=conn), progress, total, cancelled, max_id)


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
        if receipt_store.count_upto(conn, table.max_id) != table.receipts:
            return runs_of(receipt_store.iter_runs(ws, conn=conn), total=total, max_id=max_id)
        changed = receipt_store.runs_after(conn, table.max_id)
        if len(changed) > WHOLE_SHARE * max(len(table), 1):
            return runs_of(receipt_store.iter_runs(ws, conn=conn), total=total, max_id=max_id)
        fresh = runs_of(receipt_store.iter_runs(ws, run_ids=changed, conn=conn), max_id=max_id)
    return combine(table, fresh)
