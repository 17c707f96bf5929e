"""Every stored run as numpy columns: what the Lineage tab draws, filters and judges.

``run_reads.load_runs`` reads the workspace's receipts as typed columns in one scan of their
blocks (``store.receipt_blocks``: codes, flags and microseconds as stored), and
the health rules' clock-free findings come from :mod:`memorydesk.core.health.vector`
over those columns — no receipt object is made, so 100,000 runs (600,000 receipts) read
in seconds and keep a few megabytes. The result, a :class:`RunTable`, is judged with
:meth:`RunTable.states_at` (the classifier's clock step, vectorised) at any time from its
newest receipt on; at an earlier time it is first cut to the receipts of that time
(``run_reads.as_of``: only the runs the time cuts through are read again).

Conventions
- Times are integer microseconds since the Unix epoch (exact; see ``core.health.arrays``).
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

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

import numpy as np

from memorydesk.core.health.arrays import ClockColumns, states_at
from memorydesk.core.health.scalar import group_by_run
from memorydesk.core.health.vector import ReceiptColumns, clock_columns, columns_of
from memorydesk.core.receipt_codes import NEVER
from memorydesk.core.receipts import Receipt

BOUNDARIES: Final = ("STM→MTM", "MTM→LPM", "retrieval", "generation")
PLACES: Final = ("STM", "MTM", "LPM", "lost")  # where a memory is (occupancy)


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
    # a table cut at a time (``as_of``): receipts stored but dated after it, in how many runs, the earliest
    later: int = 0
    later_runs: int = 0
    later_us: int | None = None
    mem_final: np.ndarray | None = None  # a cut table's memory times as finally stored (``mem_times`` of the whole)

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

    def next_change(self, now_us: int, fresh_us: int) -> int | None:
        """The first instant after ``now_us`` at which time alone changes what this table shows:
        a waiting window closes, a run's newest receipt leaves the freshness window, or a receipt
        dated after ``now_us`` (``later_us``) starts to count. None: nothing ever will."""
        found = [] if self.later_us is None else [self.later_us]
        closes = self.clock.closes[(self.clock.closes > now_us) & (self.clock.closes < NEVER)]
        if len(closes):
            found.append(int(closes.min()))
        stale = self.clock.newest[self.clock.newest + fresh_us >= now_us] + fresh_us + 1
        if len(stale):
            found.append(int(stale.min()))
        return min(found, default=None)

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


def empty_table(max_id: int = 0) -> RunTable:
    return assemble([], [], *([np.zeros(0, np.int64)] * 3), np.zeros(0, np.int32), np.zeros(0, bool),
                    ClockColumns.empty(0), [], *([np.zeros(0, np.int64)] * 3), np.zeros(0, np.int8),
                    np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 4), np.int64), max_id)


def table_from_columns(run_ids: list[str], c: ReceiptColumns, scope_names: list[tuple[str, str]],
                       sv_run: np.ndarray, sv_code: np.ndarray, source_versions: list[str],
                       max_id: int = 0) -> RunTable:
    """A RunTable from receipt columns grouped by run (``c.user``: codes into ``scope_names``, the
    (user, assistant) pairs; ``c.assistant`` unused) and the distinct (run, sourceVersion) pairs."""
    run = c.run
    n_runs = len(run_ids)
    clock = clock_columns(c)
    starts = np.searchsorted(run, np.arange(n_runs))
    counts_a = np.diff(np.r_[starts, len(run)])
    first = np.lexsort((np.arange(len(run)), c.line, c.at, run))[starts]  # a run's lane: its earliest receipt
    used = np.unique(c.user[first])
    lane_keys = sorted(scope_names[k] for k in used.tolist())
    position = {key: i for i, key in enumerate(lane_keys)}
    renumber = np.zeros(len(scope_names), np.int64)
    renumber[used] = [position[scope_names[k]] for k in used.tolist()]
    lane = renumber[c.user[first]]
    done = (c.status == 2) | (c.status == 3)
    moved = done & (c.tier >= 1)
    memory = c.tier <= 2
    width = len(c.versions) + 1
    keys, pair = np.unique(run[memory] * width + c.version[memory], return_inverse=True)
    times = np.full((len(keys), 4), NEVER, np.int64)
    stm, at = c.tier[memory] == 0, c.at[memory]
    present, tier, is_done = c.present[memory], c.tier[memory], done[memory]
    for slot, mask in enumerate((stm & is_done & (present != 0), stm & (present == 0),
                                 (tier == 1) & is_done, (tier == 2) & is_done)):
        np.minimum.at(times[:, slot], pair[mask], at[mask])
    return assemble(run_ids, lane_keys, lane, np.minimum.reduceat(c.at, starts), np.maximum.reduceat(c.at, starts),
                    counts_a.astype(np.int32), np.maximum.reduceat(c.canary.astype(np.uint8), starts) > 0, clock,
                    source_versions, sv_run, sv_code, c.at[moved], (c.tier[moved] - 1).astype(np.int8), run[moved],
                    keys // width, times, max_id)


def _dense(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_inverse=True)`` for codes in ``[0, size)``, in linear time."""
    seen = np.zeros(size + 1, bool)
    seen[codes] = True
    used = np.flatnonzero(seen)
    rank = np.cumsum(seen) - 1
    return used, rank[codes].astype(np.int64)


def table_from_records(rec: np.ndarray, text: np.ndarray, max_id: int = 0) -> RunTable:
    """A RunTable from stored receipts as ``receipt_blocks.RECORD`` rows in the order stored
    (any runs, any subset) and the strings their codes name: grouped by run in numpy."""
    if not len(rec):
        return empty_table(max_id)
    run_codes, inverse = _dense(rec["run"], len(text))
    names = text[run_codes].tolist()
    by_name = sorted(range(len(names)), key=names.__getitem__)  # runs in runId order, as the row path reads them
    rank = np.empty(len(names), np.int64)
    rank[by_name] = np.arange(len(names))
    inverse = rank[inverse]
    run_ids = [names[i] for i in by_name]
    order = np.argsort(inverse, kind="stable")  # grouped by run, each run's receipts in the order stored
    r = {name: rec[name][order] for name in ("user", "assistant", "version", "depends", "source", "at", "until",
                                              "line", "packed")}
    run = inverse[order]
    n = len(run)
    lane_keys, lane_code = np.unique(r["user"].astype(np.int64) << 32 | r["assistant"], return_inverse=True)
    scope_names = [(text[k >> 32], text[k & 0xFFFFFFFF]) for k in lane_keys.tolist()]
    vcodes, vinv = _dense(np.concatenate([r["version"], r["depends"]]), len(text))
    shift = int(vcodes[0] == 0)  # code 0: dependsOnVersion unstated
    packed = r["packed"].astype(np.int64)
    c = ReceiptColumns(
        run=run, user=lane_code.astype(np.int64), assistant=np.zeros(n, np.int64),
        tier=(packed & 7).astype(np.int8), status=((packed >> 3) & 7).astype(np.int8),
        version=vinv[:n] - shift, at=r["at"], line=r["line"].astype(np.int64),
        present=(((packed >> 6) & 3) - 1).astype(np.int8), until=r["until"],
        expected=(((packed >> 8) & 3) - 1).astype(np.int8), depends=vinv[n:] - shift,
        outcome=(packed >> 10) & 1 > 0, no_source=(packed >> 11) & 1 > 0, canary=(packed >> 12) & 1 > 0,
        versions=text[vcodes[shift:]].tolist(), runs=len(run_codes))
    sources = r["source"].astype(np.int64)
    has = sources > 0
    pair_keys = np.unique(run[has] * (int(sources.max()) + 1) + sources[has]) if has.any() else np.zeros(0, np.int64)
    sv_run, sv_raw = np.divmod(pair_keys, int(sources.max()) + 1)
    sv_codes, sv_code = np.unique(sv_raw, return_inverse=True)
    return table_from_columns(run_ids, c, scope_names, sv_run, sv_code.astype(np.int64),
                              text[sv_codes].tolist(), max_id)


def _order(run_ids: list[str], ids: np.ndarray, lane: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Runs by lane, start, then runId: sorted by the numbers, and only runs that tie on both
    (rare) put in runId order among themselves — a sort by the strings of every run is what
    made bringing a 100,000-run table up to date cost a second."""
    if not len(ids):
        return np.zeros(0, np.int64)
    order = np.lexsort((np.arange(len(ids)), start, lane))
    if all(a < b for a, b in zip(run_ids, itertools.islice(run_ids, 1, None))):
        return order  # ties are already in runId order
    same = (lane[order][1:] == lane[order][:-1]) & (start[order][1:] == start[order][:-1])
    if same.any():
        edges = np.flatnonzero(np.diff(np.r_[0, same.astype(np.int8), 0]))
        for first, last in zip(edges[0::2].tolist(), (edges[1::2] + 1).tolist()):
            group = order[first:last]
            order[first:last] = group[np.argsort(ids[group], kind="stable")]
    return order


def assemble(run_ids: list[str], lanes: list[tuple[str, str]], lane: np.ndarray, start: np.ndarray,
             end: np.ndarray, count: np.ndarray, canary: np.ndarray, clock: ClockColumns,
             source_versions: list[str], sv_run: np.ndarray, sv_code: np.ndarray, tr_time: np.ndarray,
             tr_kind: np.ndarray, tr_run: np.ndarray, mem_run: np.ndarray, mem_times: np.ndarray,
             max_id: int) -> RunTable:
    """A RunTable from per-run columns in any order (run indices in ``sv_run``, ``tr_run`` and
    ``mem_run`` refer to that order): sorted by lane, start and runId, transitions by time."""
    ids = np.asarray(run_ids, dtype=object)
    lane = lane.astype(np.int32)
    order = _order(run_ids, ids, lane, start)
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


def cut_at(table: RunTable, fresh: RunTable, now_us: int) -> RunTable:
    """``table`` cut at ``now_us``, given ``fresh``: the runs it cuts through, read up to then.

    A run keeps its lane and start when cut (its first receipt is at or before ``now_us``), so
    the kept runs stay in the table's order and nothing is sorted again: their rows are taken,
    the cut runs' rows replaced by ``fresh``'s, and transitions and memory times after
    ``now_us`` left out."""
    keep = np.flatnonzero(table.start <= now_us)
    where = np.full(len(table), -1, np.int64)
    where[keep] = np.arange(len(keep))
    run_ids = np.asarray(table.run_ids, dtype=object)[keep].tolist()
    end, count, canary = table.end[keep].copy(), table.count[keep].copy(), table.canary[keep].copy()
    clock = table.clock.take(keep)
    mine = np.asarray([where[table.index[r]] for r in fresh.run_ids], np.int64)
    if len(mine):
        end[mine], count[mine], canary[mine] = fresh.end, fresh.count, fresh.canary
        for name in ("fixed", "closes", "middle", "newest", "waits"):
            getattr(clock, name)[mine] = getattr(fresh.clock, name)
    replaced = np.zeros(len(table), bool)
    replaced[[table.index[r] for r in fresh.run_ids]] = True
    sv_keep = (where[table.sv_run] >= 0) & ~replaced[table.sv_run]
    code = {name: i for i, name in enumerate(table.source_versions)}
    fresh_codes = np.asarray([code[n] for n in fresh.source_versions], np.int64).reshape(-1)
    tr = table.tr_time <= now_us
    mem = where[table.mem_run] >= 0
    mem_final = table.mem_times[mem]
    mem_times = mem_final.copy()
    mem_times[mem_times > now_us] = NEVER
    lane = table.lane[keep]
    return RunTable(
        run_ids=run_ids, lane=lane, start=table.start[keep], end=end, clock=clock, canary=canary, lanes=table.lanes,
        lane_offsets=np.searchsorted(lane, np.arange(len(table.lanes) + 1)).astype(np.int64),
        source_versions=table.source_versions,
        sv_run=np.concatenate([where[table.sv_run[sv_keep]], mine[fresh.sv_run]]).astype(np.int32),
        sv_code=np.concatenate([table.sv_code[sv_keep], fresh_codes[fresh.sv_code]]).astype(np.int32),
        tr_time=table.tr_time[tr], tr_kind=table.tr_kind[tr], tr_run=where[table.tr_run[tr]].astype(np.int32),
        mem_run=where[table.mem_run[mem]].astype(np.int32), mem_times=mem_times, count=count, max_id=table.max_id,
        index=dict(zip(run_ids, range(len(run_ids)))), mem_final=mem_final)


def table_of(receipts: Iterable[Receipt]) -> RunTable:
    """A RunTable from receipts in any order (tests, files): the same columns the health rules read."""
    runs = group_by_run(receipts)
    ids = sorted(runs)
    if not ids:
        return empty_table()
    columns, scope_names = columns_of([runs[i] for i in ids])
    index = {run_id: i for i, run_id in enumerate(ids)}
    pairs = sorted({(r.run_id, r.source_version) for rs in runs.values() for r in rs if r.source_version is not None})
    sources: dict[str, int] = {}
    sv_run = np.fromiter((index[r] for r, _sv in pairs), np.int64, len(pairs))
    sv_code = np.fromiter((sources.setdefault(sv, len(sources)) for _r, sv in pairs), np.int64, len(pairs))
    return table_from_columns(ids, columns, scope_names, sv_run, sv_code, list(sources))
