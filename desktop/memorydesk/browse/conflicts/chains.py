"""A conflict trail's chains: who set each fact aside and when, both ways along its supersession
chain, and the supersessions a person took back since (no Qt, no writes).

``TrailReader`` reads once what every step needs (agents, the desk's history and its moves,
purged ids). A step's who and when is a person's (the desk's moves, or an older desk's history
row that names it), else the one rule of ``core.supersession`` (``browse.history.set_aside``),
which the History and *as of* use too; an undo or a redo only puts back a value an earlier
change took away, so the value keeps its first origin. ``lapsed`` lists, from the moves, the
supersessions of a fact or into it that a person's change took back — a restored loser was
still superseded by the winner until then — with who put them back, if anyone did.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.browse.conflicts.trail_types import ChainNode, Lapsed, Purge, Who
from memorydesk.browse.detail import older_versions
from memorydesk.browse.facts import fact_state
from memorydesk.browse.history.moves import Move, desk_moves
from memorydesk.browse.history.set_aside import set_aside_of
from memorydesk.memory.history import record as history
from memorydesk.store.ours import DeskHistory
from memorydesk.store.workspace import Workspace

CHAIN_LIMIT = 50
HISTORY = DeskHistory.__table__

__all__ = ["TrailReader", "lapsed", "missing_state", "newer", "older", "who"]


class TrailReader:
    """What the trail reads once: agents, history (when the file has ours), purged ids."""

    def __init__(self, ws: Workspace, conn: Connection) -> None:
        self.ws, self.conn = ws, conn
        self.agents = {r.id: (r.name, r.role) for r in conn.execute(
            select(ws.layout.agents.c.id, ws.layout.agents.c.name, ws.layout.agents.c.role))}
        self.has_history = ws.desk_schema > 0 and conn.exec_driver_sql(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (HISTORY.name,)).first() is not None
        self.purged: dict[str, Purge] = {}
        if self.has_history:
            for row in conn.execute(select(HISTORY).where(HISTORY.c.entity == "fact", HISTORY.c.action == "purge")):
                try:
                    ids = json.loads(row.detail or "{}").get("ids", [])
                except (ValueError, AttributeError):
                    ids = []
                for fid in ids if isinstance(ids, list) else []:
                    self.purged[str(fid)] = Purge(row.actor, row.at)
        self._history: dict[str, list[dict[str, Any]]] = {}
        self.moves: dict[str, list[Move]] = desk_moves(conn) if self.has_history else {}

    def rule(self, fact_id: str, by: str) -> Any:
        """When and by whom ``fact_id`` was set aside into ``by`` as the file says (``core.supersession``)."""
        return set_aside_of(self.ws, self.conn, [(fact_id, by)]).get((fact_id, by))

    def history_of(self, entity_id: str) -> list[dict[str, Any]]:
        if not self.has_history:
            return []
        if entity_id not in self._history:
            rows = history.entries(self.conn, entity_id=entity_id, limit=200)
            for r in rows:
                try:
                    r["detail"] = json.loads(r["detail"] or "{}")
                except ValueError:
                    r["detail"] = {}
            self._history[entity_id] = rows
        return self._history[entity_id]

    def fact(self, fact_id: str) -> Any:
        f = self.ws.layout.facts
        return self.conn.execute(select(f).where(f.c.id == fact_id)).first()

    def agent(self, agent_id: str | None) -> tuple[str | None, str | None]:
        return self.agents.get(agent_id, (None, None)) if agent_id else (None, None)


def missing_state(ctx: TrailReader, fact_id: str) -> str:
    if fact_id.startswith(("system:", "human:")):
        return "sentinel"
    return "purged" if fact_id in ctx.purged else "missing"


def _person(m: Move) -> Who:
    return Who("person", m.actor, action=m.action, reason=m.reason)


def _origin(ctx: TrailReader, fact_id: str, moves: list[Move], k: int) -> tuple[Who, int | None, bool]:
    """Who set the value move ``k`` gave ``fact_id``: that move's person, except that an undo or a
    redo only puts back a value an earlier move took away — its origin is that value's own."""
    m = moves[k]
    if not m.action.endswith((".undo", ".redo")):
        return _person(m), m.at, False
    taken = [j for j in range(k) if moves[j].before == m.after]
    if taken:
        set_by = [i for i in range(taken[-1]) if moves[i].after == m.after]
        return _origin(ctx, fact_id, moves, set_by[-1]) if set_by else _rule_who(ctx, fact_id, str(m.after))
    return _person(m), m.at, False


def who(ctx: TrailReader, old: Any, new_id: str) -> tuple[Who, int | None, bool]:
    """Who made ``old`` point at ``new_id``, when, and whether that time is only a bound: a person
    (the desk's moves, or an older desk's history row), else the one rule of
    ``core.supersession`` (an agent's write, a sentinel, or unknown)."""
    moves = ctx.moves.get(old.id)
    if moves:
        if moves[-1].after == new_id and old.superseded_by == new_id:
            return _origin(ctx, old.id, moves, len(moves) - 1)
    else:
        for h in ctx.history_of(old.id):  # an older desk kept no moves: its rows by what they name
            d, act = h["detail"], f"{h['entity']}.{h['action']}"
            made = ((act == "fact.edit" and h["before_id"] == old.id and h["after_id"] == new_id)
                    or (act == "fact.delete" and h["entity_id"] == old.id and new_id == "human:deleted")
                    or (act == "conflict.restore_loser" and d.get("replaced", d.get("winner")) == old.id
                        and d.get("loser") == new_id)
                    or (act == "fact.restore" and d.get("replaces") == old.id and d.get("id") == new_id)
                    or (act == "conflict.keep" and d.get("dropped") == old.id and d.get("kept") == new_id))
            if made:
                return Who("person", h["actor"], action=act, reason=h["reason"]), h["at"], False
    return _rule_who(ctx, old.id, new_id)


def _rule_who(ctx: TrailReader, fact_id: str, new_id: str) -> tuple[Who, int | None, bool]:
    rule = ctx.rule(fact_id, new_id)
    if rule is None:
        return Who("unknown", None), None, False
    if rule.kind == "agent" and rule.writer is not None:
        name, _role = ctx.agent(rule.writer.agent_id)
        action = "contradiction" if rule.why.startswith("contradiction") else "write"
        return (Who("agent", name or rule.writer.agent_id or rule.writer.role, action=action,
                    agent_id=rule.writer.agent_id, write=rule.writer.id), rule.at, False)
    if rule.kind == "sentinel":
        return Who("human" if new_id.startswith("human:") else "system", new_id), rule.at, rule.after
    return Who("unknown", None), rule.at, False


def lapsed(ctx: TrailReader, fact_id: str) -> tuple[Lapsed, ...]:
    """The supersessions of ``fact_id``, or into it, that a person's change took back (oldest
    first): each with who set it and when (the desk's earlier move, or the file's own by the
    rule), who took it back, and who put it back, if someone did (an undo)."""
    out: list[Lapsed] = []
    for fid, moves in ctx.moves.items():
        for i, m in enumerate(moves):
            if m.before is None or (fid != fact_id and m.before != fact_id):
                continue
            set_by = [j for j in range(i) if moves[j].after == m.before]
            by, at, after = _origin(ctx, fid, moves, set_by[-1]) if set_by else _rule_who(ctx, fid, m.before)
            back = next((e for e in moves[i + 1:] if e.after == m.before), None)
            out.append(Lapsed(fid, m.before, at, by, m.at, _person(m), m.entry, after,
                              back.at if back else None, _person(back) if back else None))
    return tuple(sorted(out, key=lambda x: (x.ended_at, x.entry)))


def _step(row: Any, **more: Any) -> ChainNode:
    return ChainNode(row.id, fact_state(row.superseded_by, row.valid_until), topic=row.topic,
                     created_at=row.created_at, updated_at=row.updated_at, **more)


def newer(ctx: TrailReader, start: Any) -> list[ChainNode]:
    """The fact itself, then what superseded it, up to the version in force (or a sentinel,
    a missing id, a cycle)."""
    nodes: list[ChainNode] = []
    seen = {start.id}
    row = start
    while row is not None and row.superseded_by is not None and len(nodes) < CHAIN_LIMIT:
        nxt = row.superseded_by
        by, at, after = who(ctx, row, nxt)
        cycle = nxt in seen
        nodes.append(_step(row, next_id=nxt, at=at or row.updated_at, who=by, cycle=cycle, after=after))
        if cycle:
            row = None
            break
        seen.add(nxt)
        row = ctx.fact(nxt)
        if row is None:
            nodes.append(ChainNode(nxt, missing_state(ctx, nxt), exists=False))
    if row is not None:
        nodes.append(_step(row))
    return nodes


def older(ctx: TrailReader, start_id: str) -> list[ChainNode]:
    """What the fact superseded, transitively (newest first, with depth)."""
    f = ctx.ws.layout.facts
    out: list[ChainNode] = []
    older = older_versions(ctx.conn, f, start_id, CHAIN_LIMIT, [f], {start_id}, newest_first=True)
    for row, depth in older[:CHAIN_LIMIT]:
        by, at, after = who(ctx, row, row.superseded_by)
        out.append(_step(row, into=row.superseded_by, depth=depth, at=at or row.updated_at, who=by, after=after))
    return out
