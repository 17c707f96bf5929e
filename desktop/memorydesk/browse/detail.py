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
from memorydesk.core.fts_query import is_keyword_reachable
from memorydesk.store.integrity_sqlite import damaged_columns
from memorydesk.store.workspace import Workspace

__all__ = ["AgentRow", "PolicyRow", "agents", "fact_detail", "policies", "policy"]


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

    @classmethod
    def of(cls, row: Any) -> PolicyRow:
        return cls(str(row.id), str(row.domain or ""), str(row.rule or ""), tuple(_json_list(row.source_fact_ids)),
                   row.required_role, bool(row.active), row.created_at, row.updated_at)


@dataclass(frozen=True)
class AgentRow:
    """An agent as the dispatch preview lists it."""

    id: str
    name: str
    title: str | None
    role: str | None
    lifecycle_status: str | None


def _json_list(text: str | None) -> list[str]:
    if not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def _brief(ws: Workspace, conn: Any, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    f = ws.layout.facts.c
    rows = conn.execute(select(f.id, f.topic, f.domain, f.superseded_by, f.valid_until, f.created_at)
                        .where(f.id.in_(list(ids)))).all()
    return {r.id: {"id": r.id, "topic": r.topic, "domain": r.domain, "created_at": r.created_at,
                   "state": fact_state(r.superseded_by, r.valid_until)} for r in rows}


def fact_detail(ws: Workspace, fact_id: str) -> dict[str, Any] | None:
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
        d["embedding_bytes"] = len(emb) if emb is not None else None
        d["state"] = fact_state(d["superseded_by"], d["valid_until"])
        d["keyword_reachable"] = is_keyword_reachable(d["topic"], d["content"])
        d["text_not_utf8"] = (damaged_columns(conn, f, fact_id)
                              if any("\ufffd" in (v if isinstance(v, str) else "") for v in d.values()) else [])
        d["source_observation_ids"] = _json_list(d["source_observation_ids"])
        d["temporal_tags_list"] = _json_list(d["temporal_tags"])

        newer: list[dict[str, Any]] = []
        seen = {fact_id}
        nxt = d["superseded_by"]
        while nxt and nxt not in seen and len(newer) < 100:
            seen.add(nxt)
            hit = conn.execute(select(f.c.id, f.c.topic, f.c.superseded_by, f.c.valid_until, f.c.created_at)
                               .where(f.c.id == nxt)).first()
            if hit is None:
                newer.append({"id": nxt, "topic": None, "state": "sentinel" if ":" in nxt else "missing"})
                break
            newer.append({"id": hit.id, "topic": hit.topic, "created_at": hit.created_at,
                          "state": fact_state(hit.superseded_by, hit.valid_until)})
            nxt = hit.superseded_by
        d["newer"] = newer

        older: list[dict[str, Any]] = []
        frontier = [fact_id]
        while frontier and len(older) < 100:
            hits = conn.execute(select(f.c.id, f.c.topic, f.c.superseded_by, f.c.valid_until, f.c.created_at)
                                .where(f.c.superseded_by.in_(frontier))).all()
            frontier = []
            for hit in hits:
                if hit.id in seen:
                    continue
                seen.add(hit.id)
                frontier.append(hit.id)
                older.append({"id": hit.id, "topic": hit.topic, "created_at": hit.created_at,
                              "state": fact_state(hit.superseded_by, hit.valid_until)})
        d["older"] = older

        c = ws.layout.conflicts.c
        conflicts = [dict(r._mapping) for r in conn.execute(
            select(c.id, c.fact_a_id, c.fact_b_id, c.conflict_type, c.resolution, c.winning_fact_id,
                   c.resolved_at, c.created_at)
            .where(or_(c.fact_a_id == fact_id, c.fact_b_id == fact_id)).order_by(c.created_at.desc()))]
        e = ws.layout.edges.c
        edges = [dict(r._mapping) for r in conn.execute(
            select(e.id, e.source_fact_id, e.target_fact_id, e.edge_type, e.weight, e.created_at)
            .where(or_(e.source_fact_id == fact_id, e.target_fact_id == fact_id)).order_by(e.weight.desc()))]
        others = {x["fact_b_id"] if x["fact_a_id"] == fact_id else x["fact_a_id"] for x in conflicts}
        others |= {x["target_fact_id"] if x["source_fact_id"] == fact_id else x["source_fact_id"] for x in edges}
        brief = _brief(ws, conn, sorted(others))
    for x in conflicts:
        x["other_id"] = x["fact_b_id"] if x["fact_a_id"] == fact_id else x["fact_a_id"]
        x["role"] = "loser" if x["fact_a_id"] == fact_id else "winner"
        x["other_topic"] = brief.get(x["other_id"], {}).get("topic")
    for x in edges:
        x["direction"] = "out" if x["source_fact_id"] == fact_id else "in"
        x["other_id"] = x["target_fact_id"] if x["direction"] == "out" else x["source_fact_id"]
        x["other_topic"] = brief.get(x["other_id"], {}).get("topic")
    d["conflicts"] = conflicts
    d["edges"] = edges
    return d


def policies(ws: Workspace) -> list[PolicyRow]:
    """Every policy: active first, then most recently updated."""
    p = ws.layout.policies
    stmt = select(p).order_by(p.c.active.desc(), p.c.updated_at.desc(), literal_column("rowid").desc())
    with ws.read() as conn:
        return [PolicyRow.of(r) for r in conn.execute(stmt)]


def policy(ws: Workspace, policy_id: str) -> PolicyRow | None:
    p = ws.layout.policies
    with ws.read() as conn:
        r = conn.execute(select(p).where(p.c.id == policy_id)).first()
    return PolicyRow.of(r) if r is not None else None


def agents(ws: Workspace) -> list[AgentRow]:
    """Agents (id, name, title, role, lifecycle status), by name."""
    a = ws.layout.agents.c
    stmt = select(a.id, a.name, a.title, a.role, a.lifecycle_status).order_by(a.name)
    with ws.read() as conn:
        return [AgentRow(*r) for r in conn.execute(stmt)]

