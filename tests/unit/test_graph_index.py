"""The Knowledge Graph's index, worked out on the worker: the outline's tree (domains by
name, topics by name, facts by topic, then policies, beliefs, missing facts), counts,
each node's edges heaviest first; kept per file version."""

from __future__ import annotations

import json

import numpy as np

from memorydesk.browse.graph.data import BELIEF, DOMAIN, FACT, MISSING, POLICY, TOPIC, build
from memorydesk.browse.graph.index import index_graph, read_indexed_graph
from memorydesk.store import open_workspace

T0 = 1_790_000_000


def small():
    facts = [  # (id, domain, topic, superseded_by, valid_until, agent, type, created, confidence)
        ("a1", "beta", "z-topic", None, None, "ag", "fact", T0, 0.9),
        ("a2", "beta", "a-topic", "a3", None, "ag", "fact", T0, 0.9),
        ("a3", "beta", "a-topic", None, None, "ag", "fact", T0 + 1, 0.9),
        ("b1", "alpha", "only", None, None, "ag", "fact", T0, 0.9),
    ]
    facts.sort(key=lambda r: (r[1], r[2], r[7], r[0]))
    edges = [("e1", "a1", "b1", "related_to", 0.4), ("e2", "a1", "a3", "related_to", 0.9),
             ("e3", "a3", "ghost", "references", 0.9), ("e4", "a1", "a1", "related_to", 0.5)]
    policies = [("p1", "beta", "Do the thing", json.dumps(["a3"]), 1)]
    beliefs = [("bl1", "a belief", "content", json.dumps(["b1"]))]
    return build(7, facts, edges, policies, beliefs, [])


def test_the_outline_tree() -> None:
    g = small()
    ix = index_graph(g)
    label = {i: g.labels[i] for i in range(g.n)}
    top = [int(i) for i in ix.kids[0]]
    domains = [i - 1 for i in top if i <= g.n]
    assert [label[d] for d in domains] == ["alpha", "beta"]  # by name
    assert [ix.group_names[i] for i in top if i > g.n] == ["Policies", "Beliefs", "Missing facts"]
    beta = int(g.domain[g.index["a1"]])
    topics = [int(i) - 1 for i in ix.kids[beta + 1]]
    assert [label[t] for t in topics] == ["a-topic", "z-topic"]  # by name within the domain
    facts = [g.ids[int(i) - 1] for i in ix.kids[topics[0] + 1]]
    assert sorted(facts) == ["a2", "a3"]
    for pid, kids in ix.kids.items():  # every child knows its parent and its row
        assert (ix.parent_of[kids] == pid).all() and (ix.row_in[kids] == np.arange(len(kids))).all()
    kinds = {int(g.kind[i - 1]) for i in ix.kids[top[-1]]}
    assert kinds == {MISSING}
    assert {int(g.kind[i - 1]) for i in ix.kids[top[-3]]} == {POLICY}
    assert {int(g.kind[i - 1]) for i in ix.kids[top[-2]]} == {BELIEF}


def test_counts() -> None:
    g = small()
    ix = index_graph(g)
    beta = int(g.domain[g.index["a1"]])
    a_topic = int(g.topic[g.index["a2"]])
    assert (ix.facts[beta], ix.active[beta], ix.topics[beta]) == (3, 2, 2)  # a2 is superseded
    assert (ix.facts[a_topic], ix.active[a_topic]) == (2, 1)
    ghost = g.index["ghost"]
    assert int(g.kind[ghost]) == MISSING and ix.refs[ghost] == 1
    assert ix.summary == g.counts()
    assert ix.summary["fact"] == 4 and ix.summary["dangling"] == 1


def test_a_nodes_edges_heaviest_first_and_a_loop_once() -> None:
    g = small()
    ix = index_graph(g)
    a1 = g.index["a1"]
    edges = ix.edges_of(a1).tolist()
    weights = [float(g.weight[e]) for e in edges]
    assert weights == sorted(weights, reverse=True)
    assert sorted(g.edge_ids[e] for e in edges if g.edge_ids[e]) == ["e1", "e2", "e4"]  # e4 (a loop) once
    kinds = {int(g.kind[g.src[e]]) for e in ix.edges_of(g.index["a3"])}
    assert kinds == {FACT, POLICY}  # the policy's source link is one of a3's edges too
    assert len(ix.edges_of(int(g.of_kind(DOMAIN)[0]))) == 0 and len(ix.edges_of(int(g.of_kind(TOPIC)[0]))) == 0


def test_the_index_is_kept_per_file_version(sample_db) -> None:
    with open_workspace(sample_db, read_only=True) as ws:
        g1, ix1 = read_indexed_graph(ws)
        g2, ix2 = read_indexed_graph(ws)
    assert g1 is g2 and ix1 is ix2
    assert len(ix1.kids[0]) == ix1.summary["domain"] + 3  # the sample has policies, beliefs and missing facts
