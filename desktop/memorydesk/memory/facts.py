"""What an agent's fact write does (docs/product-format.md, "The product's rules").

``propose_fact``: among active facts with the same topic and domain, identical
content (trimmed, lower-cased) is a re-mention (confidence bump, mention count);
otherwise the fact is inserted and every same-topic fact whose whitespace-token
Jaccard with it is ≥ 0.5 is a contradiction: the higher ``confidence × veracity
weight`` wins, ties to the newer; the loser is superseded and a resolved conflict
row written. A surviving new fact gets up to five ``related_to`` edges.

``record_recall``: an agent's search recalled facts (``search.agent.search`` with
``record_recall=True``): their ``recall_count`` and ``last_recalled_at``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import Connection, and_, literal_column, select

from memorydesk.core.product.text import CONTRADICTION_JACCARD, is_remention, token_jaccard
from memorydesk.core.product.vocab import parse_memory_type, parse_veracity, veracity_weight
from memorydesk.memory import links
from memorydesk.memory.rows import ROWID, insert_fact, json_list, new_id, now_s
from memorydesk.store import Workspace

REMENTION_BUMP = 0.3


def unindexed(table, column: str):
    """``+table.column``: keeps SQLite off that column's index. Without statistics it would
    pick the domain (or workspace) index and read a whole domain per write; the topic
    index finds the few same-topic facts directly."""
    return literal_column(f"+{table.name}.{column}")


@dataclass
class ProposeResult:
    fact_id: str
    action: str  # "inserted" or "remention"
    superseded: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)

    @property
    def survived(self) -> bool:
        return self.fact_id not in self.superseded


def bumped_confidence(confidence: float, veracity: str | None) -> float:
    """A re-mention: ``c + (1 − c) × weight(veracity) × 0.3``."""
    return confidence + (1.0 - confidence) * veracity_weight(veracity) * REMENTION_BUMP


def strength(confidence: float, veracity: str | None) -> float:
    return confidence * veracity_weight(veracity)


def propose_fact(ws: Workspace, conn: Connection, *, domain: str, topic: str, content: str,
                 confidence: float = 1.0, memory_type: str = "fact", veracity: str = "stated",
                 agent_id: str | None = None, role: str | None = None,
                 source_observation_ids: Sequence[str] = (), valid_until: int | None = None,
                 temporal_tags: Sequence[str] | None = None, embedding: bytes | None = None,
                 binary_embedding: bytes | None = None, now: int | None = None,
                 link: bool = True) -> ProposeResult:
    """Record one fact inside the caller's write transaction ``conn``."""
    now = now_s() if now is None else now
    facts = ws.layout.facts
    same = conn.execute(
        select(facts.c.id, facts.c.content, facts.c.confidence, facts.c.veracity, facts.c.created_at)
        .where(and_(unindexed(facts, "workspace_id") == ws.workspace_id, unindexed(facts, "domain") == domain,
                    facts.c.topic == topic, facts.c.superseded_by.is_(None)))
        .order_by(facts.c.created_at, ROWID)
    ).all()
    for row in same:
        if is_remention(row.content, content):
            conn.execute(facts.update().where(facts.c.id == row.id).values(
                confidence=bumped_confidence(row.confidence, row.veracity),
                mention_count=facts.c.mention_count + 1, updated_at=now))
            return ProposeResult(row.id, "remention")

    fact_id = new_id()
    insert_fact(conn, ws.layout, {
        "id": fact_id, "workspace_id": ws.workspace_id, "domain": domain, "topic": topic, "content": content,
        "source_observation_ids": json_list(source_observation_ids), "confidence": confidence,
        "authored_by_agent_id": agent_id, "authored_by_role": role,
        "memory_type": parse_memory_type(memory_type).value, "veracity": parse_veracity(veracity).value,
        "valid_until": valid_until, "temporal_tags": json_list(temporal_tags) if temporal_tags else None,
        "embedding": embedding, "binary_embedding": binary_embedding, "created_at": now, "updated_at": now,
    }, vectors=ws.has_vectors)
    result = ProposeResult(fact_id, "inserted")

    new_strength = strength(confidence, veracity)
    for row in same:
        if token_jaccard(row.content, content) < CONTRADICTION_JACCARD:
            continue
        old_strength = strength(row.confidence, row.veracity)
        winner, loser = (row.id, fact_id) if old_strength > new_strength else (fact_id, row.id)
        conn.execute(facts.update().where(facts.c.id == loser).values(superseded_by=winner, updated_at=now))
        conflict_id = new_id()
        conn.execute(ws.layout.conflicts.insert(), {
            "id": conflict_id, "workspace_id": ws.workspace_id, "fact_a_id": loser, "fact_b_id": winner,
            "conflict_type": "contradiction", "resolution": "superseded", "winning_fact_id": winner,
            "resolved_at": now, "created_at": now})
        result.superseded.append(loser)
        result.conflicts.append(conflict_id)
        if loser == fact_id:
            break  # the new fact lost: it is no longer active and cannot contradict the rest
    if link and result.survived:
        result.edges = links.link_new_fact(ws, conn, fact_id, content, created_at=now)
    return result


def supersede_fact(ws: Workspace, conn: Connection, fact_id: str, superseded_by: str,
                   now: int | None = None) -> bool:
    """Point ``fact_id`` at its replacement (a fact id or a sentinel). Any id is accepted, as by the product."""
    facts = ws.layout.facts
    done = conn.execute(facts.update().where(facts.c.id == fact_id).values(
        superseded_by=superseded_by, updated_at=now_s() if now is None else now))
    return done.rowcount == 1


def record_recall(ws: Workspace, ids: list[str], now: int) -> None:
    """An agent recalled ``ids``: ``recall_count + 1`` and ``last_recalled_at = now`` (one transaction)."""
    facts = ws.layout.facts
    with ws.write() as conn:
        conn.execute(
            facts.update()
            .where(facts.c.id.in_(list(dict.fromkeys(ids))))
            .values(recall_count=facts.c.recall_count + 1, last_recalled_at=now)
        )
