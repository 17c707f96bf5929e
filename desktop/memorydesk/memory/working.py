"""Agent notes and the hot tier (docs/product-format.md, "The product's rules").

``consolidate`` is the product's "sleep" pass: drop expired hot items, keep the newest
50 per agent, record the consolidatable ones as facts in ``working-memory`` (topic =
session id, or ``agent <first 8 chars>``; confidence = importance), delete what was
consolidated, and log one pass row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Connection, and_, select

from memorydesk.core.errors import MemoryDeskError
from memorydesk.core.product.vocab import is_consolidatable
from memorydesk.memory.facts import propose_fact
from memorydesk.memory.rows import ROWID, new_id, now_s
from memorydesk.store import Workspace

KEEP_PER_AGENT = 50
WORKING_MEMORY_DOMAIN = "working-memory"


def agent_note(ws: Workspace, conn: Connection, agent_id: str):
    notes = ws.layout.notes
    return conn.execute(select(notes).where(and_(notes.c.agent_id == agent_id,
                                                 notes.c.workspace_id == ws.workspace_id))
                        .order_by(notes.c.updated_at.desc()).limit(1)).first()


def update_my_notes(ws: Workspace, conn: Connection, agent_id: str, content: str, now: int | None = None) -> str:
    """Replace the agent's note (reusing its row id)."""
    notes, now = ws.layout.notes, now_s() if now is None else now
    row = agent_note(ws, conn, agent_id)
    if row is None:
        agents = ws.layout.agents
        if conn.execute(select(agents.c.id).where(agents.c.id == agent_id)).first() is None:
            raise MemoryDeskError(f"agent {agent_id} does not exist in this workspace")
        note_id = new_id()
        conn.execute(notes.insert().values(id=note_id, workspace_id=ws.workspace_id, agent_id=agent_id,
                                           content=content, updated_at=now))
        return note_id
    conn.execute(notes.update().where(notes.c.id == row.id).values(content=content, updated_at=now))
    return row.id


def record_observation(ws: Workspace, conn: Connection, agent_id: str, observation: str,
                       now: int | None = None) -> str:
    """Append a ``- …`` line to the agent's note."""
    row = agent_note(ws, conn, agent_id)
    current = row.content if row is not None else ""
    line = f"- {observation.strip()}"
    return update_my_notes(ws, conn, agent_id, f"{current}\n{line}" if current else line, now)


def remember(ws: Workspace, conn: Connection, agent_id: str, content: str, *, memory_type: str = "observation",
             veracity: str = "inferred", importance: float = 0.5, session_id: str | None = None,
             expires_at: int | None = None, now: int | None = None) -> str:
    item_id = new_id()
    conn.execute(ws.layout.items.insert().values(
        id=item_id, workspace_id=ws.workspace_id, agent_id=agent_id, session_id=session_id, content=content,
        memory_type=memory_type, veracity=veracity, importance=importance,
        created_at=now_s() if now is None else now, expires_at=expires_at))
    return item_id


@dataclass
class ConsolidationResult:
    pass_id: str
    considered: int = 0
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    conflicts: int = 0
    evicted: int = 0
    consolidated_items: list[str] = field(default_factory=list)


def consolidate(ws: Workspace, conn: Connection, agent_id: str | None = None,
                now: int | None = None) -> ConsolidationResult:
    items = ws.layout.items
    now = now_s() if now is None else now
    scope = items.c.workspace_id == ws.workspace_id
    if agent_id is not None:
        scope = and_(scope, items.c.agent_id == agent_id)
    result = ConsolidationResult(new_id())
    expired = conn.execute(items.delete().where(and_(scope, items.c.expires_at.is_not(None),
                                                     items.c.expires_at < now)))
    result.evicted += expired.rowcount
    rows = conn.execute(select(items).where(scope).order_by(items.c.agent_id, items.c.created_at.desc(),
                                                            ROWID.desc())).all()
    kept: list = []
    per_agent: dict[str, int] = {}
    for row in rows:
        per_agent[row.agent_id] = per_agent.get(row.agent_id, 0) + 1
        if per_agent[row.agent_id] > KEEP_PER_AGENT:
            conn.execute(items.delete().where(items.c.id == row.id))
            result.evicted += 1
        else:
            kept.append(row)
    result.considered = len(kept)
    for row in reversed(kept):  # oldest first, as they were remembered
        if not is_consolidatable(row.memory_type):
            continue
        topic = row.session_id or f"agent {row.agent_id[:8]}"
        written = propose_fact(ws, conn, domain=WORKING_MEMORY_DOMAIN, topic=topic, content=row.content,
                               confidence=row.importance, memory_type=row.memory_type, veracity=row.veracity,
                               agent_id=row.agent_id, source_observation_ids=[row.id], now=now)
        (result.updated if written.action == "remention" else result.created).append(written.fact_id)
        result.conflicts += len(written.conflicts)
        conn.execute(items.delete().where(items.c.id == row.id))
        result.consolidated_items.append(row.id)
    conn.execute(ws.layout.consolidation_log.insert().values(
        id=result.pass_id, workspace_id=ws.workspace_id, agent_id=agent_id, items_considered=result.considered,
        facts_created=len(result.created), facts_updated=len(result.updated),
        conflicts_detected=result.conflicts, evicted=result.evicted, started_at=now, finished_at=now))
    return result
