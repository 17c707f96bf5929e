"""Where the history's events come from: one SQL source per kind of row that carries a time.

Each source reads, newest first, the next ``n`` *groups* of events strictly before a
cursor ``(at, rank, key)`` (time, the source's rank, its row key), so pages of the merged
history are read lazily from the file: nothing here loads every row. A group is one
row's events (a fact's creation with the supersessions it caused) and shares the
cursor of its row, so a page never cuts a group in two.

Times (CC_SCHEMA.md: unix seconds): a fact created at ``created_at``; a supersession
at the superseding fact's ``created_at`` when ``superseded_by`` names a fact created at
or after the superseded one, else (a sentinel such as ``system:cleanup``, a missing
fact, a cycle) at the superseded fact's ``updated_at``; a fact the product changed in
place (still active, ``updated_at`` later than ``created_at``) at ``updated_at``;
policies, conflicts, edges and notes at their own columns; receipts at ``atUtc``; the
desk's own changes at their history row's time. Supersessions the desk made
(``human:`` sentinels, or between two facts its history names) are left to the desk's
own rows, which say who and why.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from memorydesk.core.moments import utc_text
from memorydesk.core.text import one_line
from memorydesk.store.workspace import Workspace

Cursor = tuple[int, int, int]
TOP: Cursor = (2**62, 99, 2**62)


@dataclass(frozen=True)
class Event:
    """One line of the history (``to_json`` is the command line's contract)."""

    at: int
    actor: str
    actor_kind: str  # agent | reviewer | system
    kind: str
    action: str
    ids: tuple[str, ...]
    summary: str
    reason: str
    cursor: Cursor = field(default=TOP, compare=False)
    history_id: int | None = None  # the desk's own changes
    undone_by: int | None = None
    detail: str = ""  # the desk's stored detail (JSON), for the before/after pane

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "actor": self.actor, "actor_kind": self.actor_kind, "kind": self.kind,
                "action": self.action, "ids": list(self.ids), "summary": self.summary, "reason": self.reason}


@dataclass
class Context:
    """What every source needs: the file's tables, agents by id, the facts the desk made."""

    ws: Workspace
    agents: dict[str, tuple[str, str | None]]  # id → (name, role)
    desk_made: set[str]  # facts the desk's history created
    desk_facts: set[str]  # every fact id the desk's history names
    since: int | None
    until: int | None

    def who(self, agent_id: str | None, role: str | None) -> tuple[str, str]:
        if agent_id:
            name = self.agents.get(agent_id, (agent_id, None))[0]
            return name, "agent"
        if role:
            return role, "agent"
        return "unknown", "system"


def _snippet(topic: str, content: str, domain: str) -> str:
    return f"[{one_line(domain, 40)}/{one_line(topic, 40)}] {one_line(content, 90)}"


def bound_sql(column: str, key: str, rank: int, cursor: Cursor) -> tuple[str, list[Any]]:
    """The SQL condition "strictly before ``cursor``" for a source of ``rank``."""
    at, r, k = cursor
    if rank < r:
        return f"{column} <= ?", [at]
    if rank > r:
        return f"{column} < ?", [at]
    return f"({column} < ? OR ({column} = ? AND {key} < ?))", [at, at, k]


def _range(ctx: Context, column: str) -> tuple[str, list[Any]]:
    parts, args = [], []
    if ctx.since is not None:
        parts.append(f"{column} >= ?")
        args.append(ctx.since)
    if ctx.until is not None:
        parts.append(f"{column} <= ?")
        args.append(ctx.until)
    return (" AND ".join(parts) or "1"), args


def _rows(ctx: Context, sql: str, args: list[Any]) -> list[tuple]:
    with ctx.ws.read() as conn:
        return conn.exec_driver_sql(sql, tuple(args)).all()


def _has_table(ctx: Context, name: str) -> bool:
    with ctx.ws.read() as conn:
        return conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)).first() \
            is not None


Group = tuple[Cursor, list[Event]]
Source = Callable[[Context, Cursor, int], list[Group]]


def facts_created(ctx: Context, cursor: Cursor, n: int, rank: int = 6) -> list[Group]:
    f = ctx.ws.layout.facts.name
    cond, args = bound_sql("created_at", "rowid", rank, cursor)
    rng, rargs = _range(ctx, "created_at")
    rows = _rows(ctx, f"SELECT rowid, id, domain, topic, content, authored_by_agent_id, authored_by_role, "
                      f"memory_type, veracity, created_at FROM {f} WHERE {cond} AND {rng} "
                      f"ORDER BY created_at DESC, rowid DESC LIMIT ?", [*args, *rargs, n])
    groups = []
    for key, fid, domain, topic, content, agent, role, mtype, veracity, created in rows:
        cur = (created, rank, key)
        if fid in ctx.desk_made:
            groups.append((cur, []))  # the desk's own row says it
            continue
        actor, kind = ctx.who(agent, role)
        group = [Event(created, actor, kind, "fact", "created", (fid,), _snippet(topic, content, domain),
                       f"{mtype}, {veracity}" + (f", role {role}" if role and agent else ""), cur)]
        group += _losers(ctx, fid, created, actor, kind, cur)
        groups.append((cur, group))
    return groups


def _losers(ctx: Context, winner: str, at: int, actor: str, kind: str, cur: Cursor) -> list[Event]:
    f, c = ctx.ws.layout.facts.name, ctx.ws.layout.conflicts.name
    rows = _rows(ctx, f"SELECT id, domain, topic, content, created_at, (SELECT conflict_type FROM {c} "
                      f"WHERE fact_a_id = {f}.id AND winning_fact_id = ? LIMIT 1) FROM {f} "
                      "WHERE superseded_by = ? ORDER BY rowid", [winner, winner])
    out = []
    for fid, domain, topic, content, created, ctype in rows:
        if created > at or (fid in ctx.desk_facts and winner in ctx.desk_facts):
            continue  # a cycle (the fallback source has it), or the desk's own change
        out.append(Event(at, actor, kind, "fact", "superseded", (fid, winner),
                         f"{_snippet(topic, content, domain)} — superseded by {winner}",
                         ctype or "superseded by a newer fact", cur))
    return out


def facts_superseded_otherwise(ctx: Context, cursor: Cursor, n: int, rank: int = 4) -> list[Group]:
    """Supersessions timed by the superseded fact's ``updated_at`` (sentinel, missing fact, cycle)."""
    f = ctx.ws.layout.facts.name
    cond, args = bound_sql("x.updated_at", "x.rowid", rank, cursor)
    rng, rargs = _range(ctx, "x.updated_at")
    rows = _rows(ctx, f"SELECT x.rowid, x.id, x.domain, x.topic, x.content, x.superseded_by, x.updated_at, "
                      f"s.id IS NULL FROM {f} x LEFT JOIN {f} s ON s.id = x.superseded_by "
                      f"WHERE x.superseded_by IS NOT NULL AND substr(x.superseded_by, 1, 6) != 'human:' "
                      f"AND (s.id IS NULL OR s.created_at < x.created_at) AND {cond} AND {rng} "
                      "ORDER BY x.updated_at DESC, x.rowid DESC LIMIT ?", [*args, *rargs, n])
    groups = []
    for key, fid, domain, topic, content, by, updated, missing in rows:
        sentinel = by.startswith("system:")
        why = (f"sentinel {by}" if sentinel else f"{by} names no fact" if missing
               else f"{by} is older than it (a supersession cycle); timed by its updated_at")
        actor, kind = (by, "system") if sentinel or missing else ctx.who(None, None)
        groups.append(((updated, rank, key), [Event(updated, actor, kind, "fact", "superseded", (fid, by),
                       f"{_snippet(topic, content, domain)} — superseded by {by}", why, (updated, rank, key))]))
    return groups


def facts_updated(ctx: Context, cursor: Cursor, n: int, rank: int = 5) -> list[Group]:
    """Active facts the product changed in place (a re-mention, an edit): ``updated_at`` > ``created_at``."""
    f = ctx.ws.layout.facts.name
    cond, args = bound_sql("updated_at", "rowid", rank, cursor)
    rng, rargs = _range(ctx, "updated_at")
    rows = _rows(ctx, f"SELECT rowid, id, domain, topic, content, authored_by_agent_id, authored_by_role, "
                      f"mention_count, updated_at FROM {f} WHERE superseded_by IS NULL AND updated_at > created_at "
                      f"AND {cond} AND {rng} ORDER BY updated_at DESC, rowid DESC LIMIT ?", [*args, *rargs, n])
    out = []
    for key, fid, domain, topic, content, agent, role, mentions, updated in rows:
        actor, kind = ctx.who(agent, role)
        out.append(((updated, rank, key), [Event(
            updated, actor, kind, "fact", "updated", (fid,), _snippet(topic, content, domain),
            f"changed in place (mentioned {mentions}×); the file keeps only today's text", (updated, rank, key))]))
    return out


def policies(ctx: Context, cursor: Cursor, n: int, rank: int = 3) -> list[Group]:
    p = ctx.ws.layout.policies.name
    cond, args = bound_sql("t", "k", rank, cursor)
    rng, rargs = _range(ctx, "t")
    rows = _rows(ctx, f"SELECT * FROM (SELECT rowid * 2 AS k, created_at AS t, 'created' AS a, id, domain, rule, "
                      f"required_role FROM {p} UNION ALL SELECT rowid * 2 + 1, updated_at, 'updated', id, domain, "
                      f"rule, required_role FROM {p} WHERE updated_at > created_at) WHERE {cond} AND {rng} "
                      "ORDER BY t DESC, k DESC LIMIT ?", [*args, *rargs, n])
    out = []
    for key, at, act, pid, domain, rule, role in rows:
        if pid in ctx.desk_made:
            out.append(((at, rank, key), []))
            continue
        actor, kind = ctx.who(None, role)
        out.append(((at, rank, key), [Event(at, actor, kind, "policy", act, (pid,),
                                            f"[{one_line(domain, 40)}] {one_line(rule, 100)}",
                                            "advisory role " + role if role else "", (at, rank, key))]))
    return out


def conflicts(ctx: Context, cursor: Cursor, n: int, rank: int = 2) -> list[Group]:
    c = ctx.ws.layout.conflicts.name
    cond, args = bound_sql("t", "k", rank, cursor)
    rng, rargs = _range(ctx, "t")
    rows = _rows(ctx, f"SELECT * FROM (SELECT rowid * 2 AS k, created_at AS t, 'recorded' AS a, id, fact_a_id, "
                      f"fact_b_id, conflict_type, resolution FROM {c} UNION ALL SELECT rowid * 2 + 1, resolved_at, "
                      f"'resolved', id, fact_a_id, fact_b_id, conflict_type, resolution FROM {c} "
                      f"WHERE resolved_at IS NOT NULL AND resolved_at != created_at) WHERE {cond} AND {rng} "
                      "ORDER BY t DESC, k DESC LIMIT ?", [*args, *rargs, n])
    out = []
    for key, at, act, cid, a, b, ctype, resolution in rows:
        state = f", {resolution}" if resolution else ", open"
        out.append(((at, rank, key), [Event(
            at, "product", "system", "conflict", act, (cid, a, b), f"{ctype} between {a} and {b}",
            ctype + (state if act == "recorded" else f", {resolution}"), (at, rank, key))]))
    return out


def edges(ctx: Context, cursor: Cursor, n: int, rank: int = 1) -> list[Group]:
    e, f = ctx.ws.layout.edges.name, ctx.ws.layout.facts.name
    cond, args = bound_sql("e.created_at", "e.rowid", rank, cursor)
    rng, rargs = _range(ctx, "e.created_at")
    rows = _rows(ctx, f"SELECT e.rowid, e.id, e.source_fact_id, e.target_fact_id, e.edge_type, e.weight, "
                      f"e.created_at, s.authored_by_agent_id, s.authored_by_role FROM {e} e LEFT JOIN {f} s "
                      f"ON s.id = e.source_fact_id WHERE {cond} AND {rng} ORDER BY e.created_at DESC, e.rowid DESC "
                      "LIMIT ?", [*args, *rargs, n])
    out = []
    for key, eid, src, dst, etype, weight, at, agent, role in rows:
        actor, kind = ctx.who(agent, role)
        out.append(((at, rank, key), [Event(at, actor, kind, "edge", "created", (eid, src, dst), f"{etype} {src} → {dst}",
                                            f"weight {weight:.2f}" if isinstance(weight, float) else "",
                                            (at, rank, key))]))
    return out


def notes(ctx: Context, cursor: Cursor, n: int, rank: int = 0) -> list[Group]:
    w = ctx.ws.layout.notes.name
    cond, args = bound_sql("updated_at", "rowid", rank, cursor)
    rng, rargs = _range(ctx, "updated_at")
    rows = _rows(ctx, f"SELECT rowid, agent_id, length(content), updated_at FROM {w} WHERE {cond} AND {rng} "
                      "ORDER BY updated_at DESC, rowid DESC LIMIT ?", [*args, *rargs, n])
    out = []
    for key, agent, length, at in rows:
        actor, kind = ctx.who(agent, None)
        out.append(((at, rank, key), [Event(at, actor, kind, "note", "updated", (agent,),
                                            f"notes of {actor}: {length or 0:,} characters",
                                            "the file keeps only the latest note", (at, rank, key))]))
    return out


def receipts(ctx: Context, cursor: Cursor, n: int, rank: int = -1) -> list[Group]:
    if ctx.ws.desk_schema == 0 or not _has_table(ctx, "memdesk_receipts"):
        return []
    at_s = "CAST(strftime('%s', substr(at_utc, 1, 19)) AS INTEGER)"
    cond, args = bound_sql(at_s, "id", rank, cursor)
    rng, rargs = _range(ctx, at_s)
    rows = _rows(ctx, f"SELECT id, run_id, tier, status, version, source_version, {at_s} AS t, user_scope, "
                      f"assistant_scope FROM memdesk_receipts WHERE t IS NOT NULL AND {cond} AND {rng} "
                      "ORDER BY t DESC, id DESC LIMIT ?", [*args, *rargs, n])
    return [((at, rank, key), [Event(at, source or "unknown adapter", "system", "receipt", status, (run, version),
                                     f"{tier} {status} of version {version} in run {run} ({user} × {assistant})",
                                     "receipt stored", (at, rank, key))])
            for key, run, tier, status, version, source, at, user, assistant in rows]


def desk(ctx: Context, cursor: Cursor, n: int, rank: int = 7) -> list[Group]:
    if ctx.ws.desk_schema == 0:
        return []
    cond, args = bound_sql("at", "id", rank, cursor)
    rng, rargs = _range(ctx, "at")
    rows = _rows(ctx, "SELECT id, entity, entity_id, before_id, after_id, action, actor, reason, at, detail, undo_of, "
                      f"undone_by FROM memdesk_history WHERE {cond} AND {rng} ORDER BY at DESC, id DESC LIMIT ?",
                 [*args, *rargs, n])
    out = []
    for hid, entity, eid, before, after, act, actor, reason, at, detail, undo_of, undone_by in rows:
        ids = tuple(dict.fromkeys(i for i in (eid, before, after) if i))
        summary = desk_summary(entity, act, eid, before, after, undo_of, detail)
        out.append(((at, rank, hid), [Event(at, actor, "reviewer", entity, act, ids, summary, reason or "",
                                            (at, rank, hid), hid, undone_by, detail or "{}")]))
    return out


def desk_summary(entity: str, act: str, eid: str, before: str | None, after: str | None, undo_of: int | None,
                 detail: str | None) -> str:
    if act in ("undo", "redo"):
        return f"{act} of entry {undo_of} ({entity} {eid})"
    if before and after and before != after:
        return f"{act} {entity} {before} → {after}"
    try:
        count = len(json.loads(detail or "{}").get("ids") or [])
    except (ValueError, AttributeError):
        count = 0
    return f"{act} {entity} {eid}" + (f" ({count} rows)" if count > 1 else "")


#: (kind or None for several, source), newest-first merge order by rank
SOURCES: list[tuple[frozenset[str] | None, Source]] = [
    (None, desk), (frozenset({"fact"}), facts_created), (frozenset({"fact"}), facts_updated),
    (frozenset({"fact"}), facts_superseded_otherwise), (frozenset({"policy"}), policies),
    (frozenset({"conflict"}), conflicts), (frozenset({"edge"}), edges), (frozenset({"note"}), notes),
    (frozenset({"receipt"}), receipts),
]


def desk_fact_ids(ws: Workspace) -> tuple[set[str], set[str]]:
    """(facts the desk created, every id the desk's history names) — the history table is small."""
    if ws.desk_schema == 0:
        return set(), set()
    made: set[str] = set()
    named: set[str] = set()
    with ws.read() as conn:
        for entity, eid, before, after, act, detail in conn.exec_driver_sql(
                "SELECT entity, entity_id, before_id, after_id, action, detail FROM memdesk_history"):
            named.update(i for i in (eid, before, after) if i)
            if after and act not in ("undo", "redo"):
                made.add(after)
            try:
                d = json.loads(detail or "{}")
            except ValueError:
                continue
            for value in _strings(d):
                named.add(value)
            if isinstance(d, dict) and isinstance(d.get("new_id"), str):
                made.add(d["new_id"])
    return made, named


def _strings(value: Any, depth: int = 0) -> Iterable[str]:
    if depth > 3:
        return
    if isinstance(value, str) and 0 < len(value) <= 64:
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in ("new_row", "row", "rows", "content"):
                yield from _strings(v, depth + 1)
    elif isinstance(value, list):
        for v in value[:10_000]:
            yield from _strings(v, depth + 1)


__all__ = ["Context", "Cursor", "Event", "SOURCES", "TOP", "desk_fact_ids", "utc_text"]
