"""The vector voice: the 30 facts nearest to the query embedding (DESIGN.md §3).

The product scans every fact that has an embedding (L2 distance on the stored unit
vectors), takes the 30 nearest, then drops superseded ones, so fewer than 30 may
remain. Two ways to get the same list:

- a file the desk has adopted has our sqlite-vec index (``memdesk_fact_vectors``, a
  derived copy of the ``embedding`` column): its KNN query defines the answer;
- a product file opened read-only has no index and must not get one: the stored
  blobs are read into a float32 matrix (malformed ones, not 1,536 bytes, skipped)
  and scanned with numpy (``_nearest_in_matrix``, the answer on that path).

The KNN query scans every vector in C on each search. The same list comes faster
from a copy of the index's vectors held in memory while the file's version is
unchanged (read straight from the index's chunk tables, checked for consistency, once
the version has been searched ``COPY_AFTER`` times):
a float32 matrix product gives every distance to within a bound far below the gaps
that matter, the few candidates within that bound of the 30th are measured again with
sqlite-vec's own ``vec_distance_l2`` (the function its KNN uses, so the same bits), and
sorted. Equal distances (identical vectors are common: a fact stored twice) come out
in the index's own order: sqlite-vec 0.1.9 keeps the earlier chunk first and, within a
chunk, the later slot first (its per-chunk ``min_idx`` takes the last of equal values,
its merge keeps the earlier list first on ties). That order is only assumed for the
version the tests check it on; with any other version equal distances send the query
to the KNN query itself, as does a chunk table laid out differently.

Facts of other workspaces in the same file and facts outside a ``--repo`` scope are
dropped with the superseded ones, after the cut to 30.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import sqlean
from sqlalchemy import Connection

from memorydesk.embedding.embedder import BLOB_BYTES, DIM, to_blob
from memorydesk.search.cache import cached, snapshot_version
from memorydesk.search.scope import RepoScope
from memorydesk.store import Workspace
from memorydesk.store.ours import VECTOR_TABLE

__all__ = ["VECTOR_K", "VectorIndex", "has_embeddings", "matrix_index", "vector_ids"]

#: How many nearest neighbours the vector voice asks for.
VECTOR_K = 30
_CHUNK = 500
#: Candidates measured exactly at most; beyond that (a crowd of near-identical vectors) the KNN query answers.
_MAX_CANDIDATES = 4096
#: A file version gets its in-memory copy on its ``COPY_AFTER``-th vector search. The copy costs
#: about ten KNN queries to build, so a file that changes every few searches keeps using the KNN
#: query; the worst case, a change right after the copy was built, costs those five searches
#: about three times what the KNN query alone would have.
COPY_AFTER = 5
#: The sqlite-vec release whose order of equal distances ``_nearest_from_copy`` reproduces (tested).
TIE_ORDER_VERSION = "v0.1.9"


@dataclass
class VectorIndex:
    """Stored embeddings of one file, as a matrix."""

    ids: list[str]
    matrix: np.ndarray  # (n, 384) float32
    sq_norms: np.ndarray  # (n,) float32
    max_norm: float = field(default=0.0)
    #: the index's scan order: (n,) chunk id and (n,) slot, when equal distances may be ordered here
    chunk: np.ndarray | None = None
    slot: np.ndarray | None = None


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
    return cached(ws, conn, ("has-embeddings", ws.has_vectors), lambda: _has_embeddings(ws, conn))


def _has_embeddings(ws: Workspace, conn: Connection) -> bool:
    if ws.has_vectors:
        return conn.exec_driver_sql(f"SELECT 1 FROM {VECTOR_TABLE} LIMIT 1").first() is not None
    facts = ws.layout.facts.name
    return conn.exec_driver_sql(
        f"SELECT 1 FROM {facts} WHERE embedding IS NOT NULL AND length(embedding) = {BLOB_BYTES} LIMIT 1"
    ).first() is not None


# --- the sqlite-vec index, answered from memory -----------------------------------------------


def _vec0_copy(raw: object) -> VectorIndex | None:
    """The vectors the KNN query scans, read from the index's chunk tables (None: unexpected layout)."""
    run = raw.execute  # type: ignore[attr-defined]
    t = VECTOR_TABLE
    expected = {
        f"{t}_chunks": ["chunk_id", "size", "validity", "rowids"],
        f"{t}_rowids": ["rowid", "id", "chunk_id", "chunk_offset"],
        f"{t}_vector_chunks00": ["rowid", "vectors"],
    }
    for table, columns in expected.items():
        if [r[1] for r in run(f"PRAGMA table_info({table})")] != columns:
            return None
    if run(f"SELECT 1 FROM sqlite_master WHERE name = '{t}_vector_chunks01'").fetchall():
        return None  # a second vector column: not the layout this reads
    row_bytes = DIM * 4
    chunks = run(f"SELECT chunk_id, size, validity, rowids FROM {t}_chunks ORDER BY chunk_id").fetchall()
    slots_of: dict[int, np.ndarray] = {}
    for chunk_id, size, validity, rowids in chunks:
        size = int(size)
        if len(validity) * 8 < size or len(rowids) != size * 8:
            return None
        slots_of[int(chunk_id)] = np.flatnonzero(
            np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size])
    total = sum(len(v) for v in slots_of.values())
    start_of: dict[int, int] = {}
    for chunk_id in sorted(slots_of):  # rows go in chunk order, the order the KNN scans them
        start_of[chunk_id] = sum(len(slots_of[c]) for c in start_of)
    matrix = np.empty((total, DIM), dtype=np.float32)
    internal = np.empty(total, dtype=np.int64)
    place = np.empty((2, total), dtype=np.int64)
    size_of = {int(r[0]): (int(r[1]), r[3]) for r in chunks}
    done = 0
    for chunk_id, vectors in run(f"SELECT rowid, vectors FROM {t}_vector_chunks00"):  # a scan: no sorting of blobs
        chunk_id = int(chunk_id) if isinstance(chunk_id, int) else -1
        if chunk_id not in size_of:
            continue  # a vector chunk without a chunk row is not scanned by the KNN either
        size, rowids = size_of.pop(chunk_id)
        if vectors is None or len(vectors) != size * row_bytes:
            return None
        slots = slots_of[chunk_id]
        if not len(slots):
            continue
        part = np.frombuffer(vectors, dtype="<f4").reshape(size, DIM)[slots]
        if not bool(np.isfinite(part).all()):
            return None  # NaN distances compare in ways only the KNN itself knows
        at, end = start_of[chunk_id], start_of[chunk_id] + len(slots)
        matrix[at:end] = part
        internal[at:end] = np.frombuffer(rowids, dtype="<i8")[slots]
        place[0, at:end] = chunk_id
        place[1, at:end] = slots
        done += len(slots)
    if done != total or any(len(slots_of[c]) for c in size_of):
        return None  # a chunk with vectors in use but no vector row
    known = run(f"SELECT rowid, id, chunk_id, chunk_offset FROM {t}_rowids WHERE chunk_id IS NOT NULL "
                f"ORDER BY rowid").fetchall()
    if len(known) != total or not all(isinstance(r[1], str) for r in known):
        return None
    if total == 0:
        return VectorIndex([], matrix, np.zeros(0, dtype=np.float32))
    known_rowid = np.fromiter((r[0] for r in known), dtype=np.int64, count=len(known))
    known_place = np.array([(r[2], r[3]) for r in known], dtype=np.int64).T
    where = np.searchsorted(known_rowid, internal)
    where[where >= len(known_rowid)] = 0
    if not (np.array_equal(known_rowid[where], internal) and np.array_equal(known_place[:, where], place)):
        return None  # the rowid table and the chunks disagree: let the KNN query answer
    ids = [known[i][1] for i in where.tolist()]
    sq = np.einsum("ij,ij->i", matrix, matrix)
    version = run("SELECT vec_version()").fetchone()[0]
    chunk, slot = (place[0], place[1]) if version == TIE_ORDER_VERSION else (None, None)
    return VectorIndex(ids, matrix, sq, float(np.sqrt(sq.max())), chunk, slot)


def _exact_distances(raw: object, matrix: np.ndarray, rows: np.ndarray, qblob: bytes) -> list[float]:
    """sqlite-vec's own L2 distances from the query to ``rows`` of ``matrix``."""
    out: list[float] = []
    for start in range(0, len(rows), 400):
        part = rows[start : start + 400]
        cols = ", ".join(f"vec_distance_l2(?1, ?{j + 2})" for j in range(len(part)))
        params = (qblob, *(matrix[i].tobytes() for i in part))
        got = raw.execute(f"SELECT {cols}", params).fetchone()  # type: ignore[attr-defined]
        out.extend(float(x) for x in got)
    return out


def _nearest_from_copy(raw: object, index: VectorIndex, qvec: np.ndarray, k: int) -> list[tuple[str, float]] | None:
    """The KNN query's answer from the in-memory copy, or None when it must be asked itself."""
    n = len(index.ids)
    if n == 0:
        return []
    q = np.asarray(qvec, dtype=np.float32)
    if q.shape != (DIM,) or not bool(np.isfinite(q).all()):
        return None
    want = min(k, n)
    # einsum: one core, steadier here than a threaded BLAS product next to the embedding model
    approx = index.sq_norms - 2.0 * np.einsum("ij,j->i", index.matrix, q) + np.float32(q @ q)
    cut = float(np.partition(approx, want - 1)[want - 1])
    # both the float32 product here and sqlite-vec's float32 sum are within ~400·2⁻²⁴·(|x|+|q|)² of
    # the true squared distance: anything that can be (or tie with) the k-th is within twice that
    reach = 1e-4 * (index.max_norm + math.sqrt(float(q @ q))) ** 2 + 1e-6
    candidates = np.flatnonzero(approx <= cut + 2.0 * reach)
    if len(candidates) > _MAX_CANDIDATES:
        return None
    exact = _exact_distances(raw, index.matrix, candidates, to_blob(q))
    if index.chunk is not None and index.slot is not None:
        chunk, slot = index.chunk[candidates].tolist(), index.slot[candidates].tolist()
        order = sorted(range(len(candidates)), key=lambda j: (exact[j], chunk[j], -slot[j]))
    else:
        order = sorted(range(len(candidates)), key=lambda j: exact[j])
        kept = order[: want + 1]
        if any(exact[a] == exact[b] for a, b in zip(kept, kept[1:])):
            return None  # equal distances, and an index whose tie order is not known here
    return [(index.ids[int(candidates[j])], exact[j]) for j in order[:want]]


def _knn_query(conn: Connection, qvec: np.ndarray, k: int) -> list[tuple[str, float]]:
    rows = conn.exec_driver_sql(
        f"SELECT fact_id, distance FROM {VECTOR_TABLE} WHERE embedding MATCH ? AND k = ? ORDER BY distance",
        (to_blob(qvec), int(k)),
    ).fetchall()
    return [(r[0], float(r[1])) for r in rows]


def _nearest_in_matrix(index: VectorIndex, qvec: np.ndarray, k: int) -> list[tuple[str, float]]:
    """The read-only path's answer: float32 distances from the matrix, ties in file order."""
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


def _nearest(ws: Workspace, conn: Connection, qvec: np.ndarray, k: int) -> list[tuple[str, float]]:
    if ws.has_vectors:
        if k > 0 and snapshot_version(ws, conn) is not None:
            raw = conn.connection.driver_connection
            try:
                index = cached(ws, conn, ("vec0-copy",), lambda: _vec0_copy(raw), after=COPY_AFTER)
                if index is not None:
                    found = _nearest_from_copy(raw, index, qvec, k)
                    if found is not None:
                        return found
            except sqlean.Error:
                pass
        return _knn_query(conn, qvec, k)
    return _nearest_in_matrix(matrix_index(ws, conn), qvec, k)


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
        ).fetchall()
        keep.update(r[0] for r in rows if scope is None or scope.admits(r[1] or ""))
    return keep
