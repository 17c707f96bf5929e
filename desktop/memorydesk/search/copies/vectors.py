"""A copy of our sqlite-vec index in memory, answering its KNN query exactly, kept in step.

The KNN query (``vec0``) scans every vector in C on each search. The copy holds the same
float32 vectors in one matrix laid out as the index lays them out: chunk after chunk
(ascending ``chunk_id``, the order the KNN scans them), slot after slot, with empty
slots left as holes that can never be near (their squared norm is infinite). A float32
product gives every distance to within a bound far below the gaps that matter; the few
candidates within that bound of the k-th are measured again with sqlite-vec's own
``vec_distance_l2`` (the function its KNN uses, so the same bits) and sorted. Equal
distances (identical vectors are common: a fact stored twice) come out in the index's
own order: sqlite-vec 0.1.9 keeps the earlier chunk first and, within a chunk, the later
slot first. That order is only assumed for the version the tests check it on; with
any other version equal distances send the query to the KNN query itself.

Following the file: the chunk table says, per chunk, which slots are in use
(``validity``) and which index row each slot holds (``rowids``); a slot whose bits or
row changed is read again (its fact id from the rowid table, its vector through the
index). sqlite-vec writes a changed vector as a delete and an insert (so does the desk),
which always shows there; a vector rewritten in place under the same row is caught only
when its fact changed too (``refresh``). Anything unexpected (another layout, a chunk
that vanished, NaN) makes the copy unusable and the caller rebuilds.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memorydesk.embedding.embedder import DIM, to_blob
from memorydesk.store.ours import VECTOR_TABLE

__all__ = ["TIE_ORDER_VERSION", "CopyUnusable", "VectorCopy"]

#: The sqlite-vec release whose order of equal distances ``nearest`` reproduces (tested).
TIE_ORDER_VERSION = "v0.1.9"
#: Candidates measured exactly at most; beyond that (a crowd of near-identical vectors) the KNN query answers.
MAX_CANDIDATES = 4096
#: Query vectors ``prepare`` puts through one matrix product, and the answers it keeps at most.
PREPARE_BATCH = 64
PREPARED_MAX = 512
_ROW_BYTES = DIM * 4
_T = VECTOR_TABLE


class CopyUnusable(Exception):
    """The index is laid out in a way the copy does not follow; rebuild or ask the KNN query."""


def _check_layout(run: Any) -> None:
    expected = {
        f"{_T}_chunks": ["chunk_id", "size", "validity", "rowids"],
        f"{_T}_rowids": ["rowid", "id", "chunk_id", "chunk_offset"],
        f"{_T}_vector_chunks00": ["rowid", "vectors"],
    }
    for table, columns in expected.items():
        if [r[1] for r in run(f"PRAGMA table_info({table})")] != columns:
            raise CopyUnusable(f"{table} is not laid out as expected")
    if run(f"SELECT 1 FROM sqlite_master WHERE name = '{_T}_vector_chunks01'").fetchall():
        raise CopyUnusable("a second vector column")


def _slots(validity: bytes, size: int) -> np.ndarray:
    return np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size].astype(bool)


@dataclass
class VectorCopy:
    """The index's vectors by (chunk, slot), and the index row each slot holds (-1: empty)."""

    chunk_size: int
    matrix: np.ndarray  # (capacity, DIM) float32
    sq_norms: np.ndarray  # (capacity,) float32, inf for an empty slot
    slot_rowid: np.ndarray  # (capacity,) int64: the index's own rowid in the slot (its ``_rowids`` row)
    chunk_ids: list[int] = field(default_factory=list)  # block b holds chunk chunk_ids[b]
    block_of: dict[int, int] = field(default_factory=dict)
    state: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)  # chunk -> (validity, rowids)
    tie_order: bool = True
    max_norm: float = 0.0
    #: answers ``prepare`` worked out for this state of the copy: (query bytes, k) -> answer
    prepared: dict[tuple[bytes, int], list[tuple[str, float]]] = field(default_factory=dict)

    @property
    def used(self) -> int:
        return len(self.chunk_ids) * self.chunk_size

    @property
    def count(self) -> int:
        return int((self.slot_rowid[: self.used] >= 0).sum())

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes + self.sq_norms.nbytes + self.slot_rowid.nbytes
                   + sum(len(v) + len(r) for v, r in self.state.values()))

    @staticmethod
    def planned_bytes(raw: Any) -> int:
        """What a copy of the index would take (to decide whether it fits the budget)."""
        n, size = raw.execute(f"SELECT count(*), max(size) FROM {_T}_chunks").fetchone()
        n, size = n or 0, size or 0
        return int((n + max(4, n // 64)) * size * (_ROW_BYTES + 4 + 8) + n * (size // 8 + 8 * size))

    @classmethod
    def build(cls, raw: Any) -> VectorCopy:
        run = raw.execute
        _check_layout(run)
        sizes = {int(r[0]) for r in run(f"SELECT DISTINCT size FROM {_T}_chunks")}
        if len(sizes) > 1:
            raise CopyUnusable("chunks of different sizes")
        size = sizes.pop() if sizes else 1024
        chunks = run(f"SELECT chunk_id, validity, rowids FROM {_T}_chunks ORDER BY chunk_id").fetchall()
        capacity = (len(chunks) + max(4, len(chunks) // 64)) * size
        copy = cls(size, np.zeros((capacity, DIM), dtype=np.float32), np.full(capacity, np.inf, dtype=np.float32),
                   np.full(capacity, -1, dtype=np.int64),
                   tie_order=run("SELECT vec_version()").fetchone()[0] == TIE_ORDER_VERSION)
        for chunk_id, validity, rowids in chunks:
            chunk_id, validity, rowids = int(chunk_id), bytes(validity), bytes(rowids)
            if len(validity) * 8 < size or len(rowids) != size * 8:
                raise CopyUnusable("a chunk of an unexpected shape")
            copy._add_block(chunk_id)
            base = copy._position(chunk_id, 0)
            valid = _slots(validity, size)
            copy.slot_rowid[base : base + size] = np.where(valid, np.frombuffer(rowids, dtype="<i8"), -1)
            copy.state[chunk_id] = (validity, rowids)
        for chunk_id, vectors in run(f"SELECT rowid, vectors FROM {_T}_vector_chunks00"):  # a scan: no sorting of blobs
            if not isinstance(chunk_id, int) or chunk_id not in copy.block_of:
                continue  # a vector chunk without a chunk row is not scanned by the KNN either
            if vectors is None or len(vectors) != size * _ROW_BYTES:
                raise CopyUnusable("a chunk without its vectors")
            base = copy._position(chunk_id, 0)
            copy.matrix[base : base + size] = np.frombuffer(vectors, dtype="<f4").reshape(size, DIM)
            copy.sq_norms[base : base + size] = 0.0  # marks the block as read
        used = copy.used
        valid = copy.slot_rowid[:used] >= 0
        if bool(np.isinf(copy.sq_norms[:used][valid]).any()):
            raise CopyUnusable("a chunk in use without its vector row")
        copy.matrix[np.flatnonzero(~valid)] = 0.0
        norms = np.einsum("ij,ij->i", copy.matrix[:used], copy.matrix[:used])
        if not bool(np.isfinite(norms[valid]).all()):  # NaN or infinity in a vector gives a norm that is not finite
            raise CopyUnusable("a vector that is not finite")  # NaN distances: only the KNN knows
        copy.sq_norms[:used] = np.where(valid, norms, np.inf)
        copy.max_norm = float(np.sqrt(norms[valid].max())) if valid.any() else 0.0
        copy._check_rowids(run, np.flatnonzero(valid))
        return copy

    def _check_rowids(self, run: Any, slots: np.ndarray) -> None:
        """Every slot in use is where the rowid table says its row is (or the KNN query answers)."""
        (found,) = run(f"SELECT group_concat(printf('%016x%016x%016x', rowid, chunk_id, chunk_offset), '') "
                       f"FROM {_T}_rowids WHERE chunk_id IS NOT NULL").fetchone()
        table = np.frombuffer(bytes.fromhex(found or ""), dtype=">i8").reshape(-1, 3).astype(np.int64)
        if len(table) != len(slots):
            raise CopyUnusable("the rowid table and the chunks disagree on how many vectors there are")
        if run(f"SELECT 1 FROM {_T}_rowids WHERE chunk_id IS NOT NULL AND typeof(id) <> 'text' LIMIT 1").fetchall():
            raise CopyUnusable("a fact id that is not text")
        order = np.argsort(table[:, 0])
        table = table[order]
        held = self.slot_rowid[slots]
        at = np.searchsorted(table[:, 0], held)
        at[at >= len(table)] = 0
        blocks = np.asarray(self.chunk_ids, dtype=np.int64)[slots // self.chunk_size]
        if not (np.array_equal(table[at, 0], held) and np.array_equal(table[at, 1], blocks)
                and np.array_equal(table[at, 2], slots % self.chunk_size)):
            raise CopyUnusable("the rowid table and the chunks disagree")

    # --- following ----------------------------------------------------------------------

    def follow(self, raw: Any, changed: list[tuple[str, bytes | None]]) -> int:
        """Bring the copy to the connection's snapshot; how many slots were read again."""
        self.prepared.clear()  # worked out for the state before
        run = raw.execute
        seen = set()
        redone = 0
        for chunk_id, size, validity, rowids in run(
                f"SELECT chunk_id, size, validity, rowids FROM {_T}_chunks ORDER BY chunk_id").fetchall():
            chunk_id, validity, rowids = int(chunk_id), bytes(validity), bytes(rowids)
            seen.add(chunk_id)
            if int(size) != self.chunk_size or len(validity) * 8 < self.chunk_size or len(rowids) != size * 8:
                raise CopyUnusable("a chunk of an unexpected shape")
            old = self.state.get(chunk_id)
            if old == (validity, rowids):
                continue
            if old is None:
                if self.chunk_ids and chunk_id < self.chunk_ids[-1]:
                    raise CopyUnusable("a new chunk before the last one")
                self._add_block(chunk_id)
                old = (bytes(len(validity)), rowids)
            redone += self._patch_chunk(raw, chunk_id, old, validity, rowids)
        if seen != set(self.state):
            raise CopyUnusable("a chunk vanished")
        return redone + self.refresh(raw, changed)

    def refresh(self, raw: Any, changed: list[tuple[str, bytes | None]]) -> int:
        """Facts whose rows changed, with their ``embedding`` column: catch a vector rewritten in place.

        The desk and sqlite-vec write a new vector as a delete and an insert, which the
        chunk table shows; a vector updated in place shows only here, when the fact's
        stored embedding no longer matches the copy (the index is then asked itself).
        """
        done = 0
        stored = dict(changed)
        for start in range(0, len(changed), 500):
            part = [fid for fid, _ in changed[start : start + 500]]
            marks = ",".join("?" * len(part))
            for rowid, fid, chunk_id, offset in raw.execute(
                    f"SELECT rowid, id, chunk_id, chunk_offset FROM {_T}_rowids WHERE id IN ({marks})", tuple(part)):
                at = self._position(int(chunk_id), int(offset))
                if self.slot_rowid[at] != rowid:
                    raise CopyUnusable("the rowid table and the copy disagree")
                if stored.get(fid) == self.matrix[at].tobytes():
                    continue
                vec = self._read(raw, fid)
                if not np.array_equal(vec.view(np.uint32), self.matrix[at].view(np.uint32)):
                    self._put(at, int(rowid), vec)
                    done += 1
        return done

    def _read(self, raw: Any, fid: str) -> np.ndarray:
        blob = raw.execute(f"SELECT embedding FROM {_T} WHERE fact_id = ?", (fid,)).fetchone()
        if blob is None or blob[0] is None or len(blob[0]) != _ROW_BYTES:
            raise CopyUnusable("a vector of another size")
        return np.frombuffer(bytes(blob[0]), dtype="<f4")

    def _position(self, chunk_id: int, offset: int) -> int:
        block = self.block_of.get(chunk_id)
        if block is None or not 0 <= offset < self.chunk_size:
            raise CopyUnusable("a vector in a chunk the copy does not have")
        return block * self.chunk_size + offset

    def _add_block(self, chunk_id: int) -> None:
        need = (len(self.chunk_ids) + 1) * self.chunk_size
        if need > len(self.slot_rowid):
            grow = max(need, int(len(self.slot_rowid) * 1.25))
            matrix = np.zeros((grow, DIM), dtype=np.float32)
            matrix[: len(self.matrix)] = self.matrix
            norms = np.full(grow, np.inf, dtype=np.float32)
            norms[: len(self.sq_norms)] = self.sq_norms
            slots = np.full(grow, -1, dtype=np.int64)
            slots[: len(self.slot_rowid)] = self.slot_rowid
            self.matrix, self.sq_norms, self.slot_rowid = matrix, norms, slots
        self.block_of[chunk_id] = len(self.chunk_ids)
        self.chunk_ids.append(chunk_id)

    def _patch_chunk(self, raw: Any, chunk_id: int, old: tuple[bytes, bytes], validity: bytes, rowids: bytes) -> int:
        run = raw.execute
        size = self.chunk_size
        was, now = _slots(old[0], size), _slots(validity, size)
        was_rows, now_rows = np.frombuffer(old[1], dtype="<i8"), np.frombuffer(rowids, dtype="<i8")
        changed = np.flatnonzero((was != now) | (now & (was_rows != now_rows)))
        base = self._position(chunk_id, 0)
        filled = [int(s) for s in changed if now[s]]
        where: dict[int, tuple[str, int, int]] = {}
        for start in range(0, len(filled), 500):
            part = [int(now_rows[s]) for s in filled[start : start + 500]]
            marks = ",".join("?" * len(part))
            for rowid, fid, cid, offset in run(
                    f"SELECT rowid, id, chunk_id, chunk_offset FROM {_T}_rowids WHERE rowid IN ({marks})", tuple(part)):
                where[int(rowid)] = (fid, int(cid), int(offset))
        vectors = None
        if len(filled) > 4:  # several new vectors in one chunk: one read of the chunk beats a KNN-table lookup each
            row = run(f"SELECT vectors FROM {_T}_vector_chunks00 WHERE rowid = ?", (chunk_id,)).fetchone()
            if row is None or row[0] is None or len(row[0]) != size * _ROW_BYTES:
                raise CopyUnusable("a chunk without its vectors")
            vectors = np.frombuffer(row[0], dtype="<f4").reshape(size, DIM)
        for s in changed.tolist():
            if not now[s]:
                self.slot_rowid[base + s] = -1
                self.sq_norms[base + s] = np.inf
                self.matrix[base + s] = 0.0
                continue
            rowid = int(now_rows[s])
            fid, cid, offset = where.get(rowid, (None, -1, -1))
            if not isinstance(fid, str) or cid != chunk_id or offset != s:
                raise CopyUnusable("the rowid table and the chunks disagree")
            self._put(base + s, rowid, vectors[s] if vectors is not None else self._read(raw, fid))
        self.state[chunk_id] = (validity, rowids)
        return len(changed)

    def _put(self, at: int, rowid: int, vec: np.ndarray) -> None:
        if not bool(np.isfinite(vec).all()):
            raise CopyUnusable("a vector that is not finite")  # NaN distances: only the KNN knows
        self.matrix[at] = vec
        self.sq_norms[at] = np.einsum("j,j->", self.matrix[at], self.matrix[at])
        self.slot_rowid[at] = rowid
        # a bound on every norm, never lowered by a removal (a looser bound only admits more candidates)
        self.max_norm = max(self.max_norm, math.sqrt(float(self.sq_norms[at])))

    # --- answering ----------------------------------------------------------------------

    def nearest(self, raw: Any, qvec: np.ndarray, k: int) -> list[tuple[str, float]] | None:
        """The KNN query's answer, or None when it must be asked itself."""
        n = self.count
        if n == 0:
            return []
        q = np.asarray(qvec, dtype=np.float32)
        if q.shape != (DIM,) or not bool(np.isfinite(q).all()):
            return None
        known = self.prepared.get((q.tobytes(), k))
        if known is not None:
            return list(known)
        used = self.used
        # einsum: one core, steadier here than a threaded BLAS product next to the embedding model
        approx = self.sq_norms[:used] - 2.0 * np.einsum("ij,j->i", self.matrix[:used], q) + np.float32(q @ q)
        return self._answer(raw, q, approx, min(k, n))

    def prepare(self, raw: Any, qvecs: list[np.ndarray], k: int) -> int:
        """Work out ``nearest``'s answers for many query vectors with one matrix product (the
        recall audit: one pass over the vectors for a batch of queries, not one each); ``nearest``
        then gives them until the copy changes. The same answers: the product only picks the
        candidates, within the same bound, and they are measured exactly as one query's are.
        How many were prepared (at most ``PREPARED_MAX`` are kept)."""
        n = self.count
        qs = [q for q in (np.asarray(v, dtype=np.float32) for v in qvecs)
              if q.shape == (DIM,) and bool(np.isfinite(q).all())]
        if n == 0 or not qs or k <= 0:
            return 0
        used = self.used
        done = 0
        for start in range(0, len(qs), PREPARE_BATCH):
            batch = np.stack(qs[start : start + PREPARE_BATCH])
            products = batch @ self.matrix[:used].T  # (batch, used): each query's products side by side in memory
            for b, q in enumerate(batch):
                approx = self.sq_norms[:used] - 2.0 * products[b] + np.float32(q @ q)
                found = self._answer(raw, q, approx, min(k, n))
                if found is not None:
                    self.prepared[(q.tobytes(), k)] = found
                    done += 1
                    while len(self.prepared) > PREPARED_MAX:
                        self.prepared.pop(next(iter(self.prepared)))
        return done

    def _answer(self, raw: Any, q: np.ndarray, approx: np.ndarray, want: int) -> list[tuple[str, float]] | None:
        """The ``want`` nearest from float32 squared distances ``approx`` (one per slot), measured exactly."""
        cut = _kth_smallest(approx, want)
        # both the float32 product here and sqlite-vec's float32 sum are within ~400·2⁻²⁴·(|x|+|q|)² of
        # the true squared distance: anything that can be (or tie with) the k-th is within twice that
        reach = 1e-4 * (self.max_norm + math.sqrt(float(q @ q))) ** 2 + 1e-6
        candidates = np.flatnonzero(approx <= cut + 2.0 * reach)
        if len(candidates) > MAX_CANDIDATES:
            return None
        exact = _exact_distances(raw, self.matrix, candidates, to_blob(q))
        if self.tie_order:
            where = candidates.tolist()
            order = sorted(range(len(where)), key=lambda j: (exact[j], where[j] // self.chunk_size,
                                                            -(where[j] % self.chunk_size)))
        else:
            order = sorted(range(len(candidates)), key=lambda j: exact[j])
            kept = order[: want + 1]
            if any(exact[a] == exact[b] for a, b in itertools.pairwise(kept)):
                return None  # equal distances, and an index whose tie order is not known here
        chosen = [int(candidates[j]) for j in order[:want]]
        names = self._names(raw, [int(self.slot_rowid[c]) for c in chosen])
        if names is None:
            return None
        return [(names[int(self.slot_rowid[c])], exact[j]) for c, j in zip(chosen, order[:want], strict=True)]

    def _names(self, raw: Any, rowids: list[int]) -> dict[int, str] | None:
        """The fact ids of the index rows ``rowids`` (None: the rowid table lost one)."""
        marks = ",".join("?" * len(rowids))
        found = {int(r[0]): r[1] for r in raw.execute(f"SELECT rowid, id FROM {_T}_rowids WHERE rowid IN ({marks})",
                                                       tuple(rowids))}
        return found if len(found) == len(set(rowids)) else None


def _kth_smallest(values: np.ndarray, k: int) -> float:
    """The ``k``-th smallest of ``values``: first bounded by the ``k``-th smallest of a part of them
    (never below the whole's), so only the values up to that bound are partitioned."""
    n = len(values)
    if n > 16 * k + 4096:
        head = values[: max(4 * k, n // 16)]
        bound = np.partition(head, k - 1)[k - 1]
        values = values[values <= bound]
    return float(np.partition(values, k - 1)[k - 1])


def _exact_distances(raw: Any, matrix: np.ndarray, rows: np.ndarray, qblob: bytes) -> list[float]:
    """sqlite-vec's own L2 distances from the query to ``rows`` of ``matrix``."""
    out: list[float] = []
    for start in range(0, len(rows), 400):
        part = rows[start : start + 400]
        cols = ", ".join(f"vec_distance_l2(?1, ?{j + 2})" for j in range(len(part)))
        params = (qblob, *(matrix[i].tobytes() for i in part))
        got = raw.execute(f"SELECT {cols}", params).fetchone()
        out.extend(float(x) for x in got)
    return out
