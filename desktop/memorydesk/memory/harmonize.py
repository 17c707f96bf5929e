"""Harmonize: beliefs from repeated facts and open cross-agent conflicts (docs/product-format.md,
"The product's rules").

Within each topic, active facts are clustered (single link) by whitespace-token
Jaccard ≥ 0.5; clusters are numbered ``cluster-<n>`` over the pass. A belief is
written for each (topic, content) stated identically more than once, under its
cluster's id, with the mean confidence. Same-topic pairs written by different agents
with different content become ``cross_agent`` conflicts with no resolution (a new
row each pass, as the product does). The pass replaces all beliefs in one
transaction.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import Connection, select

from memorydesk.core.product.text import CONTRADICTION_JACCARD, remention_key, token_jaccard
from memorydesk.memory.rows import ROWID, json_list, new_id, now_s
from memorydesk.store import Workspace


@dataclass
class HarmonizeResult:
    beliefs: int
    cross_agent_conflicts: list[str]


def harmonize(ws: Workspace, conn: Connection, now: int | None = None) -> HarmonizeResult:
    facts = ws.layout.facts
    now = now_s() if now is None else now
    rows = conn.execute(select(facts.c.id, facts.c.topic, facts.c.content, facts.c.confidence,
                               facts.c.authored_by_agent_id).where(facts.c.superseded_by.is_(None))
                        .order_by(facts.c.created_at, ROWID)).all()
    by_topic: dict[str, list] = defaultdict(list)
    for row in rows:
        by_topic[row.topic].append(row)

    conn.execute(ws.layout.beliefs.delete().where(ws.layout.beliefs.c.workspace_id == ws.workspace_id))
    beliefs, conflicts, clusters = 0, [], 0
    for topic, group in by_topic.items():
        labels = _clusters([row.content for row in group])
        same: dict[tuple[int, str], list] = defaultdict(list)
        for row, label in zip(group, labels, strict=True):
            same[(label, remention_key(row.content))].append(row)
        for (label, _), members in same.items():
            if len(members) < 2:
                continue
            agents = sorted({m.authored_by_agent_id for m in members if m.authored_by_agent_id})
            conn.execute(ws.layout.beliefs.insert().values(
                id=new_id(), workspace_id=ws.workspace_id, topic=topic, content=members[0].content,
                confidence=sum(m.confidence for m in members) / len(members),
                harmony_score=1.0, provenance_fact_ids=json_list(m.id for m in members),
                provenance_agent_ids=json_list(agents), cluster_id=f"cluster-{clusters + label}",
                action="create", created_at=now, updated_at=now))
            beliefs += 1
        clusters += max(labels) + 1
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if (a.authored_by_agent_id and b.authored_by_agent_id
                        and a.authored_by_agent_id != b.authored_by_agent_id
                        and remention_key(a.content) != remention_key(b.content)):
                    conflict_id = new_id()
                    conn.execute(ws.layout.conflicts.insert().values(
                        id=conflict_id, workspace_id=ws.workspace_id, fact_a_id=a.id, fact_b_id=b.id,
                        conflict_type="cross_agent", resolution=None, winning_fact_id=None, resolved_at=None,
                        created_at=now))
                    conflicts.append(conflict_id)
    return HarmonizeResult(beliefs, conflicts)


def _clusters(texts: list[str]) -> list[int]:
    """Single-link clusters by token Jaccard ≥ 0.5: a label per text, numbered from 0."""
    parent = list(range(len(texts)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            if token_jaccard(texts[i], texts[j]) >= CONTRADICTION_JACCARD:
                parent[root(j)] = root(i)
    numbering: dict[int, int] = {}
    return [numbering.setdefault(root(i), len(numbering)) for i in range(len(texts))]
