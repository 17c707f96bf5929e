"""Where the Knowledge Graph places things: facts on their topic's disc, topics inside
their domain's disc, no two discs on top of each other, the same answer every time,
an edit that moves nothing, cancelling; the force tools underneath; a focus's layout."""

from __future__ import annotations

import numpy as np
import pytest

from memorydesk.browse.graph.data import DOMAIN, FACT, TOPIC, GraphData, build
from memorydesk.core.graph.force import pack, separate, spring, stress
from memorydesk.core.graph.layout import SPRING_TOPICS, cluster_layout, focus_layout

T0 = 1_790_000_000


def graph(extra_facts: int = 0, seed: int = 5) -> GraphData:
    """Three domains: one with more topics than a spring layout takes (one fact each), one
    with a dozen topics of several facts, one with a single topic; edges within and across."""
    rng = np.random.default_rng(seed)
    facts = []
    for t in range(SPRING_TOPICS + 20):
        facts.append((f"big-{t}", "big", f"ticket {t:04d}", None, None, "a1", "fact", T0 + t, 0.9))
    for t in range(12):
        for k in range(1 + t % 5):
            facts.append((f"mid-{t}-{k}", "mid", f"topic {t:02d}", None, None, "a2", "decision", T0 + k, 0.8))
    for k in range(7 + extra_facts):
        facts.append((f"one-{k}", "one", "only", None, None, "a1", "fact", T0 + k, 0.7))
    facts.sort(key=lambda r: (r[1], r[2], r[7], r[0]))
    ids = [f[0] for f in facts]
    edges = [(f"e{i}", ids[a], ids[b], "related_to", float(rng.uniform(0.35, 1)))
             for i, (a, b) in enumerate(rng.integers(0, len(ids), (300, 2))) if a != b]
    return build(1, facts, edges, [], [], [])


def layout_of(g: GraphData, **kw):
    keys = [f"{g.labels[g.domain[t]]}\x1f{g.labels[t]}" for t in g.of_kind(TOPIC)]
    return cluster_layout(g.kind, g.domain, g.topic, g.src, g.dst, keys, **kw)


def test_facts_sit_on_their_topic_and_topics_inside_their_domain() -> None:
    g = graph()
    lay = layout_of(g)
    pos, radius = lay.pos.astype(float), lay.radius.astype(float)
    facts, topics = g.of_kind(FACT), g.of_kind(TOPIC)
    to_topic = np.hypot(*(pos[facts] - pos[g.topic[facts]]).T)
    assert (to_topic <= radius[g.topic[facts]] + 1e-3).all()
    to_domain = np.hypot(*(pos[topics] - pos[g.domain[topics]]).T) + radius[topics]
    assert (to_domain <= radius[g.domain[topics]] + 1e-3).all()


def test_no_two_domains_nor_two_topics_of_a_domain_overlap() -> None:
    g = graph()
    lay = layout_of(g)
    pos, radius = lay.pos.astype(float), lay.radius.astype(float)

    def overlaps(nodes: np.ndarray) -> float:
        d = np.hypot(pos[nodes, None, 0] - pos[None, nodes, 0], pos[nodes, None, 1] - pos[None, nodes, 1])
        need = radius[nodes, None] + radius[None, nodes]
        np.fill_diagonal(need, 0)
        return float((need - d).max())

    assert overlaps(g.of_kind(DOMAIN)) <= 1e-3
    topics = g.of_kind(TOPIC)
    for d in g.of_kind(DOMAIN):
        assert overlaps(topics[g.domain[topics] == d]) <= 1e-2


def test_the_same_graph_gets_the_same_layout() -> None:
    a, b = layout_of(graph()), layout_of(graph())
    assert np.array_equal(a.pos, b.pos) and np.array_equal(a.radius, b.radius)


def test_an_added_fact_moves_no_topic_and_no_domain() -> None:
    before = layout_of(graph())
    g = graph(extra_facts=3)
    after = layout_of(g, previous=before.topic_pos)
    assert after.method == "kept"
    topics = g.of_kind(TOPIC)
    keys = [f"{g.labels[g.domain[t]]}\x1f{g.labels[t]}" for t in topics]
    assert all(np.allclose(after.pos[t], before.topic_pos[k], atol=1e-3) for t, k in zip(topics, keys))
    old = graph()
    for d_old, d_new in zip(old.of_kind(DOMAIN), g.of_kind(DOMAIN)):
        assert g.labels[d_new] == old.labels[d_old]
        assert np.allclose(after.pos[d_new], before.pos[d_old], atol=1e-3)


def test_cancelling_stops_the_layout() -> None:
    class Stop(Exception):
        pass

    calls = []

    def check() -> None:
        calls.append(1)
        if len(calls) == 2:
            raise Stop

    with pytest.raises(Stop):
        layout_of(graph(), check=check)


def test_separate_leaves_no_overlap_and_pack_keeps_discs_close() -> None:
    rng = np.random.default_rng(2)
    pos = rng.uniform(-1, 1, (60, 2))
    r = rng.uniform(0.5, 3, 60)
    out = separate(pos, r, 0.5, rounds=400)
    d = np.hypot(out[:, None, 0] - out[None, :, 0], out[:, None, 1] - out[None, :, 1])
    need = r[:, None] + r[None, :] + 0.5
    np.fill_diagonal(need, 0)
    assert (need - d).max() <= 1e-2
    packed = pack(pos, r, 0.5)
    spread = np.hypot(*(packed - packed.mean(0)).T).max()
    assert spread < 2.5 * np.sqrt(((r + 0.5) ** 2).sum())  # close around the middle, not flung apart


def test_spring_pulls_linked_nodes_together() -> None:
    # two cliques of 8, one edge between them: each clique ends up tighter than the two are apart
    a, b = [], []
    for base in (0, 8):
        for i in range(8):
            for j in range(i + 1, 8):
                a.append(base + i)
                b.append(base + j)
    a.append(0)
    b.append(8)
    rng = np.random.default_rng(3)
    pos = spring(rng.uniform(-1, 1, (16, 2)), np.array(a), np.array(b), np.ones(len(a)))
    assert np.abs(pos).max() <= 1.0 + 1e-9
    one, two = pos[:8].mean(0), pos[8:].mean(0)
    spread = max(np.hypot(*(pos[:8] - one).T).max(), np.hypot(*(pos[8:] - two).T).max())
    assert np.hypot(*(one - two)) > spread


def test_stress_places_nodes_at_their_graph_distances() -> None:
    # a path of 12 nodes with edges of length 1: laid out, distances follow the path
    n = 12
    a, b = np.arange(n - 1), np.arange(1, n)
    rng = np.random.default_rng(4)
    pos = stress(rng.uniform(-1, 1, (n, 2)), a, b, np.ones(n - 1))
    assert np.allclose(pos[0], 0)  # the fixed node stays at the origin
    span = np.hypot(pos[:, None, 0] - pos[None, :, 0], pos[:, None, 1] - pos[None, :, 1])
    want = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]).astype(float)
    upper = np.triu_indices(n, 1)
    assert np.corrcoef(span[upper], want[upper])[0, 1] > 0.97


def test_a_focus_puts_hop_one_nearer_than_hop_two() -> None:
    # the focus, 6 neighbours, each with 5 of its own
    edges, hops = [], [0] + [1] * 6
    for i in range(1, 7):
        edges.append((0, i, 0.9))
    for i in range(1, 7):
        for _ in range(5):
            edges.append((i, len(hops), 0.6))
            hops.append(2)
    pos = focus_layout(len(hops), edges, hops)
    assert np.allclose(pos[0], 0)
    dist = np.hypot(pos[:, 0], pos[:, 1])
    hops_arr = np.array(hops)
    assert dist[hops_arr == 1].mean() < dist[hops_arr == 2].mean()
