"""A fact's focus in the Knowledge Graph: exactly what the hybrid search's graph voice
walks from it (docs/product-format.md, "The product's rules"), with hop numbers and the edges the walk read.

The walk is ``search.hybrid.walk`` itself: each level reads every episodic edge touching
the level's facts in both directions, heaviest first (equal weights in table order), and
takes each edge's far end once. Superseded facts are walked through (the voice drops
them from what it recalls: ``active`` is False); an id no fact has any more is a
``missing`` node, walked through as well. ``edges`` are every edge the walk read, in the
order it read them; ``tree`` marks the one that brought its far end into the walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memorydesk.browse.facts import fact_state
from memorydesk.core.errors import BadInput
from memorydesk.search.hybrid import GRAPH_DEPTH, walk
from memorydesk.store.workspace import Workspace

__all__ = ["Focus", "FocusEdge", "FocusNode", "focus"]

_CHUNK = 500


@dataclass(frozen=True, slots=True)
class FocusNode:
    id: str
    kind: str  # "fact" or "missing"
    hop: int  # 0 for the focus itself
    active: bool  # present and not superseded (at hop ≥ 1: what the graph voice recalls)
    domain: str = ""
    topic: str = ""
    state: str = "missing"  # active / expired / deleted / superseded / missing

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "hop": self.hop, "active": self.active}


@dataclass(frozen=True, slots=True)
class FocusEdge:
    id: str
    rowid: int
    source: str
    target: str
    kind: str  # the edge's edge_type
    weight: float
    hop: int  # the level of the walk that read it
    tree: bool  # it brought its far end into the walk

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "kind": self.kind, "weight": self.weight}


@dataclass
class Focus:
    focus: str
    nodes: list[FocusNode] = field(default_factory=list)
    edges: list[FocusEdge] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"focus": self.focus, "nodes": [n.to_json() for n in self.nodes],
                "edges": [e.to_json() for e in self.edges]}

    def hop_counts(self) -> tuple[int, int]:
        return (sum(1 for n in self.nodes if n.hop == 1), sum(1 for n in self.nodes if n.hop == 2))


def _facts(ws: Workspace, conn: Any, ids: list[str]) -> dict[str, tuple[str, str, str | None, int | None]]:
    facts = ws.layout.facts.name
    out: dict[str, tuple[str, str, str | None, int | None]] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        rows = conn.exec_driver_sql(
            f"SELECT id, domain, topic, superseded_by, valid_until FROM {facts} WHERE id IN "
            f"({','.join('?' * len(chunk))})", tuple(chunk)).fetchall()
        for r in rows:
            out[r[0]] = (r[1] or "", r[2] or "", r[3], r[4])
    return out


def _edge_rows(ws: Workspace, conn: Any, rowids: list[int]) -> dict[int, tuple[str, str]]:
    edges = ws.layout.edges.name
    out: dict[int, tuple[str, str]] = {}
    for start in range(0, len(rowids), _CHUNK):
        chunk = rowids[start:start + _CHUNK]
        rows = conn.exec_driver_sql(
            f"SELECT rowid, id, edge_type FROM {edges} WHERE rowid IN ({','.join('?' * len(chunk))})",
            tuple(chunk)).fetchall()
        for r in rows:
            out[int(r[0])] = (str(r[1]), str(r[2]))
    return out


def focus(ws: Workspace, fact_id: str, *, depth: int = GRAPH_DEPTH, allow_missing: bool = False) -> Focus:
    """The graph voice's ``depth``-hop neighbourhood of ``fact_id`` (one read snapshot).

    Raises ``BadInput`` when no fact has that id (unless ``allow_missing``: a missing id
    named by edges can be walked from as well)."""
    with ws.read() as conn:  # one read transaction: the walk and the rows it names agree
        seed = _facts(ws, conn, [fact_id])
        if not seed and not allow_missing:
            raise BadInput(f"no fact has the id {fact_id!r} in this workspace")
        read = walk(ws, conn, fact_id, depth)
        order = [fact_id] + [e.reached for e in read if e.reached is not None]
        hop = {fact_id: 0}
        for e in read:
            if e.reached is not None:
                hop[e.reached] = e.hop
        facts = _facts(ws, conn, order)
        rows = _edge_rows(ws, conn, [e.rowid for e in read])
    nodes = []
    for fid in order:
        found = facts.get(fid)
        if found is None:
            nodes.append(FocusNode(fid, "missing", hop[fid], False))
            continue
        domain, topic, superseded_by, valid_until = found
        nodes.append(FocusNode(fid, "fact", hop[fid], superseded_by is None, domain, topic,
                               fact_state(superseded_by, valid_until)))
    edges = []
    for e in read:
        edge_id, kind = rows.get(e.rowid, ("", "related_to"))
        edges.append(FocusEdge(edge_id, e.rowid, e.source, e.target, kind, e.weight, e.hop, e.reached is not None))
    return Focus(fact_id, nodes, edges)
