"""Where the Knowledge Graph tab draws each node (pure numpy and networkx; no Qt, no SQL).

A force layout of the whole graph is out of reach (networkx's ``spring_layout`` took
134 s on 20,000 nodes), so the overview is laid out in clusters:

- each fact sits on a disc around its topic (a sunflower: the k-th fact at radius
  ∝ √k, golden angle apart, so adding a fact never moves the others);
- topics: when there are few of them (``SPRING_TOPICS``), a spring layout of the topic
  graph (topics linked by their facts' edges, each tied to a hub for its domain), then
  the topics' discs pushed apart until none overlap; with many topics (a demo with
  thousands of one-fact topics), each domain packs its topics on an area-weighted
  sunflower (largest in the middle), and a spring layout of the small domain graph
  places the domains, again pushed apart until their discs do not overlap;
- domains at the middle of their topics, policies at the mean of their source facts,
  beliefs at the mean of their provenance, missing facts beside what names them.

A focus (at most a few hundred nodes) is laid out by networkx itself: Kamada-Kawai
under ``KAMADA_KAWAI_MAX`` nodes, a spring layout above, both started from rings by hop.
Every step is deterministic; ``check()`` is called between steps (it raises to cancel).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

__all__ = ["ClusterLayout", "cluster_layout", "focus_layout"]

GOLDEN = math.pi * (3 - math.sqrt(5))
FACT_SPACING = 1.0
TOPIC_GAP = 1.5
DOMAIN_GAP = 6.0
SPRING_TOPICS = 600
KAMADA_KAWAI_MAX = 100
SEED = 7
DOMAIN, TOPIC, FACT, POLICY, BELIEF, MISSING = range(6)


@dataclass
class ClusterLayout:
    pos: np.ndarray  # (n, 2) float32
    radius: np.ndarray  # per node: the disc it heads (topics, domains), else 0
    method: str  # "topic spring" or "domain spring"
    topic_pos: dict[str, tuple[float, float]] = field(default_factory=dict)  # for a stable layout next time


def _sunflower(k: np.ndarray, spacing: float = FACT_SPACING) -> np.ndarray:
    r = spacing * np.sqrt(k + 0.5)
    a = k * GOLDEN
    return np.stack([r * np.cos(a), r * np.sin(a)], axis=1)


def _separate(pos: np.ndarray, radius: np.ndarray, gap: float, rounds: int = 40) -> np.ndarray:
    """Push discs apart until none overlap (or ``rounds`` passes); O(n²) per pass, for n ≤ ~600."""
    pos = pos.astype(np.float64).copy()
    n = len(pos)
    if n < 2:
        return pos
    need = radius[:, None] + radius[None, :] + gap
    np.fill_diagonal(need, 0)
    for _ in range(rounds):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.sqrt((delta ** 2).sum(-1))
        np.fill_diagonal(dist, np.inf)
        overlap = np.clip(need - dist, 0, None)
        np.fill_diagonal(overlap, 0)
        if overlap.max() <= 1e-6:
            break
        dist = np.where(np.isfinite(dist) & (dist > 1e-9), dist, 1e-9)
        push = (delta / dist[..., None]) * (overlap[..., None] / 2)
        pos += push.sum(axis=1)
    return pos


def _spring(n: int, pairs: dict[tuple[int, int], float], init: np.ndarray) -> np.ndarray:
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from((a, b, w) for (a, b), w in pairs.items())
    pos = nx.spring_layout(g, pos={i: tuple(init[i]) for i in range(n)}, weight="weight", seed=SEED,
                           iterations=60)
    return np.array([pos[i] for i in range(n)], dtype=np.float64)


def _topic_pairs(topic_of_src: np.ndarray, topic_of_dst: np.ndarray) -> dict[tuple[int, int], int]:
    ok = (topic_of_src >= 0) & (topic_of_dst >= 0) & (topic_of_src != topic_of_dst)
    a = np.minimum(topic_of_src[ok], topic_of_dst[ok])
    b = np.maximum(topic_of_src[ok], topic_of_dst[ok])
    if not len(a):
        return {}
    keys, counts = np.unique(np.stack([a, b], axis=1), axis=0, return_counts=True)
    return {(int(x), int(y)): int(c) for (x, y), c in zip(keys, counts)}


def cluster_layout(kind: np.ndarray, domain: np.ndarray, topic: np.ndarray, src: np.ndarray, dst: np.ndarray,
                   topic_keys: list[str], *, previous: dict[str, tuple[float, float]] | None = None,
                   check: Callable[[], None] = lambda: None,
                   progress: Callable[[int, str], None] = lambda _p, _t: None) -> ClusterLayout:
    """Positions for every node (see the module docstring). ``topic_keys`` name the topic
    nodes in order (``previous`` positions of the same keys are kept as they were)."""
    n = len(kind)
    pos = np.zeros((n, 2), np.float64)
    radius = np.zeros(n, np.float64)
    topics = np.flatnonzero(kind == TOPIC)
    domains = np.flatnonzero(kind == DOMAIN)
    facts = np.flatnonzero(kind == FACT)
    nt, nd = len(topics), len(domains)
    t_local = np.full(n, -1, np.int64)  # node -> topic number 0..nt-1
    t_local[topics] = np.arange(nt)
    d_local = np.full(n, -1, np.int64)
    d_local[domains] = np.arange(nd)
    progress(5, "placing facts around their topics")
    # facts: rank within their topic, in the order given (the data is sorted by topic)
    ft = t_local[topic[facts]]
    order = np.argsort(ft, kind="stable")
    sorted_t = ft[order]
    starts = np.searchsorted(sorted_t, np.arange(nt))
    rank = np.empty(len(facts), np.int64)
    rank[order] = np.arange(len(facts)) - starts[sorted_t]
    sizes = np.bincount(ft, minlength=nt) if len(facts) else np.zeros(nt, np.int64)
    t_radius = FACT_SPACING * np.sqrt(sizes + 0.5) + 0.6
    topic_domain = d_local[domain[topics]]
    check()
    method = "topic spring" if nt <= SPRING_TOPICS else "domain spring"
    keep = previous is not None and nt > 0 and all(k in previous for k in topic_keys)
    if keep:
        tpos = np.array([previous[k] for k in topic_keys], np.float64)  # type: ignore[index]
        method = "kept"
    elif nt == 0:
        tpos = np.zeros((0, 2))
    elif method == "topic spring":
        progress(20, f"spring layout of {nt} topics")
        pairs: dict[tuple[int, int], float] = {}
        found = _topic_pairs(t_local[topic[src]] if len(src) else np.zeros(0, np.int64),
                             t_local[topic[dst]] if len(dst) else np.zeros(0, np.int64))
        top = max(found.values(), default=1)
        for key, c in found.items():
            pairs[key] = 0.05 + 0.3 * c / top
        for t in range(nt):  # each topic tied to its domain's hub, more strongly than to other topics
            pairs[(t, nt + int(topic_domain[t]))] = 4.0
        ring = np.arange(nd) * (2 * math.pi / max(nd, 1))
        init = np.zeros((nt + nd, 2))
        init[nt:] = np.stack([np.cos(ring), np.sin(ring)], axis=1)
        init[:nt] = init[nt + topic_domain] + 0.05 * _sunflower(np.arange(nt), 1.0)
        spring = _spring(nt + nd, pairs, init)[:nt]
        check()
        progress(70, "pushing topics apart")
        spread = np.sqrt((t_radius ** 2).sum()) * 1.6
        tpos = _separate(spring * spread, t_radius, TOPIC_GAP)
    else:
        progress(20, f"packing {nt} topics into {nd} domains")
        tpos = np.zeros((nt, 2))
        d_radius = np.zeros(nd)
        for d in range(nd):
            mine = np.flatnonzero(topic_domain == d)
            if not len(mine):
                continue
            mine = mine[np.lexsort((mine, -sizes[mine]))]  # largest first, then in order
            r = t_radius[mine] + TOPIC_GAP / 2
            area = np.cumsum(r ** 2) - r ** 2 / 2
            rho = np.sqrt(area) * 1.9
            a = np.arange(len(mine)) * GOLDEN
            tpos[mine] = np.stack([rho * np.cos(a), rho * np.sin(a)], axis=1)
            d_radius[d] = float((rho + r).max())
        check()
        progress(60, f"spring layout of {nd} domains")
        cross = _topic_pairs(d_local[domain[src]] if len(src) else np.zeros(0, np.int64),
                             d_local[domain[dst]] if len(dst) else np.zeros(0, np.int64))
        top = max(cross.values(), default=1)
        ring = np.arange(nd) * (2 * math.pi / max(nd, 1))
        init = np.stack([np.cos(ring), np.sin(ring)], axis=1)
        dpos = _spring(nd, {k: 0.1 + c / top for k, c in cross.items()}, init) if nd > 1 else np.zeros((nd, 2))
        dpos = _separate(dpos * np.sqrt((d_radius ** 2).sum()) * 1.2, d_radius, DOMAIN_GAP, rounds=200)
        tpos += dpos[topic_domain]
        pos[domains] = dpos
        radius[domains] = d_radius
    check()
    progress(90, "placing domains, policies, beliefs and missing facts")
    pos[topics] = tpos
    radius[topics] = t_radius
    pos[facts] = tpos[ft] + _sunflower(rank.astype(np.float64))
    if method != "domain spring":
        for d in range(nd):
            mine = topic_domain == d
            if mine.any():
                pos[domains[d]] = tpos[mine].mean(axis=0)
                radius[domains[d]] = float(np.sqrt(((tpos[mine] - pos[domains[d]]) ** 2).sum(1)).max()
                                           + t_radius[mine].max())
    _place_attached(pos, kind, domain, src, dst, domains)
    return ClusterLayout(pos.astype(np.float32), radius.astype(np.float32), method,
                         {k: (float(x), float(y)) for k, (x, y) in zip(topic_keys, tpos)})


def _place_attached(pos: np.ndarray, kind: np.ndarray, domain: np.ndarray, src: np.ndarray, dst: np.ndarray,
                    domains: np.ndarray) -> None:
    """Policies and beliefs at the mean of the facts they name; missing facts beside what names them."""
    placed = (kind == FACT) | (kind == TOPIC) | (kind == DOMAIN)
    for k in (POLICY, BELIEF, MISSING):
        nodes = np.flatnonzero(kind == k)
        if not len(nodes):
            continue
        total = np.zeros((len(kind), 2))
        count = np.zeros(len(kind))
        for a, b in ((src, dst), (dst, src)):
            ok = (kind[a] == k) & placed[b]
            np.add.at(total, a[ok], pos[b[ok]])
            np.add.at(count, a[ok], 1)
        has = count[nodes] > 0
        offset = _sunflower(np.arange(len(nodes), dtype=np.float64), 0.35) + 0.8
        pos[nodes[has]] = total[nodes[has]] / count[nodes[has], None] + offset[has]
        lone = nodes[~has]
        if len(lone):
            home = domain[lone]
            centre = np.where(home[:, None] >= 0, pos[np.clip(home, 0, None)], pos[placed].min(axis=0) - 8)
            pos[lone] = centre + _sunflower(np.arange(len(lone), dtype=np.float64), 1.2) + 1.5
        placed[nodes] = True


def focus_layout(n: int, edges: list[tuple[int, int, float]], hops: list[int]) -> np.ndarray:
    """Positions for a focus subgraph: node 0 is the focus; Kamada-Kawai for a small one,
    a spring layout for a larger one, both started from rings by hop."""
    init = np.zeros((n, 2))
    for h in (1, 2):
        members = [i for i in range(n) if hops[i] == h]
        for j, i in enumerate(members):
            a = 2 * math.pi * j / max(len(members), 1) + h * 0.3
            init[i] = (h * math.cos(a), h * math.sin(a))
    if n <= 2:
        return (init * 10).astype(np.float32)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for a, b, w in edges:
        if a != b:
            g.add_edge(a, b, weight=max(float(w), 0.05))
    start = {i: tuple(init[i]) for i in range(n)}
    if n < KAMADA_KAWAI_MAX:
        lengths = {a: {b: 1.0 / g[a][b]["weight"] ** 0.5 for b in g[a]} for a in g}
        for a in g:
            for b in g[a]:
                g[a][b]["length"] = lengths[a][b]
        pos = nx.kamada_kawai_layout(g, pos=start, weight="length")
    else:
        pos = nx.spring_layout(g, pos=start, fixed=[0], seed=SEED, iterations=50, k=1.5 / math.sqrt(n))
    out = np.array([pos[i] for i in range(n)], np.float64)
    out -= out[0]
    scale = np.abs(out).max() or 1.0
    return (out / scale * 6 * math.sqrt(n)).astype(np.float32)
