"""Most-severe-wins rasters: a bar always touches a cell, and the worst state keeps its pixel —
checked against a cell-by-cell reference, and on a crafted lane where one at-risk run is far
narrower than a pixel among hundreds of healthy ones."""

from __future__ import annotations

import numpy as np
import pytest

from memorydesk.core.health.arrays import ClockColumns
from memorydesk.lineage import raster
from memorydesk.lineage.runs import assemble
from memorydesk.lineage.timeline import build, grid_of

AT_RISK, HEALTHY = 5, 1  # raster values: severity + 1


def reference(rows, first, last, value, n_rows, n_cells) -> np.ndarray:
    out = np.zeros((n_rows, n_cells), np.uint8)
    for r, a, b, v in zip(rows, first, last, value):
        b = max(a, b)
        if b < 0 or a >= n_cells:
            continue
        a, b = max(a, 0), min(b, n_cells - 1)
        out[r, a:b + 1] = np.maximum(out[r, a:b + 1], v)
    return out


@pytest.mark.parametrize("short, chunk", [(512, raster.CHUNK_CELLS), (2, 1000), (0, 50)])
def test_fill_keeps_the_max_of_every_bar_in_every_cell(short, chunk, monkeypatch) -> None:
    monkeypatch.setattr(raster, "SHORT", short)
    monkeypatch.setattr(raster, "CHUNK_CELLS", chunk)
    rng = np.random.default_rng(7)
    n = 5000
    rows = rng.integers(0, 40, n)
    first = rng.integers(-20, 300, n)
    last = first + np.where(rng.random(n) < 0.1, rng.integers(0, 250, n), rng.integers(-2, 3, n))
    value = rng.integers(1, 6, n)
    got = raster.fill(rows, first, last, value, 40, 256)
    assert np.array_equal(got, reference(rows, first, last, value, 40, 256))


def test_pyramid_and_from_grid_keep_the_max_of_what_a_pixel_covers() -> None:
    rng = np.random.default_rng(3)
    grid = (rng.random((6, 512)) < 0.02).astype(np.uint8) * rng.integers(1, 6, (6, 512)).astype(np.uint8)
    levels = raster.pyramid(grid)
    for k, level in enumerate(levels):
        assert np.array_equal(level, grid.reshape(6, -1, 1 << k).max(axis=2))
    for x0, pixel, width in ((0.0, 3.0, 170), (-10.5, 7.25, 80), (100.2, 1.0, 300), (0.0, 512 / 37, 37)):
        got = raster.from_grid(grid, 1.0, 0.0, x0, pixel, width)
        for p in range(width):
            lo, hi = x0 + p * pixel, x0 + (p + 1) * pixel
            cells = [c for c in range(512) if c < hi and c + 1 > lo]
            want = grid[:, cells].max(axis=1) if cells else np.zeros(6, np.uint8)
            assert np.array_equal(got[:, p], want), (x0, pixel, p)
    assert raster.pick_level(levels, 1.0, 5.0) == 2 and raster.pick_level(levels, 1.0, 0.5) == 0


def crafted_table(healthy: int = 800):
    """One lane of back-to-back healthy runs over ten days, and one at-risk run of one
    second in the middle (a ten-thousandth of a pixel at 800 pixels)."""
    day = 86_400_000_000
    start = np.arange(healthy, dtype=np.int64) * (10 * day // healthy)
    end = start + 10 * day // healthy - 1
    risky = np.int64(5 * day + 12_345_678)
    n = healthy + 1
    clock = ClockColumns.empty(n)
    clock.fixed[:] = 0
    clock.newest[:] = np.r_[end, risky + 1_000_000]
    clock.fixed[-1] = 2  # source_at_risk, whatever the time
    return assemble([f"run-{i:04d}" for i in range(n)], [("user", "assistant")], np.zeros(n, np.int64),
                    np.r_[start, risky], np.r_[end, risky + 1_000_000], np.ones(n, np.int32), np.zeros(n, bool),
                    clock, [], np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                    np.zeros(0, np.int8), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 4), np.int64), 0)


def test_a_sub_pixel_at_risk_run_is_never_lost() -> None:
    table = crafted_table()
    tl = build(table, now_us=int(table.end.max()), fresh_us=10**15)
    assert tl.rows == 1 and int((tl.value == AT_RISK).sum()) == 1
    lo, hi = table.span()
    width = 800
    pixel = (hi - lo) / width
    at = int((5 * 86_400_000_000 + 12_345_678 - lo) // pixel)
    # straight from the bars (no grid yet), then from the grid and each of its halvings
    direct = tl.raster(0, 1, lo, pixel, width)
    assert direct[0, at] == AT_RISK and (direct[0] == AT_RISK).sum() == 1
    assert (direct[0] == HEALTHY).sum() == width - 1  # everything else is healthy, nothing empty
    tl.set_grid(grid_of(tl))
    from_grid = tl.raster(0, 1, lo, pixel, width)
    assert abs(int(np.flatnonzero(from_grid[0] == AT_RISK)[0]) - at) <= 1
    for k, level in enumerate(tl.levels):
        assert (level[0] == AT_RISK).sum() >= 1, k
    assert (tl.overview == AT_RISK).sum() == 1
    # narrower still: the whole span in 37 pixels (a grid bin on a pixel edge shows in both)
    coarse = tl.raster(0, 1, lo, (hi - lo) / 37, 37)
    marked = np.flatnonzero(coarse[0] == AT_RISK)
    assert 1 <= len(marked) <= 2 and marked[-1] - marked[0] <= 1
