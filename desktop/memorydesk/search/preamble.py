"""The dispatch preamble: exactly what an agent is handed (docs/product-format.md, "The product's rules").

::

    ## Agent Memory\\n\\n<sections joined by \\n\\n>\\n\\n<search line>
    search line: _Search durable facts on demand with the `search_memory` tool._
    section 1: ## Active Policies\\n<lines joined by \\n>
    section 2: ## My Notes\\n<note as stored>
    section 3: ## Possibly relevant facts (keyword match for this task)\\n<lines joined by \\n>\\n<verify line>
    verify line: _Verify load-bearing items with `search_memory`._

- Policies: every active policy of the workspace, unfiltered, most recently updated
  first (equal ``updated_at`` keep table order), as ``- [domain] rule`` with the rule
  as stored (it may span lines).
- Notes: the agent's note verbatim, only when it is not blank (Dart ``trim``). If an
  agent has several note rows, the most recently updated one.
- Facts: only when the trimmed task is at least 20 characters (UTF-16 units); the
  keyword search for the task, at most 5 lines ``- [domain/topic] snippet (confidence
  0.9)``, stopping before a line would take the lines' total UTF-16 length (newlines not
  counted) past 1,200. The section is left out when no line fits.
- The whole preamble is ``""`` when no section has content.

The policy lines are kept while the file's version is unchanged (``search.cache.cached``);
everything is read in one snapshot.
"""

from __future__ import annotations

from sqlalchemy import Connection, and_, select

from memorydesk.core.inputs import NAME_MAX, TASK_MAX, check_text
from memorydesk.core.product.text import dart_trim, format_confidence, snippet, utf16_len
from memorydesk.search.cache import cached, snapshot_version
from memorydesk.search.keyword import KEYWORD_LIMIT, keyword_rows
from memorydesk.store import Workspace

__all__ = [
    "FACT_LINES_BUDGET",
    "MAX_FACT_LINES",
    "MIN_TASK_UNITS",
    "build_preamble",
    "fact_lines",
    "note_section",
    "policy_section",
]

HEADER = "## Agent Memory"
FOOTER = "_Search durable facts on demand with the `search_memory` tool._"
POLICIES_HEADING = "## Active Policies"
NOTES_HEADING = "## My Notes"
FACTS_HEADING = "## Possibly relevant facts (keyword match for this task)"
VERIFY_LINE = "_Verify load-bearing items with `search_memory`._"
MAX_FACT_LINES = 5
FACT_LINES_BUDGET = 1200
MIN_TASK_UNITS = 20


def policy_lines(ws: Workspace, conn: Connection | None = None) -> list[str]:
    """``- [domain] rule`` for every active policy, most recently updated first."""
    if conn is None:
        with ws.read() as own:
            snapshot_version(ws, own)
            return policy_lines(ws, own)
    return list(cached(ws, conn, ("policy-lines",), lambda: tuple(_policy_lines(ws, conn))))


def _policy_lines(ws: Workspace, conn: Connection) -> list[str]:
    policies = ws.layout.policies.name
    rows = conn.exec_driver_sql(
        f"SELECT domain, rule FROM {policies} WHERE workspace_id = ? AND active = 1 "
        f"ORDER BY updated_at DESC, rowid",
        (ws.workspace_id,),
    ).fetchall()
    return [f"- [{domain}] {rule}" for domain, rule in rows]


def policy_section(ws: Workspace, conn: Connection | None = None) -> str:
    """The policies section exactly as injected, or ``""`` when no policy is active."""
    lines = policy_lines(ws, conn)
    return POLICIES_HEADING + "\n" + "\n".join(lines) if lines else ""


def note_section(ws: Workspace, agent_id: str, conn: Connection | None = None) -> str:
    """``## My Notes`` with the agent's note verbatim, or ``""`` when it is missing or blank."""
    if conn is None:
        with ws.read() as own:
            return note_section(ws, agent_id, own)
    notes = ws.layout.notes
    stmt = (
        select(notes.c.content)
        .where(and_(notes.c.workspace_id == ws.workspace_id, notes.c.agent_id == agent_id))
        .order_by(notes.c.updated_at.desc())
        .limit(1)
    )
    content = conn.execute(stmt).scalar()
    if content is None or not dart_trim(content):
        return ""
    return NOTES_HEADING + "\n" + content


def fact_lines(ws: Workspace, task: str, conn: Connection | None = None) -> list[str]:
    """The fact lines the task earns (empty when the trimmed task is under 20 characters)."""
    if utf16_len(dart_trim(task)) < MIN_TASK_UNITS:
        return []
    if conn is None:
        with ws.read() as own:
            snapshot_version(ws, own)
            return fact_lines(ws, task, own)
    _, rows = keyword_rows(conn, ws, task, limit=KEYWORD_LIMIT)
    lines: list[str] = []
    used = 0
    for row in rows:
        if len(lines) >= MAX_FACT_LINES:
            break
        line = f"- [{row.domain}/{row.topic}] {snippet(row.content)} (confidence {format_confidence(row.confidence)})"
        size = utf16_len(line)
        if used + size > FACT_LINES_BUDGET:
            break
        lines.append(line)
        used += size
    return lines


def build_preamble(ws: Workspace, agent_id: str, task: str | None = None) -> str:
    """The preamble ``agent_id`` gets for ``task``; ``""`` when there is nothing to say."""
    check_text(agent_id, "the agent id", max_chars=NAME_MAX)
    check_text(task or "", "the task", max_chars=TASK_MAX, nul=True)
    with ws.read() as conn:
        snapshot_version(ws, conn)  # before any read: lets the per-version caches serve this call
        sections = [policy_section(ws, conn), note_section(ws, agent_id, conn)]
        lines = fact_lines(ws, task or "", conn)
    if lines:
        sections.append(FACTS_HEADING + "\n" + "\n".join(lines) + "\n" + VERIFY_LINE)
    present = [s for s in sections if s]
    if not present:
        return ""
    return HEADER + "\n\n" + "\n\n".join(present) + "\n\n" + FOOTER
