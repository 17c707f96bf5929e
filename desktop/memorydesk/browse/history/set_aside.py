"""The rule of ``core.supersession`` over the file's rows: when, and by whom, a fact was set
aside (read-only). The History, the conflict trail and *as of* all ask here, so they tell
one story.

``set_aside_of(ws, conn, pairs)`` takes (fact id, what its ``superseded_by`` held) pairs —
the value now, or one the desk has since changed (its history keeps the value before) — and
reads the facts on both sides and the contradiction rows between them once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select

from memorydesk.core.supersession import SetAside, Written, set_aside
from memorydesk.memory.rows import ROWID
from memorydesk.store.workspace import Workspace

CHUNK = 500

__all__ = ["set_aside_of", "written_rows"]


def written_rows(ws: Workspace, conn: Any, ids: Iterable[str]) -> dict[str, Written]:
    """Each fact id that names a row, as the rule reads it."""
    f = ws.layout.facts
    wanted = sorted({i for i in ids if i and ":" not in i})
    out: dict[str, Written] = {}
    for start in range(0, len(wanted), CHUNK):
        for r in conn.execute(select(f.c.id, f.c.created_at, f.c.updated_at, f.c.superseded_by,
                                     f.c.authored_by_agent_id, f.c.authored_by_role, ROWID.label("rowid"))
                              .where(f.c.id.in_(wanted[start:start + CHUNK]))):
            out[r.id] = Written(r.id, int(r.created_at or 0), int(r.updated_at or 0), r.superseded_by,
                                r.authored_by_agent_id, r.authored_by_role, int(r.rowid))
    return out


def _contradictions(ws: Workspace, conn: Any, losers: list[str]) -> dict[tuple[str, str], int]:
    """(loser, winner) → the time of the contradiction row that records it (the index on fact A finds them)."""
    c = ws.layout.conflicts
    out: dict[tuple[str, str], int] = {}
    for start in range(0, len(losers), CHUNK):
        for a, b, resolved, created in conn.execute(select(c.c.fact_a_id, c.c.fact_b_id, c.c.resolved_at,
                                                           c.c.created_at).where(
                c.c.fact_a_id.in_(losers[start:start + CHUNK]), c.c.conflict_type == "contradiction")):
            out.setdefault((a, b), int(resolved if resolved is not None else created))
    return out


def set_aside_of(ws: Workspace, conn: Any, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SetAside]:
    """(fact id, what it pointed at) → when and by whom it was set aside (a fact no longer in the
    file is left out)."""
    wanted = [(fid, by) for fid, by in dict.fromkeys(pairs) if fid and by]
    if not wanted:
        return {}
    rows = written_rows(ws, conn, [i for pair in wanted for i in pair])
    times = _contradictions(ws, conn, sorted({fid for fid, by in wanted if ":" not in by and fid in rows}))
    out: dict[tuple[str, str], SetAside] = {}
    for fid, by in wanted:
        old = rows.get(fid)
        if old is None:
            continue
        if old.superseded_by != by:
            old = Written(old.id, old.created_at, old.updated_at, by, old.agent_id, old.role, old.key)
        out[(fid, by)] = set_aside(old, rows.get(by), times.get((fid, by)))
    return out
