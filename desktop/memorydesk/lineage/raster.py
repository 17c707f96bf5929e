"""Most-severe-wins rasters of run bars (numpy; no Qt).

A bar is a row (lane), a first and a last cell (inclusive) and a value 1-5 (severity
+ 1; 0 is "empty"). Every function here keeps, in each cell, the highest value of the
bars that touch it, and a bar always touches at least one cell however narrow it is:
a run shorter than a pixel is never lost, and an at-risk run is never painted over.

- :func:`fill` — the cells × rows raster of a set of bars (difference arrays per value).
- :func:`build_grid` — the per-lane grid of worst state per time bin, with
  :func:`pyramid` halving it for coarser zooms (each level keeps the max of two bins).
- :func:`from_grid` — one screen row per lane from a grid level, a pixel taking the max of
  the bins it covers.
"""

from __future__ import annotations

import numpy as np

EMPTY = 0
LEVELS = 5  # values 1..5
CHUNK_CELLS = 1 << 21  # rows × cells handled at once (bounds the temporary arrays)


def fill(rows: np.ndarray, first: np.ndarray, last: np.ndarray, value: np.ndarray, n_rows: int,
         n_cells: int) -> np.ndarray:
    """A uint8 (n_rows, n_cells) raster: each cell the max ``value`` of the bars covering it.

    ``first``/``last`` are cell indices (inclusive) and may fall outside ``0..n_cells-1``:
    bars are clipped, and a bar entirely outside touches nothing. ``last < first`` is
    read as ``last = first``. ``rows`` need not be sorted.

    Short bars (the common case: a run is minutes long) are expanded to their cells and
    maxed in with ``np.maximum.at``; long ones go through difference arrays, one per
    value, over just the rows that hold them.
    """
    out = np.zeros((n_rows, n_cells), np.uint8)
    if n_rows == 0 or n_cells == 0 or len(rows) == 0:
        return out
    first = np.asarray(first, np.int64)
    last = np.maximum(np.asarray(last, np.int64), first)
    keep = (last >= 0) & (first < n_cells)
    rows = np.asarray(rows, np.int64)[keep]
    first = np.clip(first[keep], 0, n_cells - 1)
    last = np.clip(last[keep], 0, n_cells - 1)
    value = np.asarray(value, np.uint8)[keep]
    length = last - first + 1
    short = length <= SHORT
    flat = out.reshape(-1)
    index_type = np.int32 if n_rows * n_cells < 2**31 else np.int64
    if short.any():
        # in batches of about CHUNK_CELLS cells, so the temporary arrays stay small
        picked = np.flatnonzero(short)
        totals = np.cumsum(length[picked])
        cuts = np.searchsorted(totals, np.arange(CHUNK_CELLS, int(totals[-1]) + CHUNK_CELLS, CHUNK_CELLS), "right")
        lo = 0
        for hi in np.unique(np.r_[cuts, len(picked)]):
            part = picked[lo:hi]
            lo = hi
            if not len(part):
                continue
            n = length[part]
            base = (rows[part] * n_cells + first[part]).astype(index_type)
            ends = np.cumsum(n)
            cells = np.repeat(base - (ends - n).astype(index_type), n) + np.arange(int(ends[-1]), dtype=index_type)
            np.maximum.at(flat, cells, np.repeat(value[part], n))
    if not short.all():
        _fill_long(out, rows[~short], first[~short], last[~short], value[~short])
    return out


SHORT = 512  # cells: bars up to this long are expanded cell by cell


def _fill_long(out: np.ndarray, rows: np.ndarray, first: np.ndarray, last: np.ndarray, value: np.ndarray) -> None:
    n_cells = out.shape[1]
    width = n_cells + 1
    used, compact = np.unique(rows, return_inverse=True)
    step = max(1, CHUNK_CELLS // width)
    for lo in range(0, len(used), step):
        hi = min(len(used), lo + step)
        mine = (compact >= lo) & (compact < hi)
        r, f, la, v = compact[mine] - lo, first[mine], last[mine], value[mine]
        block = np.zeros((hi - lo, n_cells), np.uint8)
        size = (hi - lo) * width
        for level in range(LEVELS, 0, -1):
            at = v == level
            if not at.any():
                continue
            base = r[at] * width
            diff = np.bincount(base + f[at], minlength=size)
            diff -= np.bincount(base + la[at] + 1, minlength=size)
            covered = np.cumsum(diff.reshape(hi - lo, width), axis=1)[:, :n_cells] > 0
            block[covered & (block == EMPTY)] = level
        target = used[lo:hi]
        out[target] = np.maximum(out[target], block)


def build_grid(rows: np.ndarray, start: np.ndarray, end: np.ndarray, value: np.ndarray, n_rows: int,
               t0: int, bin_width: int, n_bins: int) -> np.ndarray:
    """The per-lane grid: bin ``k`` of a row covers ``[t0 + k*bin_width, t0 + (k+1)*bin_width)``."""
    first = (np.asarray(start, np.int64) - t0) // bin_width
    last = (np.asarray(end, np.int64) - t0) // bin_width
    return fill(rows, first, last, value, n_rows, n_bins)


def pyramid(grid: np.ndarray, smallest: int = 16) -> list[np.ndarray]:
    """``[grid, grid halved, halved again, …]`` down to ``smallest`` bins (max of pairs)."""
    levels = [grid]
    while levels[-1].shape[1] >= 2 * smallest and levels[-1].shape[1] % 2 == 0:
        g = levels[-1]
        levels.append(np.maximum(g[:, 0::2], g[:, 1::2]))
    return levels


def pick_level(levels: list[np.ndarray], base_bin: float, pixel: float) -> int:
    """The coarsest level whose bins are still no wider than a pixel (0 if none is)."""
    k = 0
    while k + 1 < len(levels) and base_bin * (1 << (k + 1)) <= pixel:
        k += 1
    return k


def from_grid(level: np.ndarray, bin_width: float, t0: float, x0: float, pixel: float, width: int) -> np.ndarray:
    """Rows of ``level`` as ``width`` pixels, pixel ``p`` covering ``[x0 + p*pixel, x0 + (p+1)*pixel)``.

    Each pixel takes the max of the bins that overlap it (bins no wider than a pixel,
    see :func:`pick_level`); pixels outside the grid are empty.
    """
    n_rows, n_bins = level.shape
    out = np.zeros((n_rows, width), np.uint8)
    if n_rows == 0 or width == 0 or n_bins == 0:
        return out
    edges = x0 + pixel * np.arange(width + 1)
    lo = np.floor((edges[:-1] - t0) / bin_width).astype(np.int64)
    hi = np.ceil((edges[1:] - t0) / bin_width).astype(np.int64) - 1  # last bin overlapping
    hi = np.maximum(hi, lo)
    inside = (hi >= 0) & (lo < n_bins)
    if not inside.any():
        return out
    cols = np.flatnonzero(inside)
    lo_c = np.clip(lo[cols], 0, n_bins - 1)
    hi_c = np.clip(hi[cols], 0, n_bins - 1)
    # [lo_i, hi_i] is [lo_i, lo_{i+1}) plus, when a pixel edge falls inside a bin, that
    # bin (hi_i = lo_{i+1}): a reduceat over the starts, then the max with level[hi].
    padded = np.concatenate([level, np.zeros((n_rows, 1), np.uint8)], axis=1)
    bounds = np.r_[lo_c, hi_c[-1] + 1]
    reduced = np.maximum.reduceat(padded, bounds, axis=1)[:, :-1]
    out[:, cols] = np.maximum(reduced, level[:, hi_c])
    return out
