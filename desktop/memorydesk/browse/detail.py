"""Whole records the desk reads one at a time: a fact with its neighbourhood (the Facts
tab's detail pane), and the Policies tab's policies and agents (no Qt, no writes).

The fact list itself (filters, sorts, windows, counts) is in ``browse``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import literal_column, or_, select

from memorydesk.browse.facts import fact_state
from memorydesk.core.product.fts_query import is_keyword_reachable
from memorydesk.store.integrity_sqlite import damaged_columns
from memorydesk.store.workspace import Workspace

__all__ = ["AgentRow", "ChainStep", "FactConflict", "FactEdge", "FactRecord", "PolicyRow", "agents", "fact_detail",
           "older_versions", "policies", "policy"]


@dataclass(frozen=True)
class PolicyRow:
    """A policy as the Policies tab shows it."""

    id: str
    domain: str
    rule: str
    source_fact_ids: tuple[str, ...]
    required_role: str | None  # advisory: recorded, never enforced
    active: bool
    created_at: int | None
    updated_at: int | None
    replaced_by: str | None = None  # an edit in the desk made a newer version of it (still in the file)

    @classmethod
    def of(cls, row: Any, replaced_by: str | None = None) -> PolicyRow:
        return cls(str(row.id), str(row.domain or ""), str(row.rule or ""), tuple(_json_list(row.source_fact_ids)),
                   row.required_role, bool(row.active), row.created_at, row.updated_at, replaced_by)


@dataclass(frozen=True)
class AgentRow:
    """An agent as the dispatch preview lists it."""

    id: str
    name: str
    title: str | None
    role: str | None
    lifecycle_status: str | None
    context_size: int | None = None  # the agent's context window, in tokens (None: the file does not say)


def _json_list(text: str | None) -> list[str]:
    if not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


@dataclass(frozen=True)
class ChainStep:
    """A fact of a supersession chain as the detail pane links it (``topic`` None: the id
    names no fact — a ``sentinel`` such as ``system:cleanup``, or ``missing``)."""

    id: str
    topic: str | None
    state: str
    created_at: int | None = None


@dataclass(frozen=True)
class FactConflict:
    """A conflict row naming the fact, with the other fact of the pair."""

    id: str
    fact_a_id: str
    fact_b_id: str
    conflict_type: str
    resolution: str | None
    winning_fact_id: str | None
    resolved_at: int | None
    created_at: int | None
    other_id: str
    role: str  # "loser" (the fact is A) or "winner"
    other_topic: str | None


@dataclass(frozen=True)
class FactEdge:
    """An episodic edge from or to the fact, with the fact at its other end."""

    id: str
    source_fact_id: str
    target_fact_id: str
    edge_type: str
    weight: float
    created_at: int | None
    direction: str  # "out" (the fact is the source) or "in"
    other_id: str
    other_topic: str | None


@dataclass(frozen=True)
class FactRecord:
    """One fact in full, as the Facts tab's detail pane shows it: every stored column but the
    embeddings (their size instead), what the desk reads from them, and its neighbourhood
    (see ``fact_detail``)."""

    id: str
    workspace_id: str
    domain: str
    topic: str
    content: str
    source_observation_ids: tuple[str, ...]
    confidence: float
    superseded_by: str | None
    authored_by_agent_id: str | None
    authored_by_role: str | None
    memory_type: str
    veracity: str
    valid_until: int | None
    recall_count: int
    last_recalled_at: int | None
    temporal_tags: str | None
    mention_count: int
    created_at: int
    updated_at: int
    embedding_bytes: int | None
    state: str
    keyword_reachable: bool
    text_not_utf8: tuple[str, ...]
    temporal_tags_list: tuple[str, ...]
    newer: tuple[ChainStep, ...]
    older: tuple[ChainStep, ...]
    conflicts: tuple[FactConflict, ...]
    edges: tuple[FactEdge, ...]


def _brief(ws: Workspace, conn: Any, ids: Sequence[str]) -> dict[str, str | None]:
    """The topic of each fact of ``ids`` that exists."""
    if not ids:
        return {}
    f = ws.layout.facts.c
    return {r.id: r.topic for r in conn.execute(select(f.id, f.topic).where(f.id.in_(list(ids))))}


def _step(hit: Any) -> ChainStep:
    return ChainStep(hit.id, hit.topic, fact_state(hit.superseded_by, hit.valid_until), hit.created_at)


def _chains(ws: Workspace, conn: Any, fact_id: str,
            superseded_by: str | None) -> tuple[list[ChainStep], list[ChainStep]]:
    """(newer, older): what superseded the fact, following ``superseded_by`` (stops on a
    sentinel, a missing id or a cycle), and what it superseded, transitively (100 each at most)."""
    f = ws.layout.facts
    columns = (f.c.id, f.c.topic, f.c.superseded_by, f.c.valid_until, f.c.created_at)
    newer: list[ChainStep] = []
    seen = {fact_id}
    nxt = superseded_by
    while nxt and nxt not in seen and len(newer) < 100:
        seen.add(nxt)
        hit = conn.execute(select(*columns).where(f.c.id == nxt)).first()
        if hit is None:
            newer.append(ChainStep(nxt, None, "sentinel" if ":" in nxt else "missing"))
            break
        newer.append(_step(hit))
        nxt = hit.superseded_by
    older = [_step(hit) for hit, _depth in older_versions(conn, f, fact_id, 100, columns, seen)]
    return newer, older


def older_versions(conn: Any, facts: Any, start_id: str, limit: int, columns: Sequence[Any], seen: set[str], *,
                   newest_first: bool = False) -> list[tuple[Any, int]]:
    """What ``start_id`` superseded, transitively, breadth first: ``columns`` of each row with
    how many steps back it is. A row in ``seen`` (which grows with them) is left out; the walk
    stops once ``limit`` rows are found (the last step may add more)."""
    out: list[tuple[Any, int]] = []
    frontier, depth = [start_id], 1
    while frontier and len(out) < limit:
        stmt = select(*columns).where(facts.c.superseded_by.in_(frontier))
        if newest_first:
            stmt = stmt.order_by(facts.c.created_at.desc())
        frontier = []
        for row in conn.execute(stmt).all():
            if row.id in seen:
                continue
            seen.add(row.id)
            frontier.append(row.id)
            out.append((row, depth))
        depth += 1
    return out


def fact_detail(ws: Workspace, fact_id: str) -> FactRecord | None:
    """Every field of one fact plus its neighbourhood, or None when it does not exist.

    ``newer``: the facts it was superseded by, following ``superseded_by`` (stops on a
    sentinel, a missing id or a cycle). ``older``: the facts that were superseded by it,
    transitively. ``conflicts`` and ``edges`` name the other fact with its topic.
    ``keyword_reachable``: whether any keyword query of the product can match its text
    (a fact without one ``[a-z0-9]`` term never comes back from the agent's keyword
    search nor in a dispatch preamble). ``text_not_utf8``: the columns whose stored bytes
    are not UTF-8 (they show with U+FFFD replacement characters; ``check`` lists them).
    """
    f = ws.layout.facts
    with ws.read() as conn:
        row = conn.execute(select(f).where(f.c.id == fact_id)).first()
        if row is None:
            return None
        d = dict(row._mapping)
        emb = d.pop("embedding")
        d.pop("binary_embedding", None)
        damaged = (damaged_columns(conn, f, fact_id)
                   if any("\ufffd" in (v if isinstance(v, str) else "") for v in d.values()) else [])
        newer, older = _chains(ws, conn, fact_id, d["superseded_by"])
        c = ws.layout.conflicts.c
        conflicts = conn.execute(
            select(c.id, c.fact_a_id, c.fact_b_id, c.conflict_type, c.resolution, c.winning_fact_id,
                   c.resolved_at, c.created_at)
            .where(or_(c.fact_a_id == fact_id, c.fact_b_id == fact_id)).order_by(c.created_at.desc())).all()
        e = ws.layout.edges.c
        edges = conn.execute(
            select(e.id, e.source_fact_id, e.target_fact_id, e.edge_type, e.weight, e.created_at)
            .where(or_(e.source_fact_id == fact_id, e.target_fact_id == fact_id)).order_by(e.weight.desc())).all()
        others = {x.fact_b_id if x.fact_a_id == fact_id else x.fact_a_id for x in conflicts}
        others |= {x.target_fact_id if x.source_fact_id == fact_id else x.source_fact_id for x in edges}
        topics = _brief(ws, conn, sorted(others))
    pairs = []
    for x in conflicts:
        other = x.fact_b_id if x.fact_a_id == fact_id else x.fact_a_id
        pairs.append(FactConflict(*x, other_id=other, role="loser" if x.fact_a_id == fact_id else "winner",
                                  other_topic=topics.get(other)))
    links = []
    for x in edges:
        out = x.source_fact_id == fact_id
        other = x.target_fact_id if out else x.source_fact_id
        links.append(FactEdge(*x, direction="out" if out else "in", other_id=other, other_topic=topics.get(other)))
    return FactRecord(
        id=d["id"], workspace_id=d["workspace_id"], domain=d["domain"], topic=d["topic"], content=d["content"],
        source_observation_ids=tuple(_json_list(d["source_observation_ids"])), confidence=d["confidence"],
        superseded_by=d["superseded_by"], authored_by_agent_id=d["authored_by_agent_id"],
        authored_by_role=d["authored_by_role"], memory_type=d["memory_type"], veracity=d["veracity"],
        valid_until=d["valid_until"], recall_count=d["recall_count"], last_recalled_at=d["last_recalled_at"],
        temporal_tags=d["temporal_tags"], mention_count=d["mention_count"], created_at=d["created_at"],
        updated_at=d["updated_at"], embedding_bytes=len(emb) if emb is not None else None,
        state=fact_state(d["superseded_by"], d["valid_until"]),
        keyword_reachable=is_keyword_reachable(d["topic"], d["content"]), text_not_utf8=tuple(damaged),
        temporal_tags_list=tuple(_json_list(d["temporal_tags"])), newer=tuple(newer), older=tuple(older),
        conflicts=tuple(pairs), edges=tuple(links))


def policies(ws: Workspace) -> list[PolicyRow]:
    """Every policy: active first, then most recently updated."""
    p = ws.layout.policies
    stmt = select(p).order_by(p.c.active.desc(), p.c.updated_at.desc(), literal_column("rowid").desc())
    with ws.read() as conn:
        rows = list(conn.execute(stmt))
        ids = {r.id for r in rows}
        replaced: dict[str, str] = {}
        if ws.desk_schema:  # the desk's edits not undone: old version → the version that replaced it
            for old, new in conn.exec_driver_sql(
                    "SELECT before_id, after_id FROM memdesk_history WHERE entity = 'policy' AND action = 'edit' "
                    "AND undone_by IS NULL ORDER BY id"):
                if old and new in ids:
                    replaced[old] = new
    return [PolicyRow.of(r, replaced.get(r.id)) for r in rows]


def policy(ws: Workspace, policy_id: str) -> PolicyRow | None:
    p = ws.layout.policies
    with ws.read() as conn:
        r = conn.execute(select(p).where(p.c.id == policy_id)).first()
    return PolicyRow.of(r) if r is not None else None


def agents(ws: Workspace) -> list[AgentRow]:
    """Agents (id, name, title, role, lifecycle status), by name."""
    a = ws.layout.agents.c
    stmt = select(a.id, a.name, a.title, a.role, a.lifecycle_status, a.context_size).order_by(a.name)
    with ws.read() as conn:
        return [AgentRow(*r) for r in conn.execute(stmt)]

