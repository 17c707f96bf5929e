"""The graph voice's edges and every fact id's rowid, as arrays beside search's copies.

The graph voice walks episodic edges from each seed, two levels deep, and keeps the facts
it reached that are active (``search.hybrid``). Asked of SQLite, that is two index
lookups per level and one more for the active ones, for every seed of every search. A
``GraphCopy`` holds, for one file version, what those lookups read:

- every edge of the workspace (its rowid, weight, ends), numbered in the walk's order —
  heaviest first, equal weights by rowid (the order ``hybrid._edges_touching`` sorts a
  level's edges in) — and, per fact named by an edge, the numbers of the edges touching it,
  ascending, so a level's edges in walk order are the sorted union of its facts' lists;
- every fact id's rowid, so whether a fact is active comes from the copies' active bit
  (``RowPrints.active``: a fact of this workspace, not superseded) instead of SQLite.

Edges are read as the lookups read them: the workspace's rows (``+workspace_id = ?``),
each weight through ``hybrid._float``. A file this copy cannot mirror exactly — a fact id
or an edge end that is not text, a fact id held by two rows, a weight that is not a number
(NaN), a negative rowid, a collation on the tables — gets no copy (``GraphUnusable``) and the walk asks
SQLite as before. Nothing follows a change: a new file version has no copy until one is
built for it (``FileState.graph_for``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["GraphCopy", "GraphUnusable"]


class GraphUnusable(Exception):
    """The file holds something the arrays would not answer exactly as SQLite does."""


def _float(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0


class GraphCopy:
    """The workspace's episodic edges in walk order, and every fact id's rowid, at one version."""

    def __init__(self, version: int, rowid_of: dict[str, int], nodes: list[str], rowids: np.ndarray,
                 weights: np.ndarray, source: np.ndarray, target: np.ndarray) -> None:
        self.version = version
        self.rowid_of = rowid_of  # fact id -> rowid, every fact row of the file
        self.nodes = nodes  # node -> the fact id an edge names
        self.edge_rowid = rowids  # by edge number (walk order)
        self.edge_weight = weights
        self.source = source  # by edge number: its source node
        self.target = target
        self.node_of = {fid: n for n, fid in enumerate(nodes)}
        n_nodes, n_edges = len(nodes), len(rowids)
        ends = np.concatenate([source, target]).astype(np.int64)
        numbers = np.concatenate([np.arange(n_edges), np.arange(n_edges)])
        loop = np.concatenate([source == target, np.zeros(n_edges, dtype=bool)])  # a self-loop once
        ends, numbers = ends[~loop], numbers[~loop]
        order = np.lexsort((numbers, ends))
        self.touching = numbers[order].astype(np.int32)
        self.offsets = np.zeros(n_nodes + 1, dtype=np.int64)
        np.cumsum(np.bincount(ends, minlength=n_nodes), out=self.offsets[1:])
        self.node_rowid = np.array([rowid_of.get(fid, -1) for fid in nodes], dtype=np.int64)

    @property
    def nbytes(self) -> int:
        """Arrays and (roughly) the two dictionaries: about 100 bytes a key."""
        arrays = (self.edge_rowid, self.edge_weight, self.source, self.target, self.touching, self.offsets,
                  self.node_rowid)
        return int(sum(a.nbytes for a in arrays)) + 100 * (len(self.rowid_of) + len(self.node_of))

    # --- building -----------------------------------------------------------------------

    @classmethod
    def build(cls, raw: Any, facts: str, edges: str, workspace_id: str, version: int,
              keep_going: Any = lambda: True) -> GraphCopy:
        for table in (facts, edges):
            row = raw.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
            if row is None or "collate" in str(row[0]).lower():
                raise GraphUnusable(f"{table}: a collation the arrays would not apply")
        rowid_of: dict[str, int] = {}
        cursor = raw.execute(f"SELECT rowid, id FROM {facts}")
        while chunk := cursor.fetchmany(20_000):
            if not keep_going():
                raise InterruptedError
            for rowid, fid in chunk:
                if type(fid) is not str or fid in rowid_of or rowid < 0:
                    raise GraphUnusable("a fact id that is not text or held by two rows, or a negative rowid")
                rowid_of[fid] = rowid
        node_of: dict[str, int] = {}
        rowids: list[int] = []
        weights: list[float] = []
        ends: list[int] = []
        cursor = raw.execute(f"SELECT rowid, weight, source_fact_id, target_fact_id FROM {edges} "
                             f"WHERE +workspace_id = ?", (workspace_id,))
        while chunk := cursor.fetchmany(20_000):
            if not keep_going():
                raise InterruptedError
            for rowid, weight, source, target in chunk:
                if type(source) is not str or type(target) is not str:
                    raise GraphUnusable("an edge end that is not text")
                w = _float(weight)
                if math.isnan(w):
                    raise GraphUnusable("an edge weight that is not a number")
                rowids.append(int(rowid))
                weights.append(w)
                ends.append(node_of.setdefault(source, len(node_of)))
                ends.append(node_of.setdefault(target, len(node_of)))
        rowid_arr = np.array(rowids, dtype=np.int64)
        weight_arr = np.array(weights, dtype=np.float64)
        pairs = np.array(ends, dtype=np.int32).reshape(-1, 2)
        # walk order: heaviest first, equal weights by rowid (-0.0 and 0.0 are equal, as in Python)
        order = np.lexsort((rowid_arr, -weight_arr))
        return cls(version, rowid_of, list(node_of), rowid_arr[order], weight_arr[order],
                   np.ascontiguousarray(pairs[order, 0]), np.ascontiguousarray(pairs[order, 1]))

    # --- reading ------------------------------------------------------------------------

    def level(self, frontier: Sequence[int]) -> np.ndarray:
        """The numbers of every edge touching the nodes ``frontier``, in walk order, once each."""
        off, touching = self.offsets, self.touching
        parts = [touching[off[n] : off[n + 1]] for n in frontier]
        if len(parts) == 1:
            return parts[0]
        return np.unique(np.concatenate(parts)) if parts else touching[:0]

    def edges(self, numbers: np.ndarray) -> list[tuple[int, float, str, str]]:
        """``(rowid, weight, source, target)`` of edges by number (``hybrid.Edge``)."""
        nodes = self.nodes
        return [(r, w, nodes[s], nodes[t]) for r, w, s, t in
                zip(self.edge_rowid[numbers].tolist(), self.edge_weight[numbers].tolist(),
                    self.source[numbers].tolist(), self.target[numbers].tolist(), strict=True)]

    def reached(self, seed: str, depth: int) -> list[int]:
        """The nodes a walk from ``seed`` brings in, in order (``hybrid.walk``'s ``reached``)."""
        start = self.node_of.get(seed)
        if start is None:
            return []
        visited = {start}
        frontier = [start]
        out: list[int] = []
        source, target = self.source, self.target
        for _hop in range(depth):
            if not frontier:
                break
            numbers = self.level(frontier)
            members = set(frontier)
            nxt: list[int] = []
            for s, t in zip(source[numbers].tolist(), target[numbers].tolist(), strict=True):
                if s in members and t not in visited:
                    visited.add(t)
                    nxt.append(t)
                if t in members and s not in visited:
                    visited.add(s)
                    nxt.append(s)
            out += nxt
            frontier = nxt
        return out

    def active_nodes(self, nodes: Iterable[int], active: np.ndarray) -> list[int]:
        """Those of ``nodes`` that are active facts (``active``: the copies' bit by rowid), in order."""
        rowid = self.node_rowid
        size = len(active)
        return [n for n in nodes if 0 <= (r := int(rowid[n])) < size and active[r]]

    def active_ids(self, ids: Iterable[str], active: np.ndarray) -> set[str]:
        """Those of ``ids`` that are active facts (``vector.active_in_scope`` without a scope)."""
        rowid_of, size = self.rowid_of, len(active)
        return {fid for fid in ids if (r := rowid_of.get(fid)) is not None and 0 <= r < size and active[r]}
