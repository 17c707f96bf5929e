"""The vector voice: the 30 facts nearest to the query embedding (DESIGN.md §3).

The product scans every fact that has an embedding (L2 distance on the stored unit
vectors), takes the 30 nearest, then drops superseded ones, so fewer than 30 may
remain. Two ways to get the same list:

- a file the desk has adopted has our sqlite-vec index (``memdesk_fact_vectors``, a
  derived copy of the ``embedding`` column): one KNN query;
- a product file opened read-only has no index and must not get one: the stored
  blobs are read into a float32 matrix (malformed ones, not 1,536 bytes, skipped)
  and scanned with numpy. The matrix is kept while the file's ``data_version`` is
  unchanged, so repeated searches don't re-read it.

Facts of other workspaces in the same file and facts outside a ``--repo`` scope are
dropped with the superseded ones, after the cut to 30.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Connection

from memorydesk.memory.embedder import BLOB_BYTES, DIM, to_blob
from memorydesk.memory.search_keyword import RepoScope
from memorydesk.store import Workspace
from memorydesk.store.ours import VECTOR_TABLE

__all__ = ["VECTOR_K", "VectorIndex", "has_embeddings", "vector_ids"]

#: How many nearest neighbours the vector voice asks for.
VECTOR_K = 30
_CHUNK = 500


@dataclass
class VectorIndex:
    """Stored embeddings of one file, as a matrix (the read-only path)."""

    ids: list[str]
    matrix: np.ndarray  # (n, 384) float32
    sq_norms: np.ndarray  # (n,) float32


_cache: dict[str, tuple[int, VectorIndex]] = {}
_cache_lock = threading.Lock()


def _load_index(ws: Workspace, conn: Connection) -> VectorIndex:
    facts = ws.layout.facts.name
    rows = conn.exec_driver_sql(
        f"SELECT id, embedding FROM {facts} WHERE embedding IS NOT NULL AND length(embedding) = {BLOB_BYTES}"
    ).fetchall()
    ids = [r[0] for r in rows]
    if not rows:
        matrix = np.zeros((0, DIM), dtype=np.float32)
    else:
        matrix = np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype="<f4").reshape(len(rows), DIM)
        matrix = matrix.astype(np.float32)
    return VectorIndex(ids, matrix, np.einsum("ij,ij->i", matrix, matrix))


def matrix_index(ws: Workspace, conn: Connection) -> VectorIndex:
    """The file's embeddings as a matrix, cached per file while nobody commits to it."""
    key = str(ws.path.resolve())
    version = ws.data_version()
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] == version:
            return hit[1]
    index = _load_index(ws, conn)
    with _cache_lock:
        _cache.clear()  # one file at a time is plenty for the desk and the CLI
        _cache[key] = (version, index)
    return index


def has_embeddings(ws: Workspace, conn: Connection) -> bool:
    """Whether any fact has a usable stored embedding."""
    if ws.has_vectors:
        return conn.exec_driver_sql(f"SELECT 1 FROM {VECTOR_TABLE} LIMIT 1").first() is not None
    facts = ws.layout.facts.name
    return conn.exec_driver_sql(
        f"SELECT 1 FROM {facts} WHERE embedding IS NOT NULL AND length(embedding) = {BLOB_BYTES} LIMIT 1"
    ).first() is not None


def _nearest(ws: Workspace, conn: Connection, qvec: np.ndarray, k: int) -> list[tuple[str, float]]:
    if ws.has_vectors:
        rows = conn.exec_driver_sql(
            f"SELECT fact_id, distance FROM {VECTOR_TABLE} WHERE embedding MATCH ? AND k = ? ORDER BY distance",
            (to_blob(qvec), int(k)),
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]
    index = matrix_index(ws, conn)
    n = len(index.ids)
    if n == 0:
        return []
    q = np.asarray(qvec, dtype=np.float32)
    sq = index.sq_norms - 2.0 * (index.matrix @ q) + float(q @ q)
    np.maximum(sq, 0.0, out=sq)
    if n > k:
        part = np.argpartition(sq, k - 1)[:k]
    else:
        part = np.arange(n)
    order = part[np.lexsort((part, sq[part]))]  # distance, then file order
    return [(index.ids[i], float(np.sqrt(sq[i]))) for i in order]


def vector_ids(
    ws: Workspace,
    conn: Connection,
    qvec: np.ndarray,
    *,
    k: int = VECTOR_K,
    scope: RepoScope | None = None,
) -> list[tuple[str, float]]:
    """``(fact id, L2 distance)`` of the ``k`` nearest embeddings, superseded ones then dropped."""
    nearest = _nearest(ws, conn, qvec, k)
    if not nearest:
        return []
    keep = active_in_scope(ws, conn, [fid for fid, _ in nearest], scope)
    return [(fid, dist) for fid, dist in nearest if fid in keep]


def active_in_scope(ws: Workspace, conn: Connection, ids: list[str], scope: RepoScope | None) -> set[str]:
    """Which of ``ids`` are active facts of this workspace (inside ``scope`` if given)."""
    facts = ws.layout.facts.name
    keep: set[str] = set()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = conn.exec_driver_sql(
            f"SELECT id, domain FROM {facts} WHERE id IN ({marks}) AND +workspace_id = ? AND +superseded_by IS NULL",
            (*chunk, ws.workspace_id),
        )
        keep.update(r[0] for r in rows if scope is None or scope.admits(r[1] or ""))
    return keep
