"""Force and stress layouts for the small graphs the Knowledge Graph lays out (pure numpy).

Three tools, each O(n²) per step and meant for n up to a few hundred:

- ``spring``: Fruchterman and Reingold's force model (every pair repels with k²/d, each
  edge attracts with w·d²/k, the step limited by a falling temperature), with the
  repulsion as one (n, n) array per step and the attraction summed over the edge list.
- ``separate``: pushes discs apart until none overlaps another; ``pack`` draws discs
  together around their middle and apart again, round after round.
- ``stress``: stress majorization with weights 1/d² (each step moves every node to
  where its distances to the others, as they are, would best be met): places nodes so
  that their distances match the graph's shortest-path distances, the energy Kamada and
  Kawai minimise; the distances are networkx's (``path_lengths``). No linear algebra library
  call (its threads spin for nothing on a busy machine at these sizes).

Every function is deterministic for the same input.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

__all__ = ["pack", "path_lengths", "separate", "spring", "stress"]


def spring(init: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray, *, iterations: int = 60,
           k: float | None = None, gravity: float = 1.0) -> np.ndarray:
    """Positions after ``iterations`` force steps from ``init`` ((n, 2)); edges ``a``–``b``
    with weights ``w``; ``gravity`` pulls every node towards the middle in proportion to
    its distance (so that a node with few edges is not pushed off to the rim). The result
    is scaled into [-1, 1]²."""
    pos = np.asarray(init, np.float64).copy()
    n = len(pos)
    if n < 2:
        return pos
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    w = np.asarray(w, np.float64)
    pos -= pos.mean(0)
    pos /= max(np.abs(pos).max(), 1e-9)
    k = k if k is not None else 1.0 / np.sqrt(n)
    t = 0.1 * max(np.ptp(pos[:, 0]), np.ptp(pos[:, 1]), 1e-3)
    cool = t / (iterations + 1)
    p32 = pos.astype(np.float32)
    for _ in range(iterations):
        dx = p32[:, None, 0] - p32[None, :, 0]
        dy = p32[:, None, 1] - p32[None, :, 1]
        d2 = dx * dx + dy * dy
        np.maximum(d2, 1e-6, out=d2)
        rep = np.float32(k * k) / d2
        np.fill_diagonal(rep, 0)
        fx = (dx * rep).sum(1, dtype=np.float64)
        fy = (dy * rep).sum(1, dtype=np.float64)
        if len(a):
            ex = pos[a, 0] - pos[b, 0]
            ey = pos[a, 1] - pos[b, 1]
            pull = w * np.sqrt(ex * ex + ey * ey) / k  # w·d²/k along the edge: d · (w·d/k)
            fx -= np.bincount(a, ex * pull, n) - np.bincount(b, ex * pull, n)
            fy -= np.bincount(a, ey * pull, n) - np.bincount(b, ey * pull, n)
        if gravity:
            centre = pos.mean(0)
            fx -= gravity * (pos[:, 0] - centre[0])
            fy -= gravity * (pos[:, 1] - centre[1])
        length = np.sqrt(fx * fx + fy * fy)
        np.maximum(length, 0.01, out=length)
        step = np.minimum(length, t) / length
        pos[:, 0] += fx * step
        pos[:, 1] += fy * step
        p32 = pos.astype(np.float32)
        t -= cool
    pos -= pos.mean(0)
    return pos / max(np.abs(pos).max(), 1e-9)


def separate(pos: np.ndarray, radius: np.ndarray, gap: float, rounds: int = 40) -> np.ndarray:
    """Discs at ``pos`` with ``radius`` pushed apart until none overlaps (``gap`` between
    them, within a thousandth of it) or ``rounds`` passes have run; each overlapping pair
    moves apart a little over half the overlap each."""
    pos = np.asarray(pos, np.float64).copy()
    n = len(pos)
    if n < 2:
        return pos
    r = np.asarray(radius, np.float64)
    need = (r[:, None] + r[None, :] + gap).astype(np.float32)
    np.fill_diagonal(need, 0)  # a disc and itself: nothing to keep apart
    tol = max(gap, 1e-3) * 1e-3
    for _ in range(rounds):
        p32 = pos.astype(np.float32)
        dx = p32[:, None, 0] - p32[None, :, 0]
        dy = p32[:, None, 1] - p32[None, :, 1]
        dist = np.sqrt(dx * dx + dy * dy)
        overlap = need - dist
        if overlap.max() <= tol:
            break
        np.maximum(overlap, 0, out=overlap)
        np.maximum(dist, 1e-6, out=dist)
        share = overlap * np.float32(0.52) / dist
        pos[:, 0] += (dx * share).sum(1, dtype=np.float64)
        pos[:, 1] += (dy * share).sum(1, dtype=np.float64)
    return pos


def pack(pos: np.ndarray, radius: np.ndarray, gap: float, rounds: int = 80, pull: float = 0.06) -> np.ndarray:
    """Discs at ``pos`` (a spring layout's unit positions) packed close around their middle
    without overlapping: each round draws every disc a little towards the middle, then
    pushes overlapping ones apart, so that neighbours stay neighbours and no disc is left
    far out on its own."""
    r = np.asarray(radius, np.float64)
    n = len(r)
    if n < 2:
        return np.zeros((n, 2))
    span = np.sqrt(((r + gap) ** 2).sum())
    pos = np.asarray(pos, np.float64) * span
    area = (r + gap) ** 2
    for i in range(rounds):  # the pull weakens round by round, so that the discs settle
        centre = (pos * area[:, None]).sum(0) / area.sum()
        pos += (centre - pos) * pull * (1 - i / rounds)
        pos = separate(pos, r, gap, rounds=3)
    return separate(pos, r, gap, rounds=100)


def path_lengths(n: int, direct: np.ndarray) -> np.ndarray:
    """Shortest-path lengths between every two of ``n`` nodes joined where ``direct`` ((n, n),
    symmetric) is finite, by that length; ``inf`` between nodes no path joins (networkx's
    Floyd–Warshall over arrays: a few milliseconds at a focus's few hundred nodes)."""
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    rows, cols = np.nonzero(np.isfinite(direct))
    graph.add_weighted_edges_from((i, j, direct[i, j]) for i, j in zip(rows.tolist(), cols.tolist()) if i < j)
    return np.asarray(nx.floyd_warshall_numpy(graph, nodelist=range(n)), np.float64)


def stress(init: np.ndarray, a: np.ndarray, b: np.ndarray, length: np.ndarray, *, fixed: int = 0,
           iterations: int = 100, tol: float = 1e-3) -> np.ndarray:
    """Positions whose distances match the shortest paths of the graph (edges ``a``–``b``
    of ``length``), started from ``init`` ((n, 2)); node ``fixed`` stays at the origin.
    Nodes the edges do not join are kept half again beyond the farthest distance."""
    n = len(init)
    pos = np.asarray(init, np.float64).copy()
    if n < 3:
        return pos - pos[fixed]
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    ok = a != b
    direct = np.full((n, n), np.inf)
    np.minimum.at(direct, (a[ok], b[ok]), np.asarray(length, np.float64)[ok])  # the shortest of parallel edges
    direct = np.minimum(direct, direct.T)
    d = path_lengths(n, direct)
    finite = np.isfinite(d)
    far = max(float(d[finite].max()) if finite.any() else 1.0, 1.0)
    d[~finite] = far * 1.5
    np.fill_diagonal(d, 1.0)
    weight = 1.0 / (d * d)
    np.fill_diagonal(weight, 0)
    np.fill_diagonal(d, 0)
    total = weight.sum(1)[:, None]
    pos -= pos[fixed]
    span = np.hypot(pos[:, None, 0] - pos[None, :, 0], pos[:, None, 1] - pos[None, :, 1])
    if (span * span).sum() > 0:  # start at the scale the distances ask for
        pos *= (d * span).sum() / (span * span).sum()
    weight, wd, d = weight.astype(np.float32), (weight * d).astype(np.float32), d.astype(np.float32)
    pos = pos.astype(np.float32)
    previous = np.inf
    for _ in range(iterations):
        dx = pos[:, None, 0] - pos[None, :, 0]
        dy = pos[:, None, 1] - pos[None, :, 1]
        span = np.sqrt(dx * dx + dy * dy)
        gap = span - d
        energy = float((weight * gap * gap).sum())
        if np.isfinite(previous) and abs(previous - energy) <= tol * previous:
            break
        previous = energy
        np.maximum(span, 1e-6, out=span)
        pull = wd / span  # each node to where its distances to the others, as they are now, are best met
        moved = np.einsum("ij,jk->ik", weight, pos) + np.stack([(pull * dx).sum(1), (pull * dy).sum(1)], axis=1)
        pos = (moved / total).astype(np.float32)
        pos -= pos[fixed]
    return pos.astype(np.float64)
