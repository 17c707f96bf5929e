"""Writing a plan into the workspace, inside the caller's one transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Table

from memorydesk.lineage import receipt_store
from memorydesk.lineage.memoryos.plan import Plan
from memorydesk.lineage.memoryos.state import (
    LANES,
    LEDGER,
    PAGE_DETAILS,
    PAGES,
    SEGMENTS,
    SESSIONS,
    USERS,
    VERSIONS,
)
from memorydesk.memory.rows import insert_fact
from memorydesk.store import Workspace


def _split(values: dict[str, Any], table: Table) -> dict[str, Any]:
    names = {c.name for c in table.columns}
    return {k: v for k, v in values.items() if k in names}


def _insert(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    if rows:
        conn.execute(table.insert(), rows)


def apply(ws: Workspace, conn: Connection, plan: Plan) -> None:
    """Write every row of ``plan``; the caller's transaction makes it all or nothing."""
    layout = ws.layout
    _insert(conn, layout.agents, plan.agents)
    _insert(conn, USERS, plan.users)
    _insert(conn, LANES, plan.lanes)
    _insert(conn, LEDGER, plan.ledger)
    _insert(conn, VERSIONS, plan.versions)
    _insert(conn, layout.items, plan.hot_items)
    for item_id in plan.hot_items_removed:
        conn.execute(layout.items.delete().where(layout.items.c.id == item_id))

    _insert(conn, SEGMENTS, [_split(v, SEGMENTS) | {"id": k} for k, v in plan.segments.items()])
    _insert(conn, SESSIONS, [_split(v, SESSIONS) | {"segment_id": k} for k, v in plan.segments.items()])
    for seg, values in plan.segments_updated.items():
        conn.execute(SEGMENTS.update().where(SEGMENTS.c.id == seg).values(_split(values, SEGMENTS)))
        conn.execute(SESSIONS.update().where(SESSIONS.c.segment_id == seg).values(_split(values, SESSIONS)))
    _insert(conn, PAGES, [_split(v, PAGES) | {"id": k} for k, v in plan.pages.items()])
    _insert(conn, PAGE_DETAILS, [_split(v, PAGE_DETAILS) | {"page_row_id": k} for k, v in plan.pages.items()])
    for row_id, values in plan.pages_updated.items():
        conn.execute(PAGES.update().where(PAGES.c.id == row_id).values(_split(values, PAGES)))
        conn.execute(PAGE_DETAILS.update().where(PAGE_DETAILS.c.page_row_id == row_id)
                     .values(_split(values, PAGE_DETAILS)))
    for seg in plan.segments_removed:  # their pages are among pages_removed
        conn.execute(SESSIONS.delete().where(SESSIONS.c.segment_id == seg))
        conn.execute(SEGMENTS.delete().where(SEGMENTS.c.id == seg))
    for row_id in plan.pages_removed:
        conn.execute(PAGE_DETAILS.delete().where(PAGE_DETAILS.c.page_row_id == row_id))
        conn.execute(PAGES.delete().where(PAGES.c.id == row_id))

    for fact in plan.facts:
        insert_fact(conn, layout, fact, vectors=ws.has_vectors)
    facts = layout.facts
    for old, new in plan.superseded:
        updated_at = next(f["updated_at"] for f in plan.facts if f["id"] == new)
        conn.execute(facts.update().where(facts.c.id == old).values(superseded_by=new, updated_at=updated_at))
    receipt_store.insert(conn, plan.receipts)
