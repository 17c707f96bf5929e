"""The Lineage timeline as numbers: runs judged at a time, filtered, laid out in lanes.

:func:`build` takes a :class:`~memorydesk.lineage.runs.RunTable`, an *evaluate at* time,
a freshness window and :class:`Filters`, and returns a :class:`Timeline`: every run's
state (the classifier's, at that time), the lanes that hold shown runs in display order
(worst first), the shown runs as arrays sorted by display row and start, the per-lane
grid of worst state per time bin with its halvings, the all-lanes overview, and the
legend's counts. It is pure numpy (no Qt, no database): the tab builds it off the UI
thread, and draws, hit-tests and charts from it.

Severity (what wins a pixel, what orders lanes): at-risk 4, stale 3, uncertain 2,
waiting 1, healthy 0; a bar's *value* is severity + 1 (0 is empty). Lanes are ordered by
their worst shown run, then by how many runs share that worst severity, then by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import numpy as np

from memorydesk.core.health.table import BY_SEVERITY, RULE_SEVERITY, Color, HealthState
from memorydesk.core.receipt_codes import NEVER
from memorydesk.lineage import raster
from memorydesk.lineage.memoryos.lineage import import_timing
from memorydesk.lineage.runs import BOUNDARIES, PLACES, RunTable

GRID_BINS: Final = 4096
STATES: Final = tuple(HealthState)
HOUR_US: Final = 3_600_000_000
_NICE_HOURS: Final = (1, 2, 3, 4, 6, 8, 12, 24, 48, 72, 168, 336, 720)


@dataclass(frozen=True)
class Filters:
    """Which runs the timeline shows (an empty set or None means "any")."""

    colors: frozenset[str] = frozenset()  # Color values
    states: frozenset[str] = frozenset()  # HealthState values (the rules)
    scope: str = ""  # text in "userScope / assistantScope", any case
    since_us: int | None = None  # bars that reach into [since, until]
    until_us: int | None = None
    source_version: str | None = None  # runs with a receipt of this sourceVersion
    canary_only: bool = False
    lanes: frozenset[tuple[str, str]] = frozenset()  # (userScope, assistantScope) lanes to show
    run_text: str = ""  # text in the runId, any case

    @property
    def active(self) -> bool:
        return self != Filters()


@dataclass
class Timeline:
    table: RunTable  # the runs as of ``now_us`` (what is judged and drawn)
    now_us: int
    fresh_us: int
    filters: Filters
    state: np.ndarray  # int8 rule number per run (every run of the table)
    severity: np.ndarray  # int8 per run
    shown: np.ndarray  # bool per run
    row_lane: np.ndarray  # int32: display row → lane id
    lane_row: np.ndarray  # int32: lane id → display row, -1 when hidden
    idx: np.ndarray  # int32: shown runs (table indices) by (row, start)
    row: np.ndarray  # int32
    start: np.ndarray  # int64 µs
    end: np.ndarray  # int64 µs
    value: np.ndarray  # uint8: severity + 1
    canary: np.ndarray  # bool
    row_offsets: np.ndarray  # int64, rows + 1
    row_maxdur: np.ndarray  # int64 per row
    row_worst: np.ndarray  # int8 per row
    track: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # per shown run: its sub-track
    tracks: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # per shown run: its group's tracks
    row_tracks: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # per row: sub-tracks used
    t0: int = 0
    bin_us: int = 1
    levels: list[np.ndarray] = field(default_factory=list)
    overview: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8))
    state_counts: dict[HealthState, int] = field(default_factory=dict)
    color_counts: dict[Color, int] = field(default_factory=dict)
    source: RunTable | None = None  # every stored run (the span the axis covers); None: ``table``

    @property
    def whole(self) -> RunTable:
        """The table the timeline was made from (``table`` is it cut at ``now_us``)."""
        return self.source if self.source is not None else self.table

    @property
    def rows(self) -> int:
        return len(self.row_lane)

    def set_grid(self, grid: Grid) -> None:
        self.t0, self.bin_us, self.overview = grid.t0, grid.bin_us, grid.overview
        self.levels = grid.levels  # last: raster() reads the levels only once they are set

    @property
    def runs_shown(self) -> int:
        return len(self.idx)

    def source_counts(self) -> dict[str, tuple[int, int]]:
        """Per sourceVersion: (runs with a receipt of it, of which at-risk), as of ``now_us``."""
        t = self.table
        risky = self.severity[t.sv_run] == BY_SEVERITY.index(Color.AT_RISK) if len(t.sv_run) else np.zeros(0, bool)
        runs = np.bincount(t.sv_code, minlength=len(t.source_versions))
        at_risk = np.bincount(t.sv_code[risky], minlength=len(t.source_versions))
        return {name: (int(runs[k]), int(at_risk[k])) for k, name in enumerate(t.source_versions)}

    def position(self, run: int) -> int | None:
        """Where a table run is among the shown runs (None if it is not shown)."""
        if not (0 <= run < len(self.shown)) or not self.shown[run]:
            return None
        r = self.lane_row[self.table.lane[run]]
        lo, hi = self.row_offsets[r], self.row_offsets[r + 1]
        found = np.flatnonzero(self.idx[lo:hi] == run)
        return int(lo + found[0]) if len(found) else None

    def in_view(self, row0: int, row1: int, x0: int, x1: int) -> np.ndarray:
        """Positions (into the shown arrays) of bars in rows ``[row0, row1)`` reaching into ``[x0, x1]``."""
        row0, row1 = max(0, row0), min(self.rows, row1)
        parts = []
        for r in range(row0, row1):
            lo, hi = int(self.row_offsets[r]), int(self.row_offsets[r + 1])
            starts = self.start[lo:hi]
            a = lo + int(np.searchsorted(starts, x0 - self.row_maxdur[r], "left"))
            b = lo + int(np.searchsorted(starts, x1, "right"))
            if a < b:
                span = np.arange(a, b)
                parts.append(span[self.end[a:b] >= x0])
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    def hit(self, row: int, t: int, tolerance: int, among: np.ndarray | None = None) -> int | None:
        """The run under a point: in ``row``, the bars within ``tolerance`` µs of ``t`` (or
        ``among`` those: positions into the shown arrays); the most severe wins (as on screen),
        then one that contains ``t``, then the nearest."""
        if not 0 <= row < self.rows:
            return None
        found = self.in_view(row, row + 1, t - tolerance, t + tolerance) if among is None else among
        if not len(found):
            return None
        s, e = self.start[found], self.end[found]
        distance = np.where(t < s, s - t, np.where(t > e, t - e, 0))
        best = np.lexsort((distance, -self.value[found].astype(np.int16)))[0]
        return int(self.idx[found[best]])

    def lane_name(self, row: int) -> str:
        return self.table.lane_name(int(self.row_lane[row]))

    def raster(self, row0: int, row1: int, x0: float, pixel: float, width: int, max_bars: int = 400_000) -> np.ndarray:
        """Rows ``[row0, row1)`` as ``width`` pixels from ``x0`` (µs) at ``pixel`` µs each.

        Straight from the bars when the pixel is finer than the grid (or no grid yet),
        else from the coarsest grid level whose bins fit in a pixel.
        """
        row0, row1 = max(0, row0), min(self.rows, row1)
        if row1 <= row0 or width <= 0:
            return np.zeros((max(0, row1 - row0), max(0, width)), np.uint8)
        if self.levels and pixel >= self.bin_us:
            k = raster.pick_level(self.levels, self.bin_us, pixel)
            level = self.levels[k][row0:row1]
            return raster.from_grid(level, self.bin_us * (1 << k), self.t0, x0, pixel, width)
        found = self.in_view(row0, row1, int(x0), int(x0 + pixel * width))
        if len(found) > max_bars and self.levels:
            return raster.from_grid(self.levels[0][row0:row1], self.bin_us, self.t0, x0, pixel, width)
        first = np.floor((self.start[found] - x0) / pixel).astype(np.int64)
        last = np.floor((self.end[found] - x0) / pixel).astype(np.int64)
        return raster.fill(self.row[found] - row0, first, last, self.value[found], row1 - row0, width)

    def canary_cells(self, row0: int, row1: int, x0: float, pixel: float, width: int) -> np.ndarray:
        """Where canary runs are, as a bool raster like :meth:`raster` (from the bars: they are few)."""
        found = self.in_view(row0, row1, int(x0), int(x0 + pixel * width))
        found = found[self.canary[found]]
        first = np.floor((self.start[found] - x0) / pixel).astype(np.int64)
        last = np.floor((self.end[found] - x0) / pixel).astype(np.int64)
        ones = np.ones(len(found), np.uint8)
        rows = max(0, min(self.rows, row1) - max(0, row0))
        return raster.fill(self.row[found] - max(0, row0), first, last, ones, rows, width) > 0

    # -- charts -----------------------------------------------------------------------------------

    def bounded(self) -> tuple[np.ndarray, np.ndarray]:
        """Per run of ``table``: are its STM→MTM moves, its MTM→LPM promotions dated by an upper
        bound rather than when they happened (what its ``sourceVersion`` says: ``import
        memoryos`` without the short-term capacity, and every promotion it infers)?"""
        t = self.table
        moves, lpm = np.zeros(len(t), bool), np.zeros(len(t), bool)
        for code, name in enumerate(t.source_versions):
            timing = import_timing(name)
            if timing is not None:
                runs = t.sv_run[t.sv_code == code]
                moves[runs] |= timing.moves_bounded
                lpm[runs] |= timing.lpm_bounded
        return moves, lpm

    def transitions(self, x0: int, x1: int, max_bins: int = 160, *, with_bounded: bool = False) -> tuple:
        """Transitions of shown runs per hour in ``[x0, x1)``, by boundary (``BOUNDARIES``).

        Returns (bin edges µs, all (4, n) per hour, at-risk (4, n) per hour, hours per bin) and,
        ``with_bounded``, the transitions dated by an upper bound (4, n) per hour (:meth:`bounded`).
        """
        span = max(1, x1 - x0)
        hours = next((h for h in _NICE_HOURS if span / (h * HOUR_US) <= max_bins), _NICE_HOURS[-1])
        width = hours * HOUR_US
        first = x0 // width * width
        n = int(-(-(x1 - first) // width))
        edges = first + width * np.arange(n + 1, dtype=np.int64)
        t = self.table
        a, b = np.searchsorted(t.tr_time, [first, first + n * width])
        runs = t.tr_run[a:b]
        keep = self.shown[runs]
        cell = ((t.tr_time[a:b][keep] - first) // width) * 4 + t.tr_kind[a:b][keep]
        risky = self.severity[runs[keep]] == BY_SEVERITY.index(Color.AT_RISK)
        total = np.bincount(cell, minlength=4 * n)[:4 * n].reshape(n, 4).T / hours
        at_risk = np.bincount(cell[risky], minlength=4 * n)[:4 * n].reshape(n, 4).T / hours
        if not with_bounded:
            return edges, total, at_risk, hours
        moves, lpm = self.bounded()
        kind, shown_runs = t.tr_kind[a:b][keep], runs[keep]
        bound = ((kind == 0) & moves[shown_runs]) | ((kind == 1) & lpm[shown_runs])
        bounded = np.bincount(cell[bound], minlength=4 * n)[:4 * n].reshape(n, 4).T / hours
        return edges, total, at_risk, hours, bounded

    def occupancy(self, at: int, rows: int = 12, *, with_bounded: bool = False) -> tuple:
        """Where the shown runs' memories are at ``at`` (``PLACES``), for the first display rows:
        (lane names, counts (n, 4)) and, ``with_bounded``, how many of each place's memories may
        have moved on already (n, 4): their next move is dated by an upper bound after ``at``
        (:meth:`bounded`)."""
        t = self.table
        rows = min(rows, self.rows)
        counts = np.zeros((rows, len(PLACES)), np.int64)
        maybe = np.zeros((rows, len(PLACES)), np.int64)
        names = [self.lane_name(r) for r in range(rows)]
        if rows == 0 or not len(t.mem_run):
            return (names, counts, maybe) if with_bounded else (names, counts)
        keep = self.shown[t.mem_run]
        row = self.lane_row[t.lane[t.mem_run[keep]]]
        times = t.mem_times[keep]
        place = np.full(len(row), -1, np.int8)
        held, left, mtm, lpm = (times[:, k] <= at for k in range(4))
        place[held] = 0
        place[left] = 3
        place[mtm] = 1
        place[lpm] = 2
        ok = (row >= 0) & (row < rows) & (place >= 0)
        np.add.at(counts, (row[ok], place[ok]), 1)
        if not with_bounded:
            return names, counts
        moves, promotions = self.bounded()
        final = (t.mem_final if t.mem_final is not None else t.mem_times)[keep]
        run = t.mem_run[keep]
        later = (final > at) & (final < NEVER)
        # in STM now, its move dated later by a bound; in MTM now, its promotion dated later by a bound
        unsure = np.where(place == 0, moves[run] & (later[:, 1] | later[:, 2]),
                          np.where(place == 1, promotions[run] & later[:, 3], False))
        sure = ok & unsure
        np.add.at(maybe, (row[sure], place[sure]), 1)
        return names, counts, maybe


def states_mask(state: np.ndarray, filters: Filters) -> np.ndarray:
    mask = np.ones(len(state), bool)
    if filters.states:
        wanted = np.zeros(10, bool)
        for name in filters.states:
            wanted[HealthState(name).rule] = True
        mask &= wanted[state]
    if filters.colors:
        wanted = np.zeros(10, bool)
        for s in HealthState:
            wanted[s.rule] = s.color in filters.colors
        mask &= wanted[state]
    return mask


def filter_mask(table: RunTable, state: np.ndarray, filters: Filters) -> np.ndarray:
    mask = states_mask(state, filters)
    if filters.scope.strip():
        text = filters.scope.strip().casefold()
        lanes = np.array([text in table.lane_name(k).casefold() for k in range(len(table.lanes))], bool)
        mask &= lanes[table.lane] if len(lanes) else False
    if filters.since_us is not None:
        mask &= table.end >= filters.since_us
    if filters.until_us is not None:
        mask &= table.start <= filters.until_us
    if filters.source_version is not None:
        having = np.zeros(len(table), bool)
        having[table.runs_with_source_version(filters.source_version)] = True
        mask &= having
    if filters.canary_only:
        mask &= table.canary
    if filters.run_text.strip():
        text = filters.run_text.strip().casefold()
        mask &= np.fromiter((text in run.casefold() for run in table.run_ids), bool, len(table))
    if filters.lanes:
        lanes = np.array([lane in filters.lanes for lane in table.lanes], bool)
        mask &= lanes[table.lane] if len(lanes) else False
    return mask


def build(table: RunTable, now_us: int, fresh_us: int, filters: Filters = Filters(), *, grid: bool = True,
          bins: int = GRID_BINS, source: RunTable | None = None) -> Timeline:
    """Judge every run at ``now_us``, apply ``filters`` and lay the shown runs out (see the module).

    ``table`` holds the runs as of ``now_us`` (``run_reads.as_of``: only receipts dated at or before
    it); ``source``, when given, is the whole table it was cut from (the axis spans it)."""
    state = table.states_at(now_us, fresh_us) if len(table) else np.zeros(0, np.int8)
    severity = RULE_SEVERITY[state]
    shown = filter_mask(table, state, filters) if len(table) else np.zeros(0, bool)
    n_lanes = len(table.lanes)
    lane_of = table.lane
    offsets = table.lane_offsets
    lane_worst = np.full(n_lanes, -1, np.int16)
    lane_worst_n = np.zeros(n_lanes, np.int64)
    if len(table):
        sev_shown = np.where(shown, severity, -1).astype(np.int16)
        starts = offsets[:-1]
        nonempty = offsets[1:] > starts
        lane_worst[nonempty] = np.maximum.reduceat(sev_shown, starts[nonempty])
        at_worst = (sev_shown == lane_worst[lane_of]) & shown
        lane_worst_n[nonempty] = np.add.reduceat(at_worst.astype(np.int64), starts[nonempty])
    visible = np.flatnonzero(lane_worst >= 0)
    order = visible[np.lexsort((visible, -lane_worst_n[visible], -lane_worst[visible]))]
    lane_row = np.full(n_lanes, -1, np.int32)
    lane_row[order] = np.arange(len(order), dtype=np.int32)
    idx = np.flatnonzero(shown)
    row = lane_row[lane_of[idx]]
    by_row = np.argsort(row, kind="stable")  # within a lane the table is already in start order
    idx, row = idx[by_row].astype(np.int32), row[by_row]
    start, end = table.start[idx], table.end[idx]
    row_offsets = np.searchsorted(row, np.arange(len(order) + 1)).astype(np.int64)
    row_maxdur = np.zeros(len(order), np.int64)
    if len(idx):
        row_maxdur = np.maximum.reduceat(end - start, row_offsets[:-1])
    counts = np.bincount(state[shown], minlength=10) if len(state) else np.zeros(10, np.int64)
    tl = Timeline(table, now_us, fresh_us, filters, state, severity, shown, order.astype(np.int32), lane_row, idx,
                  row, start, end, (severity[idx] + 1).astype(np.uint8), table.canary[idx], row_offsets, row_maxdur,
                  lane_worst[order].astype(np.int8),
                  state_counts={s: int(counts[s.rule]) for s in HealthState}, source=source)
    tl.color_counts = {c: sum(n for s, n in tl.state_counts.items() if s.color == c) for c in BY_SEVERITY}
    tl.track, tl.tracks, tl.row_tracks = tracks_of(start, end, row_offsets)
    if grid:
        add_grid(tl, bins)
    return tl


def tracks_of(start: np.ndarray, end: np.ndarray, row_offsets: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sub-tracks that keep overlapping runs of a row apart (as trace viewers stack spans):
    each bar (sorted by row, then start) takes the lowest track free at its start. A bar that
    overlaps nothing stays on track 0 without a Python step; only runs of overlapping bars
    are placed one by one. Returns (track per bar, tracks of its group of overlapping bars per
    bar — 1 for a bar alone, which keeps the lane's whole height —, tracks per row)."""
    n, rows = len(start), len(row_offsets) - 1
    track = np.zeros(n, np.int32)
    row_tracks = np.ones(rows, np.int32)
    if n < 2:
        return track, np.ones(n, np.int32), row_tracks
    row = np.repeat(np.arange(rows), np.diff(row_offsets))
    reach = end.copy()
    for r in range(rows):  # the furthest end so far within each row
        lo, hi = int(row_offsets[r]), int(row_offsets[r + 1])
        if hi > lo:
            reach[lo:hi] = np.maximum.accumulate(end[lo:hi])
    overlaps = np.zeros(n, bool)
    overlaps[1:] = (row[1:] == row[:-1]) & (start[1:] <= reach[:-1])
    clustered = overlaps.copy()
    clustered[:-1] |= overlaps[1:]  # the first bar of a cluster
    for first, last in _spans(clustered):
        free: list[int] = []  # the end of the last bar on each track
        for i in range(first, last):
            if i > first and row[i] != row[i - 1]:
                free = []
            k = next((k for k, until in enumerate(free) if until < start[i]), len(free))
            if k == len(free):
                free.append(int(end[i]))
            else:
                free[k] = int(end[i])
            track[i] = k
    np.maximum.at(row_tracks, row, track + 1)
    group = np.cumsum(~overlaps) - 1  # a bar that overlaps nothing before it starts a group
    group_tracks = np.ones(int(group[-1]) + 1, np.int32)
    np.maximum.at(group_tracks, group, track + 1)
    return track, group_tracks[group], row_tracks


def _spans(mask: np.ndarray) -> list[tuple[int, int]]:
    """[first, last) of each run of True in ``mask``."""
    edges = np.flatnonzero(np.diff(np.r_[0, mask.astype(np.int8), 0]))
    return list(zip(edges[0::2].tolist(), edges[1::2].tolist()))


@dataclass(frozen=True)
class Grid:
    t0: int
    bin_us: int
    levels: list[np.ndarray]
    overview: np.ndarray


def grid_of(tl: Timeline, bins: int = GRID_BINS) -> Grid:
    """The per-lane grid of worst state per bin over the table's whole span, its halvings
    and the all-lanes overview (the most severe state of any lane per bin). Pure: call it
    on any thread and hand the result to :meth:`Timeline.set_grid`."""
    lo, hi = tl.whole.span()
    bin_us = max(1, -(-(hi - lo + 1) // bins))
    level0 = raster.build_grid(tl.row, tl.start, tl.end, tl.value, tl.rows, lo, bin_us, bins)
    overview = level0.max(axis=0) if tl.rows else np.zeros(bins, np.uint8)
    return Grid(lo, bin_us, raster.pyramid(level0), overview)


def add_grid(tl: Timeline, bins: int = GRID_BINS) -> None:
    tl.set_grid(grid_of(tl, bins))


__all__ = ["BOUNDARIES", "GRID_BINS", "NEVER", "PLACES", "Filters", "Grid", "Timeline", "build", "filter_mask",
           "grid_of"]
