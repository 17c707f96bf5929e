"""What the Knowledge Graph tab looks up in its graph, computed once per file version on
the worker (no Qt): the outline's tree (domain → topic → fact, then policies, beliefs and
missing facts) as index arrays, each node's counts, and each node's edges heaviest first.

Outline ids: ``node + 1`` for a graph node, ``n + 1 + g`` for group ``g`` of ``GROUPS``,
0 for the root; ``kids[id]`` are the child ids in display order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memorydesk.browse.graph.data import BELIEF, DOMAIN, FACT, MISSING, POLICY, TOPIC, GraphData, graph_in
from memorydesk.search.cache import cached
from memorydesk.store.workspace import Workspace

__all__ = ["GROUPS", "GraphIndex", "index_graph", "read_indexed_graph"]

GROUPS = ((POLICY, "Policies"), (BELIEF, "Beliefs"), (MISSING, "Missing facts"))


@dataclass
class GraphIndex:
    kids: dict[int, np.ndarray]  # outline id -> child outline ids
    parent_of: np.ndarray  # outline id -> parent outline id
    row_in: np.ndarray  # outline id -> row under its parent
    group_names: dict[int, str]  # outline id of a group -> its name
    facts: np.ndarray  # per node: facts in a topic or domain (all states)
    active: np.ndarray  # per node: of which active or expired (not superseded, not deleted)
    topics: np.ndarray  # per node: topics in a domain
    refs: np.ndarray  # per node: edges that name it
    summary: dict[str, int]  # GraphData.counts(): nodes of each kind, edges, dangling edges
    edge_order: np.ndarray = field(repr=False)  # edge numbers, grouped by end node, heaviest first
    edge_start: np.ndarray = field(repr=False)  # node -> its first place in edge_order (n + 1 long)

    def edges_of(self, node: int) -> np.ndarray:
        """The node's edges, heaviest first (equal weights in edge order); a self-loop once."""
        edges = self.edge_order[self.edge_start[node]:self.edge_start[node + 1]]
        if len(edges) > 1 and len(np.unique(edges)) != len(edges):
            edges = edges[np.sort(np.unique(edges, return_index=True)[1])]
        return edges


def read_indexed_graph(ws: Workspace) -> tuple[GraphData, GraphIndex]:
    """The graph and its index, from one read snapshot (both kept per file version)."""
    with ws.read() as conn:
        g = graph_in(ws, conn)
        index = cached(ws, conn, ("graph-index",), lambda: index_graph(g))
    return g, index if index is not None else index_graph(g)


def _counts(values: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(values, minlength=n)[:n] if len(values) else np.zeros(n, np.int64)


def index_graph(g: GraphData) -> GraphIndex:
    n = g.n
    labels = np.array(g.labels, dtype=object).astype(str)
    domains = g.of_kind(DOMAIN)
    domains = domains[np.argsort(labels[domains], kind="stable")]
    topics = g.of_kind(TOPIC)
    facts = g.of_kind(FACT)
    live = facts[g.state[facts] < 2]
    count = _counts(g.topic[facts], n) + _counts(g.domain[facts], n)
    active = _counts(g.topic[live], n) + _counts(g.domain[live], n)
    topic_count = _counts(g.domain[topics], n)
    refs = _counts(np.concatenate([g.src, g.dst]).astype(np.int64), n)
    kids: dict[int, np.ndarray] = {}
    size = n + 1 + len(GROUPS)
    parent_of = np.zeros(size, np.int64)
    row_in = np.zeros(size, np.int64)

    def put(pid: int, ids: np.ndarray) -> None:
        kids[pid] = ids
        parent_of[ids] = pid
        row_in[ids] = np.arange(len(ids))

    def group(children: np.ndarray, parents: np.ndarray) -> None:
        if not len(children):
            return
        cuts = np.flatnonzero(np.diff(parents)) + 1
        for part in np.split(np.arange(len(children)), cuts):
            put(int(parents[part[0]]) + 1, children[part] + 1)

    t_sorted = topics[np.lexsort((labels[topics], g.domain[topics]))]
    group(t_sorted, g.domain[t_sorted])
    f_sorted = facts[np.argsort(g.topic[facts], kind="stable")]
    group(f_sorted, g.topic[f_sorted])
    top = [int(d) + 1 for d in domains]
    names: dict[int, str] = {}
    for i, (kind, name) in enumerate(GROUPS):
        members = g.of_kind(kind)
        if len(members):
            gid = n + 1 + i
            names[gid] = name
            put(gid, members + 1)
            top.append(gid)
    put(0, np.asarray(top, np.int64))
    # each node's edges: both ends, heaviest first, then in edge order
    m = len(g.src)
    ends = np.concatenate([g.src, g.dst]).astype(np.int64)
    edge = np.concatenate([np.arange(m), np.arange(m)])
    order = np.lexsort((edge, -np.concatenate([g.weight, g.weight]), ends))
    start = np.searchsorted(ends[order], np.arange(n + 1))
    return GraphIndex(kids, parent_of, row_in, names, count, active, topic_count, refs, g.counts(), edge[order],
                      start)
