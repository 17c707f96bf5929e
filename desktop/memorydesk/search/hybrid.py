"""The other voices of recall and their fusion (docs/product-format.md, "The product's rules").

- fact: the keyword search order (FTS top 20);
- vector: the 30 nearest embeddings, superseded ones dropped (``search_vector``);
- temporal: the 30 newest active facts (``created_at`` descending; equal times
  keep the later-inserted row first). Without an index on ``created_at`` (the
  product's table has none, and the desk adds nothing to product tables) this is a
  scan of the table, so search keeps the list and follows the file's changes into it
  (``search.copies.recent``, ``search.copies.follow``); before that, it is kept per file version;
- graph: for each seed in turn (top 3 fact, then top 3 vector, without repeats) a
  breadth-first walk to depth 2 over episodic edges in both directions. Each level
  asks for every edge touching the level's facts, heaviest first (equal weights in
  table order), and takes each edge's far end once per walk (the seed itself is not
  part of its own walk). The walks are concatenated, repeats removed, and only
  active facts of the workspace kept.

``core.product.fusion`` does the arithmetic (weights × intent biases, ``w/(60+r+1)``, Weibull
decay, confidence factor, MMR); this module gathers what it needs from the file.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import Connection

from memorydesk.core.product.fusion import FusionRecord
from memorydesk.core.product.text import candidate_text
from memorydesk.search.cache import cached
from memorydesk.search.copies import follow
from memorydesk.search.copies.recent import DEPTH
from memorydesk.search.scope import RepoScope
from memorydesk.search.vector import active_in_scope
from memorydesk.store import Workspace

__all__ = [
    "GRAPH_DEPTH",
    "GRAPH_SEEDS",
    "REPO_BOOST",
    "TEMPORAL_LIMIT",
    "FactBrief",
    "WalkEdge",
    "fact_briefs",
    "graph_ids",
    "temporal_ids",
    "walk",
]

TEMPORAL_LIMIT = 30
GRAPH_SEEDS = 3
GRAPH_DEPTH = 2
#: The newer product's boost for facts of the caller's own repo (``repo:<slug>/…``).
REPO_BOOST = 1.35
_CHUNK = 500


def temporal_ids(ws: Workspace, conn: Connection, scope: RepoScope | None = None,
                 limit: int = TEMPORAL_LIMIT) -> list[str]:
    """The ``limit`` newest active facts of the workspace."""
    if 0 < limit <= DEPTH:
        with follow.using(ws, conn) as state:
            if state is not None:
                found = state.recent_for(ws, conn, scope, int(limit))
                if found is not None:
                    return found
    key = ("temporal", scope.slug if scope is not None else None, int(limit))
    return list(cached(ws, conn, key, lambda: tuple(_newest(ws, conn, scope, limit))))


def _newest(ws: Workspace, conn: Connection, scope: RepoScope | None, limit: int) -> list[str]:
    facts = ws.layout.facts.name
    scope_sql, scope_params = scope.sql("f") if scope is not None else ("", ())
    rows = conn.exec_driver_sql(
        f"SELECT f.id FROM {facts} f WHERE +f.workspace_id = ? AND +f.superseded_by IS NULL{scope_sql} "
        f"ORDER BY f.created_at DESC, f.rowid DESC LIMIT ?",
        (ws.workspace_id, *scope_params, int(limit)),
    )
    return [r[0] for r in rows]


def graph_seeds(fact_ids: Sequence[str], vector_ids: Sequence[str], n: int = GRAPH_SEEDS) -> list[str]:
    """Top ``n`` of the fact voice, then top ``n`` of the vector voice, without repeats."""
    seeds: list[str] = []
    for fid in [*fact_ids[:n], *vector_ids[:n]]:
        if fid not in seeds:
            seeds.append(fid)
    return seeds


class WalkEdge(NamedTuple):
    """One edge the graph voice's walk read: at which level (1 or 2), the row, and the far
    end it brought into the walk (None when both ends were already reached)."""

    hop: int
    rowid: int
    source: str
    target: str
    weight: float
    reached: str | None


#: Facts whose edges one file version keeps at most (walks from nearby seeds read the same
#: edges again, search after search); beyond, it starts afresh.
EDGE_MEMO_FACTS = 20_000

Edge = tuple[int, float, str, str]  # rowid, weight, source, target


class _EdgeMemo:
    """The edges of each fact asked about, at one file version (``cache.cached``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_fact: dict[str, tuple[Edge, ...]] = {}


def _edges_touching(ws: Workspace, conn: Connection, frontier: Sequence[str]) -> list[Edge]:
    """Every edge with an end in ``frontier``, heaviest first (equal weights in table order).

    Two lookups, one per end, so each uses its own index (an ``OR`` of two ``IN``s, or
    the ``workspace_id`` term, would let SQLite scan the whole table; ``+`` keeps it off);
    they go to SQLite as one ``UNION ALL`` statement. Each fact's edges are kept while the
    file's version does not change (``_EdgeMemo``). With search's copy of the edges at this
    snapshot (``graph_copy``), they come from there, in the same order.
    """
    with follow.using(ws, conn) as state:
        graph = state.graph_now() if state is not None else None
        if graph is not None:
            node_of = graph.node_of
            nodes = [n for fid in dict.fromkeys(frontier) if (n := node_of.get(fid)) is not None]
            return graph.edges(graph.level(nodes)) if nodes else []
    memo = cached(ws, conn, ("graph-edges",), _EdgeMemo)
    assert memo is not None
    found: dict[int, tuple[float, str, str]] = {}
    missing: list[str] = []
    with memo.lock:
        for fid in dict.fromkeys(frontier):
            known = memo.by_fact.get(fid)
            if known is None:
                missing.append(fid)
                continue
            for rowid, weight, source, target in known:
                found[rowid] = (weight, source, target)
    if missing:
        read = _read_edges(ws, conn, missing)
        with memo.lock:
            if len(memo.by_fact) + len(read) > EDGE_MEMO_FACTS:
                memo.by_fact.clear()
            memo.by_fact.update(read)
        for edges in read.values():
            for rowid, weight, source, target in edges:
                found[rowid] = (weight, source, target)
    ordered = sorted(found.items(), key=lambda item: (-item[1][0], item[0]))
    return [(rowid, weight, source, target) for rowid, (weight, source, target) in ordered]


def _read_edges(ws: Workspace, conn: Connection, facts: Sequence[str]) -> dict[str, tuple[Edge, ...]]:
    """The edges of this workspace touching each of ``facts``, read from the file."""
    edges = ws.layout.edges.name
    raw = conn.connection.driver_connection
    by_fact: dict[str, dict[int, Edge]] = {fid: {} for fid in facts}
    for start in range(0, len(facts), _CHUNK):
        chunk = list(facts[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        part = f"SELECT rowid, weight, source_fact_id, target_fact_id FROM {edges} WHERE {{}} IN ({marks}) " \
               f"AND +workspace_id = ?"
        rows = raw.execute(
            part.format("source_fact_id") + " UNION ALL " + part.format("target_fact_id"),
            (*chunk, ws.workspace_id, *chunk, ws.workspace_id),
        ).fetchall()
        for rowid, weight, source, target in rows:
            edge = (int(rowid), _float(weight), source, target)
            for end in (source, target):
                if end in by_fact:
                    by_fact[end][edge[0]] = edge
    return {fid: tuple(edges.values()) for fid, edges in by_fact.items()}


def walk(ws: Workspace, conn: Connection, seed: str, depth: int = GRAPH_DEPTH) -> list[WalkEdge]:
    """The graph voice's breadth-first walk from ``seed``, edge by edge as it reads them.

    Each level reads every edge touching the level's facts, heaviest first, and takes
    each edge's far end once per walk (the seed is not part of its own walk); superseded
    and missing facts are walked through like any other (only the voice's result drops them).
    """
    visited = {seed}
    frontier = [seed]
    read: list[WalkEdge] = []
    for hop in range(1, depth + 1):
        if not frontier:
            break
        members = set(frontier)
        nxt: list[str] = []
        for rowid, weight, source, target in _edges_touching(ws, conn, frontier):
            reached = None
            for near, far in ((source, target), (target, source)):
                if near in members and far not in visited:
                    visited.add(far)
                    nxt.append(far)
                    reached = far
            read.append(WalkEdge(hop, rowid, source, target, weight, reached))
        frontier = nxt
    return read


def _walk(ws: Workspace, conn: Connection, seed: str, depth: int) -> list[str]:
    return [e.reached for e in walk(ws, conn, seed, depth) if e.reached is not None]


def graph_ids(
    ws: Workspace,
    conn: Connection,
    seeds: Sequence[str],
    *,
    depth: int = GRAPH_DEPTH,
    scope: RepoScope | None = None,
) -> list[str]:
    """The graph voice's ids, in walk order (from search's copy of the edges when it shows this
    snapshot: the same walks, and the active ones known from the copies' active bit)."""
    with follow.using(ws, conn) as state:
        graph = state.graph_now() if state is not None else None
        if graph is not None:
            reached: dict[int, None] = {}
            for seed in seeds:
                reached.update(dict.fromkeys(graph.reached(seed, depth)))
            if scope is None:
                assert state is not None
                return [graph.nodes[n] for n in graph.active_nodes(reached, state.rows.active)]
            walked = [graph.nodes[n] for n in reached]
    if graph is not None:
        keep = active_in_scope(ws, conn, walked, scope)
        return [fid for fid in walked if fid in keep]
    ordered: dict[str, None] = {}
    for seed in seeds:
        for fid in _walk(ws, conn, seed, depth):
            ordered.setdefault(fid, None)
    ids = list(ordered)
    keep = active_in_scope(ws, conn, ids, scope)
    return [fid for fid in ids if fid in keep]


class FactBrief:
    """The fields of a fact that results show and fusion needs."""

    __slots__ = ("_plain", "confidence", "content", "created_at", "domain", "id", "memory_type", "topic")

    def __init__(self, id: str, domain: str, topic: str, content: str, confidence: float,
                 memory_type: str | None, created_at: int | None) -> None:
        self.id, self.domain, self.topic, self.content = id, domain, topic, content
        self.confidence, self.memory_type, self.created_at = confidence, memory_type, created_at
        self._plain: FusionRecord | None = None  # ``record()`` without a scope, made once

    def record(self, scope: RepoScope | None = None) -> FusionRecord:
        if scope is None:
            if self._plain is None:
                self._plain = self._record(None)
            return self._plain
        return self._record(scope)

    def _record(self, scope: RepoScope | None) -> FusionRecord:
        boost = REPO_BOOST if scope is not None and self.domain.startswith(scope.prefix) else 1.0
        created = float(self.created_at) if isinstance(self.created_at, (int, float)) else None
        return FusionRecord(
            created_at=created,  # type: ignore[arg-type]  # weibull_at reads None as 0.0
            memory_type=self.memory_type,
            confidence=self.confidence,
            text=candidate_text(self.topic, self.content),
            boost=boost,
        )


def _float(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0


#: Facts whose briefs one file version keeps at most (the temporal voice's 30 and a topic's
#: neighbours come back search after search); beyond, it starts afresh.
BRIEF_MEMO_FACTS = 20_000


class _BriefMemo:
    """The brief of each fact asked about (None: no such fact), at one file version (``cache.cached``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_id: dict[str, FactBrief | None] = {}


def fact_briefs(ws: Workspace, conn: Connection, ids: Sequence[str]) -> dict[str, FactBrief]:
    """The facts behind ``ids`` (missing ids are simply absent); each kept while the file's
    version does not change (``_BriefMemo``)."""
    memo = cached(ws, conn, ("fact-briefs",), _BriefMemo)
    assert memo is not None
    out: dict[str, FactBrief] = {}
    missing: list[str] = []
    with memo.lock:
        for fid in dict.fromkeys(ids):
            if fid in memo.by_id:
                known = memo.by_id[fid]
                if known is not None:
                    out[fid] = known
            else:
                missing.append(fid)
    if missing:
        read = _read_briefs(ws, conn, missing)
        with memo.lock:
            if len(memo.by_id) + len(missing) > BRIEF_MEMO_FACTS:
                memo.by_id.clear()
            for fid in missing:
                memo.by_id[fid] = read.get(fid)
        out.update(read)
    return out


def _read_briefs(ws: Workspace, conn: Connection, unique: Sequence[str]) -> dict[str, FactBrief]:
    facts = ws.layout.facts.name
    out: dict[str, FactBrief] = {}
    for start in range(0, len(unique), _CHUNK):
        chunk = unique[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = conn.exec_driver_sql(
            f"SELECT id, domain, topic, content, confidence, memory_type, created_at FROM {facts} "
            f"WHERE id IN ({marks})",
            tuple(chunk),
        ).fetchall()
        for r in rows:
            out[r[0]] = FactBrief(r[0], r[1] or "", r[2] or "", r[3] or "", _float(r[4]), r[5], r[6])
    return out
