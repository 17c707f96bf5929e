"""The whole knowledge graph of a workspace as arrays, for the Knowledge Graph tab (no Qt).

One read gives every node and edge the tab draws:

- nodes, in one index space: domains, then topics (``domain/topic``), facts, policies,
  beliefs, and *missing* facts (ids that an edge, a policy's sources, a belief's
  provenance, a conflict or a supersession names, but no fact has);
- edges by kind: the episodic ones (``related_to``, ``references``, ``contextual``, any
  other ``edge_type`` as ``other``; weight as stored), supersession (old → the fact that
  replaced it), policy → source fact, belief → provenance fact, conflict (fact a — fact b).
  None is dropped: an edge naming a missing fact ends at that missing node.

Facts keep what the filters need (domain, topic, state, agent, memory type, age). The
value is cached per file version (``search.cache``), so reopening the tab, switching a
filter or a refresh after nothing changed costs nothing.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memorydesk.browse.facts import fact_state
from memorydesk.core.product.vocab import parse_memory_type
from memorydesk.search.cache import cached, snapshot_version
from memorydesk.store.workspace import Workspace

__all__ = ["EDGE_KINDS", "NODE_KINDS", "GraphData", "graph_in", "read_graph"]

#: node kinds, in index order
NODE_KINDS = ("domain", "topic", "fact", "policy", "belief", "missing")
DOMAIN, TOPIC, FACT, POLICY, BELIEF, MISSING = range(6)
#: edge kinds (codes are positions)
EDGE_KINDS = ("related_to", "references", "contextual", "other", "supersession", "policy", "belief", "conflict")
EPISODIC = {"related_to": 0, "references": 1, "contextual": 2}
OTHER, SUPERSESSION, POLICY_SOURCE, BELIEF_SOURCE, CONFLICT = 3, 4, 5, 6, 7
STATES = ("active", "expired", "superseded", "deleted")


def _weight(value: Any) -> float:
    if isinstance(value, float):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _json_ids(text: Any) -> list[str]:
    try:
        value = json.loads(text) if text else []
    except (TypeError, ValueError):
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


@dataclass
class GraphData:
    """Nodes ``0..n`` of every kind; ``kind[i]`` says which. Edges as parallel arrays."""

    version: int | None
    labels: list[str]  # a short label per node (domain name, topic, fact topic, policy rule…)
    ids: list[str]  # the entity id per node ("" for domains and topics)
    kind: np.ndarray  # int8 per node
    domain: np.ndarray  # int32 per node: its domain node (-1: none)
    topic: np.ndarray  # int32 per node: its topic node (facts; -1 otherwise)
    state: np.ndarray  # int8 per node: index in STATES (facts; 0 otherwise)
    agent: np.ndarray  # int16 per node: index in ``agents`` (-1: none)
    mtype: np.ndarray  # int8 per node: index in ``memory_types`` (-1: not a fact)
    created: np.ndarray  # int64 per node (0: unknown)
    confidence: np.ndarray  # float32 per node
    src: np.ndarray  # int32 per edge
    dst: np.ndarray  # int32 per edge
    ekind: np.ndarray  # int8 per edge: index in EDGE_KINDS
    weight: np.ndarray  # float32 per edge (1 for the non-episodic kinds)
    edge_ids: list[str]  # the episodic edge's id, or "" for the other kinds
    edge_types: dict[int, str]  # the raw edge_type of "other" episodic edges
    agents: list[str] = field(default_factory=list)  # agent ids, by index
    agent_names: dict[str, str] = field(default_factory=dict)
    memory_types: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)  # entity id -> node

    @property
    def n(self) -> int:
        return len(self.ids)

    def of_kind(self, k: int) -> np.ndarray:
        return np.flatnonzero(self.kind == k)

    def node(self, entity_id: str) -> int | None:
        return self.index.get(entity_id)

    def counts(self) -> dict[str, int]:
        out = {name: int((self.kind == i).sum()) for i, name in enumerate(NODE_KINDS)}
        out["edges"] = len(self.src)
        out["dangling"] = int(((self.kind[self.src] == MISSING) | (self.kind[self.dst] == MISSING)).sum())
        return out


def read_graph(ws: Workspace) -> GraphData:
    """The graph of the file as it is now (cached per file version)."""
    with ws.read() as conn:
        return graph_in(ws, conn)


def graph_in(ws: Workspace, conn: Any) -> GraphData:
    """The graph as this read connection's snapshot shows it (cached per file version)."""
    version = snapshot_version(ws, conn)
    value = cached(ws, conn, ("graph-data",), lambda: _read(ws, conn, version))
    return value if value is not None else _read(ws, conn, None)


def _rows(conn: Any, sql: str) -> list[tuple]:
    """Plain tuples from the driver's own cursor (a 100,000-row read without row objects)."""
    return conn.connection.driver_connection.execute(sql).fetchall()


def _read(ws: Workspace, conn: Any, version: int | None) -> GraphData:
    L = ws.layout
    facts = _rows(conn, f"SELECT id, domain, topic, superseded_by, valid_until, authored_by_agent_id, memory_type, "
                        f"created_at, confidence FROM {L.facts.name} ORDER BY domain, topic, created_at, rowid")
    edges = _rows(conn, f"SELECT id, source_fact_id, target_fact_id, edge_type, weight FROM {L.edges.name} "
                        "ORDER BY rowid")
    policies = _rows(conn, f"SELECT id, domain, rule, source_fact_ids, active FROM {L.policies.name} ORDER BY rowid")
    beliefs = _rows(conn, f"SELECT id, topic, content, provenance_fact_ids FROM {L.beliefs.name} ORDER BY rowid")
    conflicts = _rows(conn, f"SELECT id, fact_a_id, fact_b_id FROM {L.conflicts.name} ORDER BY rowid")
    data = build(version, facts, edges, policies, beliefs, conflicts)
    names = _rows(conn, f"SELECT id, name FROM {L.agents.name}")
    data.agent_names = {str(r[0]): str(r[1] or r[0]) for r in names}
    return data


def build(version: int | None, facts: list, edges: list, policies: list, beliefs: list,
          conflicts: list) -> GraphData:
    """Arrays from plain rows (see ``_read`` for the columns)."""
    now = int(time.time())
    domains: dict[str, int] = {}
    topics: dict[tuple[str, str], int] = {}
    for r in facts:
        d = r[1] or ""
        domains.setdefault(d, len(domains))
        topics.setdefault((d, r[2] or ""), len(topics))
    for p in policies:
        domains.setdefault(p[1] or "", len(domains))
    nd, nt, nf = len(domains), len(topics), len(facts)
    base_t, base_f = nd, nd + nt
    base_p = base_f + nf
    base_b = base_p + len(policies)
    base_m = base_b + len(beliefs)
    labels = list(domains) + [t for _d, t in topics] + [r[2] or "" for r in facts] \
        + [(p[2] or "").strip().splitlines()[0][:80] if (p[2] or "").strip() else "" for p in policies] \
        + [b[1] or "" for b in beliefs]
    ids = [""] * (nd + nt) + [r[0] for r in facts] + [p[0] for p in policies] + [b[0] for b in beliefs]
    index = {fid: base_f + i for i, fid in enumerate(ids[base_f:base_p])}
    agents: dict[str, int] = {}
    types: dict[str, int] = {}
    n0 = base_m
    kind = np.zeros(n0, np.int8)
    kind[:nd], kind[base_t:base_f], kind[base_f:base_p] = 0, 1, 2
    kind[base_p:base_b], kind[base_b:base_m] = 3, 4
    domain = np.full(n0, -1, np.int32)
    domain[:nd] = np.arange(nd)
    topic = np.full(n0, -1, np.int32)
    state = np.zeros(n0, np.int8)
    agent = np.full(n0, -1, np.int16)
    mtype = np.full(n0, -1, np.int8)
    created = np.zeros(n0, np.int64)
    confidence = np.ones(n0, np.float32)
    for (d, _t), i in topics.items():
        domain[base_t + i] = domains[d]
    missing: list[str] = []

    missing_at: dict[str, int] = {}

    def node_of(fid: str) -> int:
        found = index.get(fid)
        if found is not None and base_f <= found < base_p:
            return found
        at = missing_at.get(fid)
        if at is None:
            at = missing_at[fid] = base_m + len(missing)
            missing.append(fid)
        return at

    type_of: dict[Any, int] = {}  # the stored memory_type -> its index in ``types``
    for i, r in enumerate(facts):
        node = base_f + i
        d = r[1] or ""
        domain[node] = domains[d]
        topic[node] = base_t + topics[(d, r[2] or "")]
        state[node] = STATES.index(fact_state(r[3], r[4], now))
        if r[5]:
            agent[node] = agents.setdefault(r[5], len(agents)) if len(agents) < 32000 else -1
        t = type_of.get(r[6])
        if t is None:
            t = type_of[r[6]] = types.setdefault(parse_memory_type(r[6]).value, len(types))
        mtype[node] = t
        created[node] = int(r[7]) if isinstance(r[7], (int, float)) else 0
        confidence[node] = float(r[8]) if isinstance(r[8], (int, float)) else 0.0
    get = index.get
    src = [get(str(r[1]), -1) for r in edges]
    dst = [get(str(r[2]), -1) for r in edges]
    for i in sorted({i for i, v in enumerate(src) if v < 0} | {i for i, v in enumerate(dst) if v < 0}):
        if src[i] < 0:  # an id no fact has: a missing node (numbered as first named)
            src[i] = node_of(str(edges[i][1]))
        if dst[i] < 0:
            dst[i] = node_of(str(edges[i][2]))
    ekind = [EPISODIC.get(r[3], OTHER) for r in edges]
    weight = [_weight(r[4]) for r in edges]
    edge_ids = [str(r[0]) for r in edges]
    edge_types = {i: str(r[3]) for i, r in enumerate(edges) if EPISODIC.get(r[3]) is None}

    def link(a: int, fid: str, code: int) -> None:
        src.append(a)
        dst.append(node_of(fid))
        ekind.append(code)
        weight.append(1.0)
        edge_ids.append("")

    for i, r in enumerate(facts):
        sup = r[3]
        if sup and ":" not in sup:  # a fact id (sentinels such as system:cleanup are not facts)
            link(base_f + i, sup, SUPERSESSION)
    for i, p in enumerate(policies):
        domain[base_p + i] = domains[p[1] or ""]
        state[base_p + i] = 0 if p[4] else 2
        for fid in dict.fromkeys(_json_ids(p[3])):
            link(base_p + i, fid, POLICY_SOURCE)
    for i, b in enumerate(beliefs):
        for fid in dict.fromkeys(_json_ids(b[3])):
            link(base_b + i, fid, BELIEF_SOURCE)
    for c in conflicts:
        a = node_of(str(c[1]))
        link(a, str(c[2]), CONFLICT)
    for i, pid in enumerate(ids[base_p:], start=base_p):
        index.setdefault(pid, i)
    for fid, at in missing_at.items():
        index.setdefault(fid, at)
    extra = len(missing)
    if extra:
        kind = np.concatenate([kind, np.full(extra, 5, np.int8)])
        domain = np.concatenate([domain, np.full(extra, -1, np.int32)])
        topic = np.concatenate([topic, np.full(extra, -1, np.int32)])
        state = np.concatenate([state, np.zeros(extra, np.int8)])
        agent = np.concatenate([agent, np.full(extra, -1, np.int16)])
        mtype = np.concatenate([mtype, np.full(extra, -1, np.int8)])
        created = np.concatenate([created, np.zeros(extra, np.int64)])
        confidence = np.concatenate([confidence, np.zeros(extra, np.float32)])
    return GraphData(version, labels + ["missing fact"] * extra, ids + missing, kind, domain, topic, state, agent,
                     mtype, created, confidence, np.asarray(src, np.int32), np.asarray(dst, np.int32),
                     np.asarray(ekind, np.int8), np.asarray(weight, np.float32), edge_ids, edge_types,
                     agents=list(agents), memory_types=list(types), index=index)
