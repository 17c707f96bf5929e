"""Close pairs of active facts by cosine of their stored embeddings.

Below ``EXACT_UP_TO`` vectors every pair is compared (exact). Above, an inverted-file
index: the vectors are split into cells around k-means centres (trained on a seeded
sample), each vector is compared only with the vectors of its ``PROBES`` nearest cells.
Two facts at cosine ≥ 0.85 almost always share a cell or a neighbouring one (the tests
measure what this misses against every pair). Facts without a usable embedding are
skipped and counted.

Why an index of our own and not a library's (docs/architecture.md, "Second paths kept"):
what the review needs is every pair above a cosine (a range search), and the cells here are
compared with numpy's matrix products (BLAS). faiss (``IndexIVFFlat.range_search``, the same
cells and probes) found the same pairs on 100,000 vectors but took about three times as long
(28.8 s against 10.5 s, ``tests/bench/bench_review.py -k faiss``) and would add about 66 MB to
the app; the nearest-neighbour libraries (hnswlib, usearch) answer the k nearest, not a range.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
    """The active facts' unit vectors, by row. A rescan patches them in place (``patch``): the
    rows of facts that changed or left are marked dead, the changed facts' vectors appended,
    so the matrix is never copied for a few changed facts."""

    ids: list[str | None]  # by row; None: a dead row
    matrix: np.ndarray  # (capacity, DIM) float32, unit rows; rows from len(ids) on are unused
    skipped: int  # active facts without a usable embedding
    alive: np.ndarray | None = None  # (capacity,) bool; None: every row in ids
    _where: dict[str, int] | None = None

    def position(self) -> dict[str, int]:
        if self._where is None:
            self._where = {fid: i for i, fid in enumerate(self.ids) if fid is not None}
        return self._where

    @property
    def live(self) -> int:
        return len(self.position())

    def rows(self) -> np.ndarray:
        """The used rows (a view, dead rows included: mask them with ``live_mask``)."""
        return self.matrix[:len(self.ids)]

    def live_mask(self) -> np.ndarray | None:
        return None if self.alive is None else self.alive[:len(self.ids)]

    def patch(self, drop: Iterable[str], add_ids: list[str], add_rows: np.ndarray) -> None:
        """Rows of ``drop`` dead (ids not held are ignored), then ``add_ids`` appended (an id
        held already is dropped first): patching twice with the same change is patching once."""
        where = self.position()
        if self.alive is None:
            self.alive = np.ones(len(self.matrix), dtype=bool)
            self.alive[len(self.ids):] = False
        for fid in (*drop, *add_ids):
            at = where.pop(fid, None)
            if at is not None:
                self.alive[at] = False
                self.ids[at] = None
        if not add_ids:
            return
        used, need = len(self.ids), len(self.ids) + len(add_ids)
        if need > len(self.matrix):
            grown = max(need, len(self.matrix) + len(self.matrix) // 8 + 1024)
            matrix = np.empty((grown, self.matrix.shape[1]), dtype=np.float32)
            matrix[:used] = self.matrix[:used]
            alive = np.zeros(grown, dtype=bool)
            alive[:used] = self.alive[:used]
            self.matrix, self.alive = matrix, alive
        self.matrix[used:need] = add_rows
        self.alive[used:need] = True
        for k, fid in enumerate(add_ids):
            where[fid] = used + k
        self.ids.extend(add_ids)
        if len(self.ids) - len(where) > max(1024, len(where) // 4):
            self._compact()

    def _compact(self) -> None:
        keep = np.flatnonzero(self.alive[:len(self.ids)])
        self.matrix = self.matrix[keep]
        self.ids = [self.ids[i] for i in keep.tolist()]
        self.alive, self._where = None, None


def active_vectors(ws: Workspace, conn: Connection) -> Vectors:
    facts = ws.layout.facts.name
    rows = conn.exec_driver_sql(
        f"SELECT id, CASE WHEN length(embedding) = {BLOB_BYTES} THEN embedding END FROM {facts} "
        "WHERE superseded_by IS NULL AND workspace_id = ?", (ws.workspace_id,)).fetchall()
    good = [(r[0], r[1]) for r in rows if r[1] is not None]
    spare = len(good) // 16 + 1024  # rescans append here before the matrix is ever copied
    return Vectors([g[0] for g in good], unit_rows(b"".join(bytes(g[1]) for g in good), len(good), spare),
                   len(rows) - len(good))


def unit_rows(blob: bytes, n: int, spare: int = 0) -> np.ndarray:
    """``n`` stored vectors as unit rows (a vector that is not finite reads as zeros), in a
    matrix with ``spare`` more rows left unused (room for a rescan's new vectors)."""
    out = np.empty((n + spare, DIM), dtype=np.float32)
    if n == 0:
        return out
    m = np.frombuffer(blob, dtype="<f4").reshape(n, DIM).astype(np.float32)
    m[~np.isfinite(m).all(axis=1)] = 0.0
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    np.divide(m, norms, out=out[:n])
    return out


Pairs = dict[tuple[int, int], float]  # what ``clusters`` groups: (i, j) → cosine


@dataclass(frozen=True)
class PairArrays:
    """Close pairs as arrays (positions ``i`` < ``j``, each pair once, and its cosine): a
    templated workspace has millions, which a dict of tuples would build one by one."""

    i: np.ndarray
    j: np.ndarray
    cos: np.ndarray

    def __len__(self) -> int:
        return len(self.i)

    @staticmethod
    def joined(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> PairArrays:
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            return PairArrays(empty, empty, np.zeros(0, dtype=np.float32))
        i = np.concatenate([p[0] for p in parts])
        j = np.concatenate([p[1] for p in parts])
        c = np.concatenate([p[2] for p in parts])
        keys = i * (int(max(i.max(initial=0), j.max(initial=0))) + 1) + j
        _u, first = np.unique(keys, return_index=True)  # a pair found from both sides (or two cells) once
        return PairArrays(i[first], j[first], c[first])


def close_pair_arrays(matrix: np.ndarray, threshold: float, *, seed: int = 0,
                      cancelled: Callable[[], bool] | None = None) -> PairArrays:
    """Every pair i < j of rows with cosine ≥ ``threshold``: exact up to ``EXACT_UP_TO`` rows,
    through the index above."""
    n = len(matrix)
    if n < 2:
        return PairArrays.joined([])
    if n <= EXACT_UP_TO:
        return PairArrays.joined(_blocks(matrix, np.arange(n), None, threshold))
    return _ivf(matrix, threshold, seed, cancelled)


def pair_arrays_of(matrix: np.ndarray, rows: np.ndarray, threshold: float,
                   live: np.ndarray | None = None) -> PairArrays:
    """Pairs of ``rows`` (positions) with every vector, exact (the rescan of a few changed facts;
    every row: every pair); ``live`` (bool by row): only pairs whose both rows are live."""
    return PairArrays.joined(_blocks(matrix, rows, None, threshold, live))


def _blocks(matrix: np.ndarray, left: np.ndarray, right: np.ndarray | None, threshold: float,
            live: np.ndarray | None = None) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Every (i < j, cosine) at or above ``threshold`` between ``left`` and ``right`` positions
    (``right`` None: every row of ``matrix``, read in place; ``live``: rows that count)."""
    out = []
    if right is None:
        theirs, right = matrix, None
    else:
        right = np.asarray(right, dtype=np.int64)
        theirs = matrix[right]
    for at in range(0, len(left), _BLOCK):
        lo = np.asarray(left[at:at + _BLOCK], dtype=np.int64)
        sims = matrix[lo] @ theirs.T
        ii, jj = np.nonzero(sims >= threshold)
        a, b = lo[ii], (jj if right is None else right[jj])
        keep = a != b
        if live is not None:
            keep &= live[a] & live[b]
        a, b, c = a[keep], b[keep], sims[ii[keep], jj[keep]]
        out.append((np.minimum(a, b), np.maximum(a, b), c.astype(np.float32)))
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


def _ivf(matrix: np.ndarray, threshold: float, seed: int, cancelled: Callable[[], bool] | None) -> PairArrays:
    n = len(matrix)
    cells = max(16, int(np.sqrt(n)))
    centres = _centres(matrix, cells, seed)
    near = np.empty((n, PROBES), dtype=np.int64)
    home = np.empty(n, dtype=np.int64)
    for at in range(0, n, 8192):
        scores = matrix[at:at + 8192] @ centres.T
        near[at:at + 8192] = np.argpartition(-scores, PROBES - 1, axis=1)[:, :PROBES]
        home[at:at + 8192] = np.argmax(scores, axis=1)
    by_home = np.argsort(home, kind="stable")
    home_starts = np.searchsorted(home[by_home], np.arange(cells + 1))
    flat = near.ravel()
    by_cell = np.argsort(flat, kind="stable")
    ask_starts = np.searchsorted(flat[by_cell], np.arange(cells + 1))
    askers_of = by_cell // PROBES  # the vector each probe belongs to
    parts = []
    for c in range(cells):
        if cancelled is not None and cancelled():
            break
        members = by_home[home_starts[c]:home_starts[c + 1]]
        askers = askers_of[ask_starts[c]:ask_starts[c + 1]]
        if len(members) and len(askers):
            parts += _blocks(matrix, askers, members, threshold)
    return PairArrays.joined(parts)


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


def stored_vectors(ws: Workspace, conn: Connection, ids: list[str]) -> dict[str, np.ndarray]:
    """The unit vectors of these facts' stored embeddings (facts without a usable one left out)."""
    facts = ws.layout.facts.name
    out: dict[str, np.ndarray] = {}
    for at in range(0, len(ids), 500):
        chunk = ids[at:at + 500]
        marks = ",".join("?" * len(chunk))
        rows = conn.exec_driver_sql(f"SELECT id, embedding FROM {facts} WHERE id IN ({marks}) "
                                    f"AND length(embedding) = {BLOB_BYTES}", tuple(chunk)).fetchall()
        if rows:
            unit = unit_rows(b"".join(bytes(r[1]) for r in rows), len(rows))
            out.update({r[0]: unit[k] for k, r in enumerate(rows)})
    return out
