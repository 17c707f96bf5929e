"""Where the history's events come from: one SQL source per kind of row that carries a time.

Each source reads its rows in the order they were written (rowid, or the history's id),
newest first, ``n`` at a time before a position, so pages of the merged history are read
lazily: nothing here sorts or loads every row (the product's tables have no index on
their times, and the desk adds none). The product writes rows as things happen, so the
order written is the order of their times; ``history`` merges the sources by time. A
*group* is one row's events (a fact's creation with the supersessions it caused) and is
never cut in two by a page.

Times (CC_SCHEMA.md: unix seconds): a fact created at ``created_at``; a supersession
at the superseding fact's ``created_at`` when ``superseded_by`` names a fact created at
or after the superseded one, else (a sentinel such as ``system:harvest``, a missing
fact, a cycle) at the superseded fact's ``updated_at`` — except ``system:cleanup``, which the
product writes without touching ``updated_at``: its time is unknown, shown as "after" the
earliest the product's rule allows (31 days after ``created_at``, not before ``updated_at``);
policies, conflicts, edges and
notes at their own columns; receipts at ``atUtc``; the desk's own changes at their
history row's time. Supersessions the desk made (``human:`` sentinels, or between two
facts its history names) are left to the desk's own rows, which say who and why.
Sentinel supersessions come from the ``superseded_by`` index, newest first.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from memorydesk.browse.history.as_of import CLEANUP, CLEANUP_AGE
from memorydesk.core.product.text import one_line
from memorydesk.store.workspace import Workspace


class Event(NamedTuple):
    """One line of the history (``to_json`` is the command line's contract). Immutable, read by
    attribute; a named tuple rather than a frozen dataclass: a long history makes hundreds of
    thousands, and a tuple is made four times faster."""

    at: int
    actor: str
    actor_kind: str  # agent | reviewer | system
    kind: str
    action: str
    ids: tuple[str, ...]
    summary: str
    reason: str
    history_id: int | None = None  # the desk's own changes
    undone_by: int | None = None
    detail: str = ""  # the desk's stored detail (JSON), for the before/after pane
    after: bool = False  # the file does not say when: ``at`` is the earliest it can have happened

    @property
    def what(self) -> str:
        """Kind and action as the History tab shows them: “fact delete · undone” once undone."""
        return f"{self.kind} {self.action}" + (" · undone" if self.undone_by else "")

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "actor": self.actor, "actor_kind": self.actor_kind, "kind": self.kind,
                "action": self.action, "ids": list(self.ids), "summary": self.summary, "reason": self.reason,
                "undone": self.undone_by is not None, "at_known": not self.after}


@dataclass
class Context:
    """What every source needs: the file's tables, agents by id, the facts the desk made."""

    ws: Workspace
    agents: dict[str, tuple[str, str | None]]  # id → (name, role)
    desk_made: set[str]  # facts (and policies) the desk's history created
    desk_facts: set[str]  # every id the desk's history names
    since: int | None
    until: int | None
    cache: dict[str, Any] = field(default_factory=dict)
    every_fact: dict[str, tuple[Any, Any, Any]] | None = None  # id → (created_at, agent, role): a whole walk

    def facts_named(self, ids: Iterable[Any]) -> dict[str, tuple[Any, Any, Any]]:
        """(created_at, authored_by_agent_id, authored_by_role) of the facts among ``ids`` (absent: no such
        fact): looked up for a page; a walk of the whole history reads every fact's once (``every_fact``)."""
        if self.every_fact is not None:
            return self.every_fact
        wanted = list({i for i in ids if i is not None})
        if not wanted:
            return {}
        marks = ",".join("?" * len(wanted))
        return {r[0]: r[1:] for r in _rows(self, f"SELECT id, created_at, authored_by_agent_id, authored_by_role "
                                                 f"FROM {self.ws.layout.facts.name} WHERE id IN ({marks})", wanted)}

    def read_every_fact(self) -> None:
        f = self.ws.layout.facts.name
        self.every_fact = {r[0]: r[1:] for r in _rows(
            self, f"SELECT id, created_at, authored_by_agent_id, authored_by_role FROM {f}", [])}

    def who(self, agent_id: str | None, role: str | None) -> tuple[str, str]:
        if agent_id:
            return self.agents.get(agent_id, (agent_id, None))[0], "agent"
        if role:
            return role, "agent"
        return "unknown", "system"

    def in_range(self, at: int) -> bool:
        return (self.since is None or at >= self.since) and (self.until is None or at <= self.until)

    def kept(self, events: list[Event]) -> list[Event]:
        """The events within the time range (all of them when there is none)."""
        if self.since is None and self.until is None:
            return events
        return [e for e in events if self.in_range(e.at)]


#: one row's events: (its position in the source, its time, the events)
Group = tuple[int, int, list[Event]]
Source = Callable[[Context, "int | None", int], list[Group]]


def _snippet(topic: str, content: str, domain: str) -> str:
    return f"[{one_line(domain, 40)}/{one_line(topic, 40)}] {one_line(content, 90)}"


def _before(key: str, pos: int | None) -> tuple[str, list[Any]]:
    return (f"{key} < ?", [pos]) if pos is not None else ("1", [])


def _rows(ctx: Context, sql: str, args: list[Any]) -> list[tuple]:
    with ctx.ws.read() as conn:  # the driver's own cursor: plain tuples, many thousands at a time
        return conn.connection.driver_connection.execute(sql, tuple(args)).fetchall()


def _page(ctx: Context, columns: str, source: str, pos: int | None, n: int, key: str = "rowid") -> list[tuple]:
    """``key, columns`` of the ``n`` rows of ``source`` written last before position ``pos`` (all
    when None), newest first."""
    cond, args = _before(key, pos)
    return _rows(ctx, f"SELECT {key}, {columns} FROM {source} WHERE {cond} ORDER BY {key} DESC LIMIT ?", [*args, n])


def facts(ctx: Context, pos: int | None, n: int) -> list[Group]:
    """Facts created, with the supersessions each caused and (rarely) its own untimed one."""
    f = ctx.ws.layout.facts.name
    rows = _page(ctx, "id, domain, topic, content, authored_by_agent_id, authored_by_role, memory_type, veracity, "
                      "created_at, superseded_by, updated_at", f, pos, n)
    losers = _losers(ctx, [r[1] for r in rows if r[1] not in ctx.desk_made])
    known = ctx.facts_named(r[10] for r in rows)
    groups: list[Group] = []
    for key, fid, domain, topic, content, agent, role, mtype, veracity, created, by, updated in rows:
        by_at = known[by][0] if by in known else None  # the superseding fact's creation
        events: list[Event] = []
        if fid not in ctx.desk_made:
            actor, kind = ctx.who(agent, role)
            events.append(Event(created, actor, kind, "fact", "created", (fid,), _snippet(topic, content, domain),
                                f"{mtype}, {veracity}" + (f", role {role}" if role and agent else "")))
            events += _superseded(ctx, fid, created, actor, kind, losers.get(fid, ()))
        if by is not None and not by.startswith(("human:", "system:")) and (by_at is None or by_at < created):
            why = f"{by} names no fact" if by_at is None else \
                f"{by} is older than it (a supersession cycle); timed by its updated_at"
            events.append(Event(updated, by if by_at is None else "unknown", "system", "fact", "superseded",
                                (fid, by), f"{_snippet(topic, content, domain)} — superseded by {by}", why))
        groups.append((key, created, ctx.kept(events)))
    return groups


def _losers(ctx: Context, winners: list[str]) -> dict[str, list[tuple]]:
    """The facts each of ``winners`` superseded (in table order), read in one statement for a page."""
    if not winners:
        return {}
    f, c = ctx.ws.layout.facts.name, ctx.ws.layout.conflicts.name
    marks = ",".join("?" * len(winners))
    rows = _rows(ctx, f"SELECT superseded_by, id, domain, topic, content, created_at, (SELECT conflict_type FROM {c} "
                      f"WHERE fact_a_id = {f}.id AND winning_fact_id = {f}.superseded_by LIMIT 1) FROM {f} "
                      f"WHERE superseded_by IN ({marks}) ORDER BY rowid", winners)
    out: dict[str, list[tuple]] = {}
    for row in rows:
        out.setdefault(row[0], []).append(row[1:])
    return out


def _superseded(ctx: Context, winner: str, at: int, actor: str, kind: str, rows: Iterable[tuple]) -> list[Event]:
    out = []
    for fid, domain, topic, content, created, ctype in rows:
        if created > at or (fid in ctx.desk_facts and winner in ctx.desk_facts):
            continue  # a cycle (timed by its own row), or the desk's own change
        out.append(Event(at, actor, kind, "fact", "superseded", (fid, winner),
                         f"{_snippet(topic, content, domain)} — superseded by {winner}",
                         ctype or "superseded by a newer fact"))
    return out


def sentinels(ctx: Context, pos: int | None, n: int) -> list[Group]:
    """Facts a ``system:`` sentinel superseded, newest first (the index finds them), timed by
    ``updated_at`` — except ``system:cleanup``, which leaves ``updated_at`` as it was: its time is
    unknown, not before the fact was 31 days old (the product's rule) nor before ``updated_at``,
    and the event says so (``after``)."""
    listed = ctx.cache.get("sentinels")
    if listed is None:
        f = ctx.ws.layout.facts.name
        rows = _rows(ctx, f"SELECT rowid, id, domain, topic, content, superseded_by, CASE WHEN superseded_by = "
                          f"'{CLEANUP}' THEN max(created_at + {CLEANUP_AGE}, updated_at) ELSE updated_at END FROM {f} "
                          "WHERE superseded_by >= 'system:' AND superseded_by < 'system;'", [])
        listed = ctx.cache["sentinels"] = sorted(rows, key=lambda r: (r[6], r[0]), reverse=True)
    start = 0 if pos is None else len(listed) - pos + 1
    out: list[Group] = []
    for i in range(start, min(len(listed), start + n)):
        _key, fid, domain, topic, content, by, at = listed[i]
        unknown = by == CLEANUP
        summary = f"{_snippet(topic, content, domain)} — superseded by {by}" + (
            " at an unknown time, not before this (the product's cleanup records no time; it archives facts more "
            "than 30 days old)" if unknown else "")
        event = Event(at, by, "system", "fact", "superseded", (fid, by), summary, f"sentinel {by}", after=unknown)
        out.append((len(listed) - i, at, [event] if ctx.in_range(at) else []))
    return out


def policies(ctx: Context, pos: int | None, n: int) -> list[Group]:
    p = ctx.ws.layout.policies.name
    rows = _page(ctx, "id, domain, rule, required_role, created_at, updated_at", p, pos, n)
    out: list[Group] = []
    for key, pid, domain, rule, role, created, updated in rows:
        events = []
        if pid not in ctx.desk_made:
            actor, kind = ctx.who(None, role)
            what = f"[{one_line(domain, 40)}] {one_line(rule, 100)}"
            why = "advisory role " + role if role else ""
            if updated > created:
                events.append(Event(updated, actor, kind, "policy", "updated", (pid,), what, why))
            events.append(Event(created, actor, kind, "policy", "created", (pid,), what, why))
        out.append((key, max(created, updated), [e for e in events if ctx.in_range(e.at)]))
    return out


def conflicts(ctx: Context, pos: int | None, n: int) -> list[Group]:
    c = ctx.ws.layout.conflicts.name
    rows = _page(ctx, "id, fact_a_id, fact_b_id, conflict_type, resolution, resolved_at, created_at", c, pos, n)
    out: list[Group] = []
    for key, cid, a, b, ctype, resolution, resolved_at, created in rows:
        events = []
        if resolved_at is not None and resolved_at != created:
            events.append(Event(resolved_at, "product", "system", "conflict", "resolved", (cid, a, b),
                                f"{ctype} between {a} and {b}", f"{ctype}, {resolution}"))
        then = resolution if resolution and resolved_at in (None, created) else "open"  # as it was recorded
        events.append(Event(created, "product", "system", "conflict", "recorded", (cid, a, b),
                            f"{ctype} between {a} and {b}", f"{ctype}, {then}"))
        out.append((key, max(created, resolved_at or 0), [e for e in events if ctx.in_range(e.at)]))
    return out


def edges(ctx: Context, pos: int | None, n: int) -> list[Group]:
    e = ctx.ws.layout.edges.name
    rows = _page(ctx, "id, source_fact_id, target_fact_id, edge_type, weight, created_at", e, pos, n)
    authors = ctx.facts_named(r[2] for r in rows)
    out: list[Group] = []
    nobody = (None, None, None)
    who: dict[tuple[Any, Any], tuple[str, str]] = {}
    for key, eid, src, dst, etype, weight, at in rows:
        _created, agent, role = authors.get(src, nobody)
        actor_kind = who.get((agent, role))
        if actor_kind is None:
            actor_kind = who[agent, role] = ctx.who(agent, role)
        event = Event(at, *actor_kind, "edge", "created", (eid, src, dst), f"{etype} {src} → {dst}",
                      f"weight {weight:.2f}" if isinstance(weight, float) else "")
        out.append((key, at, ctx.kept([event])))
    return out


def notes(ctx: Context, pos: int | None, n: int) -> list[Group]:
    w = ctx.ws.layout.notes.name
    rows = _page(ctx, "agent_id, length(content), updated_at", w, pos, n)
    out: list[Group] = []
    for key, agent, length, at in rows:
        actor, kind = ctx.who(agent, None)
        event = Event(at, actor, kind, "note", "updated", (agent,), f"notes of {actor}: {length or 0:,} characters",
                      "the file keeps only the latest note")
        out.append((key, at, [event] if ctx.in_range(at) else []))
    return out


def receipts(ctx: Context, pos: int | None, n: int) -> list[Group]:
    if ctx.ws.desk_schema == 0:
        return []
    from memorydesk.store import receipt_blocks  # (numpy: only once receipts are asked for)

    with ctx.ws.read() as conn:
        rows = receipt_blocks.recent(conn.connection.driver_connection, pos, n)
    out: list[Group] = []
    for key, run, tier, status, version, source, at, user, assistant in rows:
        at = at or 0
        event = Event(at, source or "unknown adapter", "system", "receipt", status, (run, version),
                      f"{tier} {status} of version {version} in run {run} ({user} × {assistant})", "receipt stored")
        out.append((key, at, [event] if ctx.in_range(at) else []))
    return out


def desk(ctx: Context, pos: int | None, n: int) -> list[Group]:
    if ctx.ws.desk_schema == 0:
        return []
    rows = _page(ctx, "entity, entity_id, before_id, after_id, action, actor, reason, at, detail, undo_of, undone_by",
                 "memdesk_history", pos, n, key="id")
    out: list[Group] = []
    for hid, entity, eid, before, after, act, actor, reason, at, detail, undo_of, undone_by in rows:
        ids = tuple(dict.fromkeys(i for i in (eid, before, after) if i))
        event = Event(at, actor, "reviewer", entity, act, ids, desk_summary(entity, act, eid, before, after, undo_of,
                                                                             detail),
                      reason or "", hid, undone_by, detail or "{}")
        out.append((hid, at, [event] if ctx.in_range(at) else []))
    return out


#: name → (the kinds it yields, the source); the merge takes the newest head first
SOURCES: dict[str, tuple[frozenset[str] | None, Source]] = {
    "desk": (None, desk), "facts": (frozenset({"fact"}), facts), "sentinels": (frozenset({"fact"}), sentinels),
    "policies": (frozenset({"policy"}), policies), "conflicts": (frozenset({"conflict"}), conflicts),
    "edges": (frozenset({"edge"}), edges), "notes": (frozenset({"note"}), notes),
    "receipts": (frozenset({"receipt"}), receipts),
}


def desk_summary(entity: str, act: str, eid: str, before: str | None, after: str | None, undo_of: int | None,
                 detail: str | None) -> str:
    if act in ("undo", "redo"):
        return f"{act} of entry {undo_of} ({entity} {eid})"
    if entity == "forget":  # a forget receipt: its own one-line verdict (content-free)
        try:
            return f"forget check {eid}: {json.loads(detail or '{}')['receipt']['summary']}"
        except (ValueError, KeyError, TypeError):
            return f"forget check {eid}"
    if before and after and before != after:
        return f"{act} {entity} {before} → {after}"
    try:
        count = len(json.loads(detail or "{}").get("ids") or [])
    except (ValueError, AttributeError):
        count = 0
    if entity == "fact" and act == "embed":
        return f"vectors written for {count:,} fact{'s' if count != 1 else ''} that had none"
    return f"{act} {entity} {eid}" + (f" ({count} rows)" if count > 1 else "")


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


__all__ = ["Context", "Event", "Group", "SOURCES", "desk_fact_ids"]
