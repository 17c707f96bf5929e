"""The vector voice: the 30 facts nearest to the query embedding (docs/product-format.md, "The product's rules").

The product scans every fact that has an embedding (L2 distance on the stored unit
vectors), takes the 30 nearest, then drops superseded ones, so fewer than 30 may
remain. Two ways to get the same list:

- a file the desk has adopted has our sqlite-vec index (``memdesk_fact_vectors``, a
  derived copy of the ``embedding`` column): its KNN query defines the answer;
- a product file opened read-only has no index and must not get one: the stored
  blobs are read into a float32 matrix (malformed ones, not 1,536 bytes, skipped)
  and scanned with numpy (``_nearest_in_matrix``, the answer on that path).

The KNN query scans every vector in C on each search. Once search has its copies of
the file (``search.copies.follow``), the same list comes from an in-memory copy of the index
(``search.copies.vectors``), exact to the bit and kept in step with the file.

Facts of other workspaces in the same file and facts outside a ``--repo`` scope are
dropped with the superseded ones, after the cut to 30.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sqlean
from sqlalchemy import Connection

from memorydesk.embedding.embedder import BLOB_BYTES, DIM, to_blob
from memorydesk.search.cache import cached
from memorydesk.search.copies import follow
from memorydesk.search.copies.embeddings import nearest_rows
from memorydesk.search.scope import RepoScope
from memorydesk.store import Workspace
from memorydesk.store.ours import VECTOR_TABLE

__all__ = ["VECTOR_K", "VectorIndex", "has_embeddings", "matrix_index", "prepare_nearest", "vector_ids"]

#: How many nearest neighbours the vector voice asks for.
VECTOR_K = 30
_CHUNK = 500


@dataclass
class VectorIndex:
    """Stored embeddings of one file, as a matrix (the read-only path)."""

    ids: list[str]
    matrix: np.ndarray  # (n, 384) float32
    sq_norms: np.ndarray  # (n,) float32


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
    """The file's embedding column as a matrix, kept while nobody commits to the file."""
    return cached(ws, conn, ("embedding-matrix",), lambda: _load_index(ws, conn))


def has_embeddings(ws: Workspace, conn: Connection) -> bool:
    """Whether any fact has a usable stored embedding."""
    with follow.using(ws, conn) as state:
        copy = (state.vectors if ws.has_vectors else state.embeddings) if state is not None else None
        if copy is not None:
            return copy.count > 0
    return cached(ws, conn, ("has-embeddings", ws.has_vectors), lambda: _has_embeddings(ws, conn))


def _has_embeddings(ws: Workspace, conn: Connection) -> bool:
    if ws.has_vectors:
        # the index's rowid table, not the index itself: a query on the vec0 table reads every chunk
        shadow = f"{VECTOR_TABLE}_rowids"
        if conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = ?", (shadow,)).first() is not None:
            row = conn.exec_driver_sql(f"SELECT 1 FROM {shadow} WHERE chunk_id IS NOT NULL LIMIT 1").first()
            return row is not None
        return conn.exec_driver_sql(f"SELECT 1 FROM {VECTOR_TABLE} LIMIT 1").first() is not None
    facts = ws.layout.facts.name
    return conn.exec_driver_sql(
        f"SELECT 1 FROM {facts} WHERE embedding IS NOT NULL AND length(embedding) = {BLOB_BYTES} LIMIT 1"
    ).first() is not None


def _knn_query(conn: Connection, qvec: np.ndarray, k: int) -> list[tuple[str, float]]:
    rows = conn.exec_driver_sql(
        f"SELECT fact_id, distance FROM {VECTOR_TABLE} WHERE embedding MATCH ? AND k = ? ORDER BY distance",
        (to_blob(qvec), int(k)),
    ).fetchall()
    return [(r[0], float(r[1])) for r in rows]


def _nearest_in_matrix(index: VectorIndex, qvec: np.ndarray, k: int) -> list[tuple[str, float]]:
    """The read-only path's answer: float32 distances from the matrix, ties in file order."""
    return [(index.ids[i], dist) for i, dist in nearest_rows(index.matrix, index.sq_norms, qvec, k)]


def _nearest(ws: Workspace, conn: Connection, qvec: np.ndarray, k: int) -> list[tuple[str, float]]:
    if ws.has_vectors:
        if k > 0:
            with follow.using(ws, conn) as state:
                if state is not None and state.vectors is not None:
                    try:
                        found = state.vectors.nearest(conn.connection.driver_connection, qvec, k)
                    except sqlean.Error:
                        found = None
                    if found is not None:
                        return found
        # the same query vector at the same file version has the same neighbours (the semantic and the
        # hybrid mode of one query): the scan runs once
        return list(cached(ws, conn, ("knn", to_blob(qvec), int(k)), lambda: tuple(_knn_query(conn, qvec, k))) or ())
    with follow.using(ws, conn) as state:
        if state is not None and state.embeddings is not None:
            found = state.embeddings.nearest(conn.connection.driver_connection, ws.layout.facts.name, qvec, k)
            if found is not None:
                return found
    return list(cached(ws, conn, ("matrix-knn", to_blob(qvec), int(k)),
                       lambda: tuple(_nearest_in_matrix(matrix_index(ws, conn), qvec, k))) or ())


def prepare_nearest(ws: Workspace, conn: Connection, qvecs: list[np.ndarray], k: int = VECTOR_K) -> int:
    """Work out the nearest embeddings of many query vectors in one pass over the vector copy
    (the recall audit's batch of coming queries); the searches that follow at this snapshot
    take them from there. Nothing without the copy (each search then scans as usual); how many."""
    if not ws.has_vectors or not qvecs:
        return 0
    with follow.using(ws, conn) as state:
        if state is None or state.vectors is None:
            return 0
        try:
            return state.vectors.prepare(conn.connection.driver_connection, qvecs, k)
        except sqlean.Error:
            return 0


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
    """Which of ``ids`` are active facts of this workspace (inside ``scope`` if given); without a
    scope, from search's copies when they show this snapshot (fact ids and the active bit)."""
    if scope is None:
        with follow.using(ws, conn) as state:
            graph = state.graph_now() if state is not None else None
            if graph is not None:
                assert state is not None
                return graph.active_ids(ids, state.rows.active)
    facts = ws.layout.facts.name
    keep: set[str] = set()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = conn.exec_driver_sql(
            f"SELECT id, domain FROM {facts} WHERE id IN ({marks}) AND +workspace_id = ? AND +superseded_by IS NULL",
            (*chunk, ws.workspace_id),
        ).fetchall()
        keep.update(r[0] for r in rows if scope is None or scope.admits(r[1] or ""))
    return keep
