"""Episodic ``related_to`` edges written when a new fact survives (docs/product-format.md, "The product's rules").

The scoring and selection rules live in ``core.product.relatedness``; this module feeds them
the workspace's active facts in the product's read order (newest ``updated_at``
first), streaming, so the scan stops as soon as the product's would.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, and_, select

from memorydesk.core.product.relatedness import propose_links
from memorydesk.memory.rows import ROWID, new_id
from memorydesk.store import Workspace


def write_links(ws: Workspace, conn: Connection, fact_id: str, content: str, created_at: int,
                pool: Iterable[tuple[str, str]]) -> list[str]:
    rows = [{"id": new_id(), "workspace_id": ws.workspace_id, "source_fact_id": fact_id,
             "target_fact_id": link.target_id, "edge_type": "related_to", "weight": link.weight,
             "created_at": created_at} for link in propose_links(fact_id, content, pool)]
    if rows:
        conn.execute(ws.layout.edges.insert().prefix_with("OR IGNORE"), rows)
    return [row["id"] for row in rows]


def link_new_fact(ws: Workspace, conn: Connection, fact_id: str, content: str, created_at: int) -> list[str]:
    facts = ws.layout.facts
    active = conn.execute(
        select(facts.c.id, facts.c.content)
        .where(and_(facts.c.superseded_by.is_(None), facts.c.workspace_id == ws.workspace_id))
        .order_by(facts.c.updated_at.desc(), ROWID.desc())
    )
    return write_links(ws, conn, fact_id, content, created_at, ((r.id, r.content) for r in active))
