"""The workspace's agents as a person looks them up: a list, and a name or id resolved.

Read-only. The note length is that of the note an agent's dispatch preamble carries
(its most recently updated note in this workspace), in characters; 0 without one.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import func, select

from memorydesk.core.errors import BadInput
from memorydesk.store.workspace import Workspace


@dataclass(frozen=True)
class AgentRow:
    id: str
    name: str
    role: str | None
    note_length: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class UnknownAgent(BadInput):
    """``--agent`` names no agent of the workspace (the message names close matches)."""


def agent_list(ws: Workspace) -> list[AgentRow]:
    """Every agent of the file, by name (then id)."""
    a, notes = ws.layout.agents.c, ws.layout.notes.c
    note_length = (
        select(func.length(notes.content))
        .where(notes.agent_id == a.id, notes.workspace_id == ws.workspace_id)
        .order_by(notes.updated_at.desc())
        .limit(1)
        .scalar_subquery()
    )
    stmt = select(a.id, a.name, a.role, func.coalesce(note_length, 0)).order_by(a.name, a.id)
    with ws.read() as conn:
        return [AgentRow(str(i), str(n), r, int(length)) for i, n, r, length in conn.execute(stmt)]


def resolve_agent(ws: Workspace, text: str, agents: list[AgentRow] | None = None) -> str:
    """The id of the agent ``text`` names: its id, or its exact name.

    Raises ``UnknownAgent`` naming up to three close matches (names in another letter
    case, ids that start with ``text``, similar names) and how to list every agent.
    """
    agents = agent_list(ws) if agents is None else agents
    wanted = text.strip()
    for agent in agents:
        if agent.id == wanted:
            return agent.id
    named = [agent for agent in agents if agent.name == wanted]
    if len(named) == 1:
        return named[0].id
    if len(named) > 1:
        ids = ", ".join(agent.id for agent in named)
        raise UnknownAgent(f"--agent: {len(named)} agents are named {wanted!r} ({ids}); give the id")
    close = _close_matches(wanted, agents)
    hint = f"`memory-desk agents {ws.path.name}` lists every agent"
    if not close:
        raise UnknownAgent(f"--agent: no agent has the id or name {wanted!r} in {ws.path.name}; {hint}")
    listed = ", ".join(f"{agent.name} ({agent.id})" for agent in close)
    raise UnknownAgent(f"--agent: no agent has the id or name {wanted!r}; close matches: {listed}; {hint}")


def _close_matches(wanted: str, agents: list[AgentRow]) -> list[AgentRow]:
    lowered = wanted.casefold()
    found = [a for a in agents if a.name.casefold() == lowered]
    if len(lowered) >= 4:
        found += [a for a in agents if a.id.casefold().startswith(lowered)]
    by_name = {a.name.casefold(): a for a in agents}
    found += [by_name[n] for n in difflib.get_close_matches(lowered, list(by_name), n=3, cutoff=0.6)]
    unique = list({a.id: a for a in found}.values())
    return unique[:3]
