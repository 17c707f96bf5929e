"""What the canvas shows, worked out from the graph: the overview and a focus.

Everything here is numpy and plain values (no Qt object is made), so the overview's
arrays are built on the layout thread right after the layout, once per file version:
node styles, edge end points and pens, the domains' and topics' discs, names and their
ranks. A filter then only makes masks (and folds the edges it lets through, kept per
filter); the UI thread hands arrays to the canvas.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memorydesk.browse.graph.data import BELIEF, DOMAIN, EDGE_KINDS, FACT, MISSING, POLICY, TOPIC, GraphData
from memorydesk.browse.graph.focus import Focus
from memorydesk.browse.graph.index import GraphIndex
from memorydesk.core.graph.layout import ClusterLayout
from memorydesk.ui.graph.labels import elide
from memorydesk.ui.graph.layers import edge_groups, fold_edges
from memorydesk.ui.graph.style import (
    BELIEF_STYLE,
    DOMAIN_PALETTE,
    DOMAIN_STYLE,
    FOCUS_HOLLOW,
    FOCUS_MISSING,
    FOCUS_STYLES,
    MISSING_STYLE,
    OVERVIEW_STYLES,
    POLICY_OFF_STYLE,
    POLICY_STYLE,
    NodeStyle,
    fact_style,
    topic_style,
)

FOCUS_LIMIT = 500
TOPIC_LABEL_PX = 4.0  # a topic is named once its disc's radius is this many pixels
FACT_LABEL_PX = 16.0  # a fact is named once a layout unit is this many pixels
EPISODIC_MAX = 3  # edge kind codes up to this are episodic


@dataclass
class Labels:
    pos: np.ndarray
    text: list[str]
    rank: np.ndarray
    big: np.ndarray
    zoom: np.ndarray
    rows: np.ndarray  # the picture row each name belongs to


@dataclass
class Picture:
    """What the canvas shows: ``nodes`` are graph node numbers, row by row with the rest."""

    nodes: np.ndarray
    pos: np.ndarray  # (k, 2)
    style: np.ndarray  # (k,) codes into ``styles``
    styles: list[NodeStyle]
    lines: tuple[np.ndarray, ...]  # x1, y1, x2, y2, pen group per edge
    fold: list[tuple[np.ndarray, ...]] | None = None  # folded pictures, finest first
    edge_alpha: int = 150
    visible: np.ndarray | None = None  # rows shown (None: all)
    edge_mask: np.ndarray | None = None  # edges shown (None: all)
    discs: tuple | None = None  # centre, radius, colour, level, visible
    labels: Labels | None = None


def lines_between(a: np.ndarray, b: np.ndarray, kind: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, ...]:
    """Edge end points ``a``/``b`` ((m, 2)) with their kinds and weights, as the canvas takes them."""
    a, b = np.asarray(a, np.float64).reshape(-1, 2), np.asarray(b, np.float64).reshape(-1, 2)
    ends = (np.ascontiguousarray(v) for v in (a[:, 0], a[:, 1], b[:, 0], b[:, 1]))  # as the canvas keeps them
    return (*ends, edge_groups(np.asarray(kind), np.asarray(weight, np.float32)))


def owners(g: GraphData, level: int = TOPIC) -> np.ndarray:
    """Each node's place in the folded picture: its topic (or domain) for a fact, itself otherwise."""
    out = np.arange(g.n)
    facts = g.kind == FACT
    out[facts] = g.topic[facts] if level == TOPIC else g.domain[facts]
    if level == DOMAIN:
        topics = g.kind == TOPIC
        out[topics] = g.domain[topics]
    return out


def domain_colours(pos: np.ndarray, size: np.ndarray, near: int = 6) -> np.ndarray:
    """A palette colour per domain, biggest first, each unlike its ``near`` nearest
    neighbours' (with 40 domains and 14 colours, no two neighbours look alike)."""
    n, palette = len(pos), len(DOMAIN_PALETTE)
    colour = np.full(n, -1, np.int64)
    if not n:
        return colour
    dist = np.hypot(pos[:, None, 0] - pos[None, :, 0], pos[:, None, 1] - pos[None, :, 1])
    used = np.zeros(palette, np.int64)
    for d in np.argsort(-size, kind="stable").tolist():
        around = np.argsort(dist[d], kind="stable")[1:near + 1]
        taken = set(colour[around][colour[around] >= 0].tolist())
        free = [c for c in range(palette) if c not in taken] or list(range(palette))
        best = min(free, key=lambda c: (used[c], c))
        colour[d] = best
        used[best] += 1
    return colour


@dataclass
class Overview:
    """The overview's arrays for one graph and layout (filter-independent)."""

    pos: np.ndarray
    style: np.ndarray
    lines: tuple[np.ndarray, ...]
    disc_nodes: np.ndarray
    disc_radius: np.ndarray
    disc_colour: list[str]
    disc_level: np.ndarray
    labels: Labels
    folds: dict[tuple, list[tuple[np.ndarray, ...]]] = field(default_factory=dict)
    topic_owner: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    domain_owner: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


def overview(g: GraphData, ix: GraphIndex, layout: ClusterLayout) -> Overview:
    """Build the overview's arrays (numpy only: meant for the layout thread)."""
    pos = layout.pos.astype(np.float64)
    domains, topics = g.of_kind(DOMAIN), g.of_kind(TOPIC)
    colour = np.zeros(g.n, np.int64)
    colour[domains] = domain_colours(pos[domains], ix.facts[domains].astype(np.float64))
    has_domain = g.domain >= 0
    colour[has_domain] = colour[g.domain[has_domain]]
    style = np.full(g.n, MISSING_STYLE, np.int16)
    facts = g.kind == FACT
    style[facts] = fact_style(colour[facts], g.state[facts] >= 2)
    topics_mask = g.kind == TOPIC
    style[topics_mask] = topic_style(colour[topics_mask], ix.facts[topics_mask])
    style[g.kind == DOMAIN] = DOMAIN_STYLE
    style[(g.kind == POLICY) & (g.state == 0)] = POLICY_STYLE
    style[(g.kind == POLICY) & (g.state != 0)] = POLICY_OFF_STYLE
    style[g.kind == BELIEF] = BELIEF_STYLE
    lines = lines_between(pos[g.src], pos[g.dst], g.ekind, g.weight)
    radius = layout.radius.astype(np.float64)
    disc_nodes = np.concatenate([domains, topics])
    disc_colour = [DOMAIN_PALETTE[int(c) % len(DOMAIN_PALETTE)] for c in colour[disc_nodes]]
    disc_level = np.concatenate([np.zeros(len(domains), np.int8), np.ones(len(topics), np.int8)])
    named = np.concatenate([domains, topics, g.of_kind(FACT)])
    zoom = np.zeros(len(named))
    zoom[len(domains):len(domains) + len(topics)] = TOPIC_LABEL_PX / np.maximum(radius[topics], 1e-3)
    zoom[len(domains) + len(topics):] = FACT_LABEL_PX
    rank = ix.facts[named].astype(np.float64)
    rank[:len(domains)] += 1e9  # domains first
    labels = Labels(pos[named], [elide(g.labels[i] or "—") for i in named.tolist()], rank,
                    np.arange(len(named)) < len(domains), zoom, named)
    return Overview(pos, style, lines, disc_nodes, radius[disc_nodes], disc_colour, disc_level, labels,
                    topic_owner=owners(g, TOPIC), domain_owner=owners(g, DOMAIN))


def overview_fold(g: GraphData, ov: Overview, emask: np.ndarray, key: tuple) -> list[tuple[np.ndarray, ...]]:
    """The folded pictures of the edges a filter lets through, by topic and by domain
    (kept in ``ov.folds`` under ``key``); the canvas draws the finest that fits the view."""
    found = ov.folds.get(key)
    if found is None:
        found = ov.folds[key] = [fold_edges(ov.pos, owner, g.src, g.dst, g.ekind, emask)
                                 for owner in (ov.topic_owner, ov.domain_owner)]
    return found


def overview_picture(g: GraphData, ov: Overview, show: np.ndarray, kinds_on: np.ndarray, key: tuple) -> Picture:
    """The overview with the filters' node mask ``show`` and edge kinds ``kinds_on``."""
    emask = kinds_on[g.ekind] & show[g.src] & show[g.dst]
    fold = overview_fold(g, ov, emask, key)
    discs = (ov.pos[ov.disc_nodes], ov.disc_radius, ov.disc_colour, ov.disc_level, show[ov.disc_nodes])
    return Picture(np.arange(g.n), ov.pos, ov.style, OVERVIEW_STYLES, ov.lines, fold, edge_alpha=120, visible=show,
                   edge_mask=emask, discs=discs, labels=ov.labels)


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
    """(row a, row b, weight, kind code) of the focus's edges between shown nodes: the
    walk's own, then the other links among them (supersession, conflict), which the
    graph voice does not walk but which say why a fact is hollow."""
    row = {node: i for i, node in enumerate(nodes)}
    out = []
    for e in found.edges:
        a, b = row.get(g.index.get(e.source, -1)), row.get(g.index.get(e.target, -1))
        if a is None or b is None:
            continue
        code = EDGE_KINDS.index(e.kind) if e.kind in EDGE_KINDS[:3] else 3
        out.append((a, b, e.weight, code))
    shown = np.zeros(g.n, bool)
    shown[nodes] = True
    other = np.flatnonzero((g.ekind > EPISODIC_MAX) & shown[g.src] & shown[g.dst])
    out.extend((row[int(g.src[e])], row[int(g.dst[e])], 1.0, int(g.ekind[e])) for e in other.tolist())
    return out


def focus_picture(g: GraphData, found: Focus, nodes: list[int], hops: list[int], pos: np.ndarray,
                  edges: list[tuple[int, int, float, int]]) -> Picture:
    active = {n.id: n.active for n in found.nodes}
    style = []
    for node, hop in zip(nodes, hops):
        kind = int(g.kind[node])
        if kind == MISSING:
            style.append(FOCUS_MISSING)
        elif hop and kind == FACT and not active.get(g.ids[node], True):
            style.append(FOCUS_HOLLOW + min(hop, 2) - 1)
        else:
            style.append(min(hop, 2))
    pos = np.asarray(pos, np.float64).reshape(-1, 2)
    ends = np.array([(a, b) for a, b, _w, _k in edges], np.int64).reshape(-1, 2)
    kind = np.array([k for *_r, k in edges], np.int8)
    weight = np.array([w for _a, _b, w, _k in edges], np.float32)
    lines = lines_between(pos[ends[:, 0]], pos[ends[:, 1]], kind, weight)
    texts = [g.labels[n] if int(g.kind[n]) != MISSING else "missing" for n in nodes]
    hop_arr = np.asarray(hops, np.float64)
    labels = Labels(pos, [elide(t or "—") for t in texts], 3.0 - np.minimum(hop_arr, 2), hop_arr == 0,
                    np.zeros(len(nodes)), np.arange(len(nodes)))
    return Picture(np.asarray(nodes, np.int64), pos, np.asarray(style, np.int16), FOCUS_STYLES, lines,
                   None, edge_alpha=200, labels=labels)
