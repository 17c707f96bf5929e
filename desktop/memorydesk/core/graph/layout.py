"""Where the Knowledge Graph tab draws each node (pure numpy; no Qt, no SQL).

A force layout of the whole graph is out of reach (networkx's ``spring_layout`` took
134 s on 20,000 nodes), so the overview is laid out in clusters:

- each fact sits on a disc around its topic (a sunflower: the k-th fact at radius
  ∝ √k, golden angle apart, so adding a fact never moves the others);
- each domain's topics inside the domain's disc: up to ``SPRING_TOPICS`` of them by a
  spring layout of the links between them, their discs then pushed apart until none
  overlaps; more (a demo with thousands of one-fact topics) on an area-weighted
  sunflower, the largest in the middle;
- the domains by a spring layout of the small domain graph (domains linked by their
  facts' edges), their discs then packed close around the middle without overlapping;
- policies at the mean of their source facts, beliefs at the mean of their
  provenance, missing facts beside what names them.

With the layout of an earlier version (``previous``: its ``topic_pos``), topics and
domains stay where they were, so an edit does not move the picture.

A focus (at most a few hundred nodes) is laid out by stress majorization (Kamada and
Kawai's energy) under ``STRESS_MAX`` nodes and a spring layout above, both started
from rings by hop. Every step is deterministic; ``check()`` is called between steps
(it raises to cancel)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from memorydesk.core.graph.force import pack, separate, spring, stress

__all__ = ["ClusterLayout", "cluster_layout", "focus_layout"]

GOLDEN = math.pi * (3 - math.sqrt(5))
FACT_SPACING = 1.0
TOPIC_GAP = 1.5
DOMAIN_GAP = 6.0
SPRING_TOPICS = 150  # a domain with more topics packs them on a sunflower instead of a spring layout
DOMAIN_KEY = "\x1edomain"  # ClusterLayout.topic_pos also keeps each domain's place, under its name + this
STRESS_MAX = 160
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


def _pairs(x: np.ndarray, y: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, count): how many edges join each unordered pair of groups (``-1``: none, and a
    group with itself, are left out)."""
    ok = (x >= 0) & (y >= 0) & (x != y)
    lo = np.minimum(x[ok], y[ok]).astype(np.int64)
    hi = np.maximum(x[ok], y[ok]).astype(np.int64)
    keys, counts = np.unique(lo * size + hi, return_counts=True)
    return keys // size, keys % size, counts


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
    keep = previous is not None and nt > 0 and all(k in previous for k in topic_keys)
    none = np.zeros(0, np.int64)
    names = [""] * nd  # each domain's name, as its topics' keys give it
    for t, key in zip(topic_domain.tolist(), topic_keys):
        names[t] = key.split("\x1f")[0] + DOMAIN_KEY
    method = "kept" if keep else "clusters"
    if keep:
        tpos = np.array([previous[k] for k in topic_keys], np.float64)  # type: ignore[index]
        dpos = np.zeros((nd, 2))
        for d in range(nd):  # where the domain was (or the middle of its topics)
            mine = topic_domain == d
            middle = tpos[mine].mean(axis=0) if mine.any() else np.zeros(2)
            dpos[d] = previous.get(names[d], middle) if previous is not None and names[d] else middle
    else:
        progress(15, f"placing {nt} topics inside {nd} domains")
        ta, tb, count = _pairs(t_local[topic[src]] if len(src) else none, t_local[topic[dst]] if len(dst) else none,
                               nt)
        inside = topic_domain[ta] == topic_domain[tb]
        ta, tb, count = ta[inside], tb[inside], count[inside]
        by_domain = np.argsort(topic_domain[ta], kind="stable")
        cuts = np.searchsorted(topic_domain[ta][by_domain], np.arange(nd + 1))
        tpos = np.zeros((nt, 2))
        d_radius = np.zeros(nd)
        for d in range(nd):
            mine = np.flatnonzero(topic_domain == d)
            if len(mine):
                links = by_domain[cuts[d]:cuts[d + 1]]
                tpos[mine], d_radius[d] = _topics_in_domain(mine, ta[links], tb[links], count[links], sizes,
                                                           t_radius)
            if d % 8 == 7:
                check()
        progress(60, f"spring layout of {nd} domains")
        da, db, count = _pairs(d_local[domain[src]] if len(src) else none, d_local[domain[dst]] if len(dst) else none,
                               nd)
        ring = np.arange(nd) * (2 * math.pi / max(nd, 1))
        init = np.stack([np.cos(ring), np.sin(ring)], axis=1)
        w = 0.1 + count / max(int(count.max(initial=1)), 1)
        dpos = pack(spring(init, da, db, w) if nd > 1 else np.zeros((nd, 2)), d_radius, DOMAIN_GAP)
        tpos += dpos[topic_domain]
    check()
    progress(90, "placing domains, policies, beliefs and missing facts")
    pos[topics] = tpos
    radius[topics] = t_radius
    pos[facts] = tpos[ft] + _sunflower(rank.astype(np.float64))
    pos[domains] = dpos
    for d in range(nd):
        mine = topic_domain == d
        if mine.any():
            radius[domains[d]] = float((np.hypot(*(tpos[mine] - dpos[d]).T) + t_radius[mine]).max())
    _place_attached(pos, kind, domain, src, dst, domains)
    kept = {k: (float(x), float(y)) for k, (x, y) in zip(topic_keys, tpos)}
    kept.update({name: (float(x), float(y)) for name, (x, y) in zip(names, dpos) if name})
    return ClusterLayout(pos.astype(np.float32), radius.astype(np.float32), method, kept)


def _topics_in_domain(mine: np.ndarray, a: np.ndarray, b: np.ndarray, count: np.ndarray, sizes: np.ndarray,
                      t_radius: np.ndarray) -> tuple[np.ndarray, float]:
    """Positions of a domain's topics around its middle, and the radius of the disc they fill.

    Up to ``SPRING_TOPICS`` topics: a spring layout of the links between them, then the
    topics' discs pushed apart until none overlaps; more (thousands of one-fact topics):
    an area-weighted sunflower, the largest in the middle."""
    order = mine[np.lexsort((mine, -sizes[mine]))]  # largest first, then in order
    r = t_radius[order]
    if 1 < len(order) <= SPRING_TOPICS:
        local = np.full(int(mine.max()) + 1, -1, np.int64)
        local[order] = np.arange(len(order))
        init = _sunflower(np.arange(len(order), dtype=np.float64), 1.0)
        w = 0.05 + 0.5 * count / max(int(count.max(initial=1)), 1)
        placed = spring(init, local[a], local[b], w) * np.sqrt(((r + TOPIC_GAP) ** 2).sum()) * 1.1
        placed = separate(placed, r, TOPIC_GAP, rounds=60)
    else:
        rr = r + TOPIC_GAP / 2
        rho = np.sqrt(np.cumsum(rr ** 2) - rr ** 2 / 2) * 1.9
        angle = np.arange(len(order)) * GOLDEN
        placed = np.stack([rho * np.cos(angle), rho * np.sin(angle)], axis=1)
    middle = (placed * (r ** 2)[:, None]).sum(0) / (r ** 2).sum()
    placed -= middle
    out = np.zeros((len(mine), 2))
    where = {int(t): i for i, t in enumerate(mine.tolist())}
    out[[where[int(t)] for t in order.tolist()]] = placed
    return out, float((np.hypot(placed[:, 0], placed[:, 1]) + r).max())


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
    """Positions for a focus subgraph: node 0 is the focus, at the origin. Stress
    majorization (Kamada and Kawai's energy: distances as the graph's, an edge of weight w
    as long as 1/√w) for up to ``STRESS_MAX`` nodes, a spring layout above; both start
    from rings by hop."""
    init = np.zeros((n, 2))
    for h in (1, 2):
        members = [i for i in range(n) if hops[i] == h]
        for j, i in enumerate(members):
            a = 2 * math.pi * j / max(len(members), 1) + h * 0.3
            init[i] = (h * math.cos(a), h * math.sin(a))
    if n <= 2:
        return (init * 10).astype(np.float32)
    ends = np.array([(a, b) for a, b, _w in edges], np.int64).reshape(-1, 2)
    weight = np.array([max(float(w), 0.05) for _a, _b, w in edges], np.float64)
    if n <= STRESS_MAX:
        out = stress(init, ends[:, 0], ends[:, 1], 1.0 / np.sqrt(weight))
    else:
        out = spring(init, ends[:, 0], ends[:, 1], weight, iterations=50, k=1.5 / math.sqrt(n))
    out = out - out[0]
    scale = np.abs(out).max() or 1.0
    return (out / scale * 6 * math.sqrt(n)).astype(np.float32)
