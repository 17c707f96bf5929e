"""The ``embedding`` column as a matrix by rowid: the vector voice of a file without our index.

A product file opened read-only has no sqlite-vec index of ours and must not get one;
its vector voice is a numpy scan of the stored embeddings (malformed ones, not 1,536
bytes, skipped): float32 squared distances, the ``k`` smallest, equal distances in file
(rowid) order (``nearest_rows``, the answer on that path). ``EmbeddingCopy`` keeps the
column in memory by rowid (rows without a usable embedding are holes that are never
near) and takes the changed rows ``search.copies.bundle`` reads, so a fresh copy and a patched
one hold the same rows and give the same answer: every row's distance is computed on
its own (``einsum``), whatever its place in the matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from memorydesk.embedding.embedder import BLOB_BYTES, DIM

__all__ = ["EmbeddingCopy", "nearest_rows"]


def nearest_rows(matrix: np.ndarray, sq_norms: np.ndarray, qvec: np.ndarray, k: int) -> list[tuple[int, float]]:
    """``(position, distance)`` of the ``k`` rows nearest ``qvec``: distance, then position (rows with an
    infinite squared norm are holes)."""
    n = int(np.isfinite(sq_norms).sum())
    if n == 0 or k <= 0:
        return []
    q = np.asarray(qvec, dtype=np.float32)
    sq = sq_norms - 2.0 * np.einsum("ij,j->i", matrix, q) + float(q @ q)
    np.maximum(sq, 0.0, out=sq)
    want = min(k, n)
    kth = np.partition(sq, want - 1)[want - 1]
    below = np.flatnonzero(sq < kth)
    at = np.flatnonzero(sq == kth)[: want - len(below)]  # equal distances at the cut: the earlier rows
    part = np.concatenate([below, at])
    order = part[np.lexsort((part, sq[part]))]
    return [(int(i), float(np.sqrt(sq[i]))) for i in order]


@dataclass
class EmbeddingCopy:
    """The usable stored embeddings, by rowid."""

    matrix: np.ndarray  # (capacity, DIM) float32
    sq_norms: np.ndarray  # (capacity,) float32, inf: no usable embedding

    @property
    def count(self) -> int:
        return int(np.isfinite(self.sq_norms).sum())

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes + self.sq_norms.nbytes)

    @staticmethod
    def planned_bytes(raw: Any, facts: str) -> int:
        top = raw.execute(f"SELECT max(rowid) FROM {facts}").fetchone()[0] or 0
        return int((top + 1) * 1.02 + 1024) * (DIM * 4 + 4)

    @classmethod
    def build(cls, raw: Any, facts: str) -> EmbeddingCopy:
        top = raw.execute(f"SELECT max(rowid) FROM {facts}").fetchone()[0] or 0
        capacity = int((top + 1) * 1.02) + 1024
        copy = cls(np.zeros((capacity, DIM), dtype=np.float32), np.full(capacity, np.inf, dtype=np.float32))
        cursor = raw.execute(f"SELECT rowid, embedding FROM {facts} "
                             f"WHERE embedding IS NOT NULL AND length(embedding) = {BLOB_BYTES}")
        while True:
            chunk = cursor.fetchmany(10_000)
            if not chunk:
                break
            rowids = np.fromiter((r[0] for r in chunk), dtype=np.int64, count=len(chunk))
            copy.matrix[rowids] = np.frombuffer(b"".join(bytes(r[1]) for r in chunk), dtype="<f4").reshape(-1, DIM)
            copy.sq_norms[rowids] = np.einsum("ij,ij->i", copy.matrix[rowids], copy.matrix[rowids])
        return copy

    def apply(self, changed: dict[int, Any]) -> None:
        """Rows that changed: ``rowid -> embedding blob`` (None: no usable embedding, or no row)."""
        for rowid, blob in changed.items():
            if rowid >= len(self.sq_norms):
                grow = max(rowid + 1, int(len(self.sq_norms) * 1.25))
                matrix = np.zeros((grow, DIM), dtype=np.float32)
                matrix[: len(self.matrix)] = self.matrix
                norms = np.full(grow, np.inf, dtype=np.float32)
                norms[: len(self.sq_norms)] = self.sq_norms
                self.matrix, self.sq_norms = matrix, norms
            if isinstance(blob, bytes) and len(blob) == BLOB_BYTES:
                self.matrix[rowid] = np.frombuffer(blob, dtype="<f4")
                self.sq_norms[rowid] = np.einsum("ij,ij->i", self.matrix[rowid : rowid + 1],
                                                 self.matrix[rowid : rowid + 1])[0]
            else:
                self.matrix[rowid] = 0.0
                self.sq_norms[rowid] = np.inf

    def nearest(self, raw: Any, facts: str, qvec: np.ndarray, k: int) -> list[tuple[str, float]] | None:
        """The read-only path's answer (None: a row went missing; the caller reads the column itself)."""
        found = nearest_rows(self.matrix, self.sq_norms, qvec, k)
        if not found:
            return []
        marks = ",".join("?" * len(found))
        ids = dict(raw.execute(f"SELECT rowid, id FROM {facts} WHERE rowid IN ({marks})",
                               tuple(pos for pos, _ in found)).fetchall())
        if len(ids) != len(found):
            return None
        return [(ids[pos], dist) for pos, dist in found]
