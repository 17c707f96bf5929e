"""What the canvas shows, computed from the graph: the overview (with the filters) and a focus."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

from memorydesk.browse.graph_data import BELIEF, DOMAIN, EDGE_KINDS, FACT, MISSING, POLICY, TOPIC, GraphData
from memorydesk.browse.graph_focus import Focus
from memorydesk.core.graph_layout import ClusterLayout
from memorydesk.ui.graph.canvas import Picture
from memorydesk.ui.graph.layers import LOD_LIMIT, fold_edges
from memorydesk.ui.graph.style import DOMAIN_PALETTE, HOP_COLOURS, NODE_COLOURS

SIZES = {DOMAIN: 18.0, TOPIC: 8.0, FACT: 5.0, POLICY: 11.0, BELIEF: 11.0, MISSING: 10.0}
SYMBOLS = {DOMAIN: "o", TOPIC: "o", FACT: "o", POLICY: "d", BELIEF: "t", MISSING: "x"}
FOCUS_LIMIT = 500
_brushes: dict[tuple[str, int], object] = {}
NO_PEN = pg.mkPen(None)


def brush(colour: str, alpha: int = 255):
    key = (colour, alpha)
    found = _brushes.get(key)
    if found is None:
        c = QColor(colour)
        c.setAlpha(alpha)
        found = _brushes[key] = pg.mkBrush(c)
    return found


def _node_style(g: GraphData, nodes: np.ndarray) -> tuple[list, list]:
    kinds = g.kind[nodes]
    faded = (g.state[nodes] >= 2)
    doms = g.domain[nodes]
    palette = len(DOMAIN_PALETTE)
    fixed = {DOMAIN: NODE_COLOURS["domain"], TOPIC: NODE_COLOURS["topic"], POLICY: NODE_COLOURS["policy"],
             BELIEF: NODE_COLOURS["belief"], MISSING: NODE_COLOURS["missing"]}
    brushes, symbols = [], []
    for k, fade, d in zip(kinds.tolist(), faded.tolist(), doms.tolist()):
        colour = DOMAIN_PALETTE[d % palette] if k == FACT and d >= 0 else fixed.get(k, "#888888")
        brushes.append(brush(colour, 55 if fade else 235))
        symbols.append(SYMBOLS[k])
    return brushes, symbols


def owners(g: GraphData, level: int = TOPIC) -> np.ndarray:
    """Each node's place in the folded picture: its topic (or domain) for a fact, itself otherwise."""
    out = np.arange(g.n)
    facts = g.kind == FACT
    out[facts] = g.topic[facts] if level == TOPIC else g.domain[facts]
    if level == DOMAIN:
        topics = g.kind == TOPIC
        out[topics] = g.domain[topics]
    return out


def overview(g: GraphData, layout: ClusterLayout, show: np.ndarray, kinds_on: np.ndarray) -> Picture:
    nodes = np.flatnonzero(show)
    size = np.array([SIZES[int(k)] for k in range(6)])[g.kind[nodes]]
    brushes, symbols = _node_style(g, nodes)
    emask = kinds_on[g.ekind] & show[g.src] & show[g.dst]
    fold = fold_edges(layout.pos, owners(g), g.src, g.dst, g.ekind, emask)
    if len(fold[0]) > LOD_LIMIT:  # too many topic pairs to draw: fold to domain pairs
        fold = fold_edges(layout.pos, owners(g, DOMAIN), g.src, g.dst, g.ekind, emask)
    pic = Picture(nodes, layout.pos[nodes], size, brushes, [NO_PEN] * len(nodes), symbols,
                  layout.pos[g.src], layout.pos[g.dst], g.ekind, g.weight, fold, edge_alpha=120)
    pic.edge_mask = emask  # type: ignore[attr-defined]
    return pic


def focus_nodes(g: GraphData, found: Focus, limit: int = FOCUS_LIMIT) -> tuple[list[int], list[int], int]:
    """(graph nodes, hops) of the focus's first ``limit`` nodes in walk order, and how many more."""
    nodes, hops = [], []
    for n in found.nodes:
        node = g.index.get(n.id)
        if node is None:
            continue
        if len(nodes) >= limit:
            break
        nodes.append(node)
        hops.append(n.hop)
    return nodes, hops, max(len(found.nodes) - len(nodes), 0)


def focus_edges(g: GraphData, found: Focus, nodes: list[int]) -> list[tuple[int, int, float, int]]:
    """(row a, row b, weight, kind code) of the focus's edges between shown nodes."""
    row = {node: i for i, node in enumerate(nodes)}
    out = []
    for e in found.edges:
        a, b = row.get(g.index.get(e.source, -1)), row.get(g.index.get(e.target, -1))
        if a is None or b is None:
            continue
        code = EDGE_KINDS.index(e.kind) if e.kind in EDGE_KINDS[:3] else 3
        out.append((a, b, e.weight, code))
    return out


def focus_picture(g: GraphData, found: Focus, nodes: list[int], hops: list[int], pos: np.ndarray,
                  edges: list[tuple[int, int, float, int]]) -> Picture:
    arr = np.asarray(nodes, np.int64)
    active = {n.id: n.active for n in found.nodes}
    size, brushes, pens, symbols = [], [], [], []
    for node, hop in zip(nodes, hops):
        kind = int(g.kind[node])
        colour = NODE_COLOURS["missing"] if kind == MISSING else HOP_COLOURS[min(hop, 2)]
        size.append(20.0 if hop == 0 else 13.0 if hop == 1 else 10.0)
        symbols.append("x" if kind == MISSING else "o")
        walked_only = kind == FACT and not active.get(g.ids[node], True)
        brushes.append(brush("#ffffff", 255) if walked_only else brush(colour))
        pens.append(pg.mkPen(colour, width=2) if walked_only else NO_PEN)
    a = np.array([pos[i] for i, _b, _w, _k in edges], np.float64).reshape(-1, 2)
    b = np.array([pos[j] for _a, j, _w, _k in edges], np.float64).reshape(-1, 2)
    return Picture(arr, pos, np.asarray(size), brushes, pens, symbols, a, b,
                   np.array([k for *_r, k in edges], np.int8), np.array([w for _a, _b, w, _k in edges], np.float32),
                   None, edge_alpha=200)
