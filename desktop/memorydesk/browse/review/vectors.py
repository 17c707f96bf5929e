"""Close pairs of active facts by cosine of their stored embeddings.

Below ``EXACT_UP_TO`` vectors every pair is compared (exact). Above, an inverted-file
index: the vectors are split into cells around k-means centres (trained on a seeded
sample), each vector is compared only with the vectors of its ``PROBES`` nearest cells.
Two facts at cosine ≥ 0.85 almost always share a cell or a neighbouring one (the tests
measure what this misses against every pair). Facts without a usable embedding are
skipped and counted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Connection

from memorydesk.embedding.embedder import BLOB_BYTES, DIM
from memorydesk.store import Workspace

EXACT_UP_TO = 6_000
PROBES = 3
_BLOCK = 2048


@dataclass
class Vectors:
    ids: list[str]
    matrix: np.ndarray  # (n, DIM) float32, unit rows
    skipped: int  # active facts without a usable embedding

    def position(self) -> dict[str, int]:
        return {fid: i for i, fid in enumerate(self.ids)}


def active_vectors(ws: Workspace, conn: Connection) -> Vectors:
    facts = ws.layout.facts.name
    rows = conn.exec_driver_sql(
        f"SELECT id, CASE WHEN length(embedding) = {BLOB_BYTES} THEN embedding END FROM {facts} "
        "WHERE superseded_by IS NULL AND workspace_id = ?", (ws.workspace_id,)).fetchall()
    good = [(r[0], r[1]) for r in rows if r[1] is not None]
    return Vectors([g[0] for g in good], unit_rows(b"".join(bytes(g[1]) for g in good), len(good)),
                   len(rows) - len(good))


def unit_rows(blob: bytes, n: int) -> np.ndarray:
    if n == 0:
        return np.zeros((0, DIM), dtype=np.float32)
    m = np.frombuffer(blob, dtype="<f4").reshape(n, DIM).astype(np.float32)
    m[~np.isfinite(m).all(axis=1)] = 0.0
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms


Pairs = dict[tuple[int, int], float]


def close_pairs(matrix: np.ndarray, threshold: float, *, seed: int = 0,
                cancelled: Callable[[], bool] | None = None) -> Pairs:
    """``{(i, j): cosine}`` for i < j with cosine ≥ ``threshold``."""
    n = len(matrix)
    if n < 2:
        return {}
    if n <= EXACT_UP_TO:
        return _pairs_between(matrix, np.arange(n), np.arange(n), threshold)
    return _ivf_pairs(matrix, threshold, seed, cancelled)


def pairs_of(matrix: np.ndarray, rows: np.ndarray, threshold: float) -> Pairs:
    """Pairs of ``rows`` (positions) with every vector: the rescan of a few changed facts."""
    return _pairs_between(matrix, rows, np.arange(len(matrix)), threshold)


def _pairs_between(matrix: np.ndarray, left: np.ndarray, right: np.ndarray, threshold: float) -> Pairs:
    out: Pairs = {}
    for at in range(0, len(left), _BLOCK):
        lo = left[at:at + _BLOCK]
        sims = matrix[lo] @ matrix[right].T
        ii, jj = np.nonzero(sims >= threshold)
        for a, b in zip(ii.tolist(), jj.tolist(), strict=True):
            i, j = int(lo[a]), int(right[b])
            if i != j:
                out[(min(i, j), max(i, j))] = float(sims[a, b])
    return out


def _centres(matrix: np.ndarray, cells: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sample = matrix[rng.choice(len(matrix), size=min(len(matrix), cells * 40), replace=False)]
    centres = sample[rng.choice(len(sample), size=cells, replace=False)].copy()
    for _ in range(6):
        assign = np.argmax(sample @ centres.T, axis=1)
        for c in range(cells):
            members = sample[assign == c]
            if len(members):
                v = members.sum(axis=0)
                centres[c] = v / (np.linalg.norm(v) or 1.0)
    return centres


def _ivf_pairs(matrix: np.ndarray, threshold: float, seed: int, cancelled: Callable[[], bool] | None) -> Pairs:
    n = len(matrix)
    cells = max(16, int(np.sqrt(n)))
    centres = _centres(matrix, cells, seed)
    near = np.empty((n, PROBES), dtype=np.int64)
    home = np.empty(n, dtype=np.int64)
    for at in range(0, n, 8192):
        scores = matrix[at:at + 8192] @ centres.T
        near[at:at + 8192] = np.argpartition(-scores, PROBES - 1, axis=1)[:, :PROBES]
        home[at:at + 8192] = np.argmax(scores, axis=1)
    members = [np.flatnonzero(home == c) for c in range(cells)]
    askers: list[list[int]] = [[] for _ in range(cells)]
    for i, row in enumerate(near.tolist()):
        for c in row:
            askers[c].append(i)
    out: Pairs = {}
    for c in range(cells):
        if cancelled is not None and cancelled():
            break
        if len(members[c]) and askers[c]:
            out.update(_pairs_between(matrix, np.asarray(askers[c]), members[c], threshold))
    return out


def clusters(pairs: Pairs, n: int) -> list[list[int]]:
    """Connected groups of two or more positions (union–find over the pairs)."""
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in pairs:
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, list[int]] = {}
    for i, j in pairs:
        for x in (i, j):
            groups.setdefault(root(x), [])
    for x in {x for p in pairs for x in p}:
        groups[root(x)].append(x)
    return [sorted(g) for g in groups.values() if len(g) > 1]
