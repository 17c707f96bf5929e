"""Where the history's events come from: one SQL source per kind of row that carries a time.

Each source reads its rows in the order they were written (rowid, or the history's id),
newest first, ``n`` at a time before a position, so pages of the merged history are read
lazily: nothing here sorts or loads every row (the product's tables have no index on
their times, and the desk adds none). The product writes rows as things happen, so the
order written is the order of their times; ``history`` merges the sources by time. A
*group* is one row's events (a fact's creation with the supersessions its write caused)
and is never cut in two by a page.

Times (CC_SCHEMA.md: unix seconds): a fact created at ``created_at``; a supersession when,
and by whom, the one rule of ``core.supersession`` says (the conflict trail and *as of* use
it too): the write of the newer fact (the superseding one, or the new fact that lost a
contradiction), a sentinel at the fact's ``updated_at`` — except ``system:cleanup``, which
the product writes without touching ``updated_at``: its time is unknown, shown as "after"
the earliest the product's rule allows —, else ``updated_at`` by nobody the file names;
policies, conflicts, edges and notes at their own columns; receipts at ``atUtc``; the
desk's own changes at their history row's time (``desk_rows``). What the product wrote is
told even after the desk changed it: a loser the desk restored was superseded by the
product's write before, and its history keeps that value (``DeskRecords``). The desk's own
supersessions (``human:`` sentinels, its moves) are left to its rows, which say who and why.
Sentinel supersessions come from the ``superseded_by`` index, newest first.
"""

from __future__ import annotations

import json
from typing import Any

from memorydesk.browse.history.desk_rows import DeskRecords, desk, desk_records
from memorydesk.browse.history.event import Context, Event, Group, Source, page, rows, snippet
from memorydesk.browse.history.set_aside import set_aside_of
from memorydesk.core.product.text import one_line
from memorydesk.core.review.shown import shown
from memorydesk.core.supersession import CLEANUP, SetAside


def _supersession(ctx: Context, fid: str, by: str, rule: SetAside, summary: str) -> Event:
    """A fact set aside, told by the one rule: who (the write's agent, a sentinel, nobody known), when, why."""
    if rule.kind == "agent" and rule.writer is not None:
        actor, kind = ctx.who(rule.writer.agent_id, rule.writer.role)
    elif rule.kind == "sentinel":
        actor, kind = by, "system"
    else:
        actor, kind = "unknown", "system"
    text = f"{summary} — superseded by {by}" + (" at an unknown time, not before this (the product's cleanup "
                                                  "records no time; it archives facts more than 30 days old)"
                                                  if by == CLEANUP else "")
    why = f"sentinel {by}" if rule.kind == "sentinel" else rule.why
    return Event(rule.at, actor, kind, "fact", "superseded", (fid, by), text, why, after=rule.after)


def facts(ctx: Context, pos: int | None, n: int) -> list[Group]:
    """Facts created, each with the supersessions its write caused (a newer fact's losers, or
    its own loss to an older fact) and (rarely) its own supersession at an unknown hand."""
    got = page(ctx, "id, domain, topic, content, authored_by_agent_id, authored_by_role, memory_type, veracity, "
                    "created_at, superseded_by", ctx.ws.layout.facts.name, pos, n)
    records: DeskRecords = ctx.desk
    losers = _losers(ctx, [r[1] for r in got])
    own = [(r[1], by) for r in got for by in records.product_values(r[1], r[10]) if ":" not in by]
    with ctx.ws.read() as conn:
        rules = set_aside_of(ctx.ws, conn, own + [(lid, w) for w, found in losers.items() for lid, *_r in found])
    groups: list[Group] = []
    for key, fid, domain, topic, content, agent, role, mtype, veracity, created, now_by in got:
        events: list[Event] = []
        text = snippet(topic, content, domain)
        if fid in records.redacted_by:  # the agent's words as the person's redaction left them: said so
            text += f" (redacted later by {records.redacted_by[fid]})"
        if fid not in records.made:
            actor, kind = ctx.who(agent, role)
            events.append(Event(created, actor, kind, "fact", "created", (fid,), text, "",
                                details=f"{mtype}, {veracity}" + (f", role {role}" if role and agent else "")))
        for lid, ldomain, ltopic, lcontent in losers.get(fid, []):
            rule = rules.get((lid, fid))
            if rule is not None and rule.writer is not None and rule.writer.id == fid:
                events.append(_supersession(ctx, lid, fid, rule, snippet(ltopic, lcontent, ldomain)))
        for by in records.product_values(fid, now_by):
            rule = rules.get((fid, by))
            if rule is not None and (rule.kind == "unknown" or (rule.writer is not None and rule.writer.id == fid)):
                events.append(_supersession(ctx, fid, by, rule, text))  # its own write lost, or no write names it
        groups.append((key, created, ctx.kept(events)))
    return groups


def _losers(ctx: Context, winners: list[str]) -> dict[str, list[tuple[str, str, str, str]]]:
    """For each fact, the facts the product pointed at it (now, or before the desk changed them):
    (id, domain, topic, content)."""
    records: DeskRecords = ctx.desk
    f = ctx.ws.layout.facts.name
    out: dict[str, list[tuple[str, str, str, str]]] = {}
    pointed: dict[str, list[tuple]] = {}  # the facts that point at each winner now, in table order: one statement
    if winners:
        marks = ",".join("?" * len(winners))
        for row in rows(ctx, f"SELECT id, domain, topic, content, superseded_by FROM {f} "
                             f"WHERE superseded_by IN ({marks}) ORDER BY rowid", winners):
            pointed.setdefault(row[4], []).append(row)
    for winner in winners:
        found = list(pointed.get(winner, ()))
        earlier = records.formerly(winner)
        if earlier:
            marks = ", ".join("?" * len(earlier))
            found += rows(ctx, f"SELECT id, domain, topic, content, superseded_by FROM {f} WHERE id IN ({marks}) "
                               "ORDER BY rowid", list(earlier))
        seen: set[str] = set()
        for fid, domain, topic, content, now in found:
            if fid in seen or winner not in records.product_values(fid, now) or records.left_to_the_desk(fid, winner):
                continue
            seen.add(fid)
            out.setdefault(winner, []).append((fid, domain, topic, content))
    return out


def sentinels(ctx: Context, pos: int | None, n: int) -> list[Group]:
    """Facts a ``system:`` sentinel set aside — now, or before the desk brought them back —,
    newest first (the index finds them), timed by the one rule: ``updated_at``, except
    ``system:cleanup``, which leaves ``updated_at`` as it was: its time is unknown, not before the
    fact was 31 days old (the product's rule) nor before ``updated_at``, and the event says so
    (``after``)."""
    listed = ctx.cache.get("sentinels")
    if listed is None:
        f = ctx.ws.layout.facts.name
        records: DeskRecords = ctx.desk
        found = rows(ctx, f"SELECT rowid, id, domain, topic, content, superseded_by FROM {f} "
                          "WHERE superseded_by >= 'system:' AND superseded_by < 'system;'", [])
        moved = [fid for fid, ms in records.moves.items() if any((m.before or "").startswith("system:") for m in ms)]
        for start in range(0, len(moved), 500):
            chunk = moved[start:start + 500]
            found += rows(ctx, f"SELECT rowid, id, domain, topic, content, superseded_by FROM {f} WHERE id IN "
                               f"({', '.join('?' * len(chunk))})", chunk)
        pairs = list(dict.fromkeys((r[1], by) for r in found for by in records.product_values(r[1], r[5])
                                   if by.startswith("system:")))
        with ctx.ws.read() as conn:
            rules = set_aside_of(ctx.ws, conn, pairs)
        info = {r[1]: r for r in found}
        listed = sorted(((rules[p].at, info[p[0]][0], p) for p in pairs if p in rules), reverse=True)
        listed = ctx.cache["sentinels"] = [(at, rowid, p, rules[p], info[p[0]]) for at, rowid, p in listed]
    start = 0 if pos is None else len(listed) - pos + 1
    out: list[Group] = []
    for i in range(start, min(len(listed), start + n)):
        at, _rowid, (fid, by), rule, row = listed[i]
        event = _supersession(ctx, fid, by, rule, snippet(row[3], row[4], row[2]))
        out.append((len(listed) - i, at, [event] if ctx.in_range(at) else []))
    return out


def policies(ctx: Context, pos: int | None, n: int) -> list[Group]:
    p = ctx.ws.layout.policies.name
    rows = page(ctx, "id, domain, rule, required_role, created_at, updated_at", p, pos, n)
    out: list[Group] = []
    for key, pid, domain, rule, role, created, updated in rows:
        events = []
        if pid not in ctx.desk.made:
            # the policy table records no author: its role is the role a policy asks of whoever applies it
            actor, kind = "unknown", "system"
            what = f"[{one_line(domain, 40)}] {one_line(shown(rule), 100)}"
            about = f"required role {role} (advisory)" if role else ""
            if updated > created:
                events.append(Event(updated, actor, kind, "policy", "updated", (pid,), what, "", details=about))
            events.append(Event(created, actor, kind, "policy", "created", (pid,), what, "", details=about))
        out.append((key, max(created, updated), [e for e in events if ctx.in_range(e.at)]))
    return out


def conflicts(ctx: Context, pos: int | None, n: int) -> list[Group]:
    c = ctx.ws.layout.conflicts.name
    rows = page(ctx, "id, fact_a_id, fact_b_id, conflict_type, resolution, resolved_at, created_at", c, pos, n)
    out: list[Group] = []
    for key, cid, a, b, ctype, resolution, resolved_at, created in rows:
        events = []
        if resolved_at is not None and resolved_at != created:
            events.append(Event(resolved_at, "product", "system", "conflict", "resolved", (cid, a, b),
                                f"{ctype} between {a} and {b}", "", details=f"{ctype}, {resolution}"))
        then = resolution if resolution and resolved_at in (None, created) else "open"  # as it was recorded
        events.append(Event(created, "product", "system", "conflict", "recorded", (cid, a, b),
                            f"{ctype} between {a} and {b}", "", details=f"{ctype}, {then}"))
        out.append((key, max(created, resolved_at or 0), [e for e in events if ctx.in_range(e.at)]))
    return out


def edges(ctx: Context, pos: int | None, n: int) -> list[Group]:
    got = page(ctx, "id, source_fact_id, target_fact_id, edge_type, weight, created_at", ctx.ws.layout.edges.name,
               pos, n)
    authors = ctx.facts_named(r[2] for r in got)  # the source fact's author (no join per edge)
    out: list[Group] = []
    nobody = (None, None, None)
    who: dict[tuple[Any, Any], tuple[str, str]] = {}
    for key, eid, src, dst, etype, weight, at in got:
        _created, agent, role = authors.get(src, nobody)
        actor_kind = who.get((agent, role))
        if actor_kind is None:
            actor_kind = who[agent, role] = ctx.who(agent, role)
        event = Event(at, *actor_kind, "edge", "created", (eid, src, dst), f"{etype} {src} → {dst}", "",
                      details=f"weight {weight:.2f}" if isinstance(weight, float) else "")
        out.append((key, at, ctx.kept([event])))
    return out


#: the note's text before a desk change, by the change's stored fields (``memory.actions``)
_NOTE_BEFORE = {"quarantine": "content", "redact": "before", "release": "current"}


def _written(ctx: Context, note_id: str, since: int, now: str) -> str:
    """The note's text as its agent wrote it (at ``since``): the text before the desk's first
    change to it since then (a quarantine empties it, a redaction rewrites it), else as it is."""
    if ctx.ws.desk_schema == 0:
        return now
    got = rows(ctx, "SELECT action, detail FROM memdesk_history WHERE entity = 'note' AND entity_id = ? AND at >= ? "
                    "ORDER BY id LIMIT 1", [note_id, since])
    if not got or got[0][0] not in _NOTE_BEFORE:
        return now
    try:
        before = json.loads(got[0][1] or "{}").get(_NOTE_BEFORE[got[0][0]])
    except (ValueError, AttributeError):
        return now
    return before if isinstance(before, str) else now


def notes(ctx: Context, pos: int | None, n: int) -> list[Group]:
    """A note as its agent last wrote it (the file keeps only that), at the agent's time: what the
    desk did to it since (a quarantine, a redaction) is the desk's own row, at its time."""
    w = ctx.ws.layout.notes.name
    got = page(ctx, "id, agent_id, content, updated_at", w, pos, n)
    out: list[Group] = []
    for key, nid, agent, content, at in got:
        actor, kind = ctx.who(agent, None)
        length = len(_written(ctx, nid, at, content or ""))
        # named by the note's id first, as the desk's own rows about the note are
        event = Event(at, actor, kind, "note", "updated", (nid, agent), f"notes of {actor}: {length:,} characters",
                      "", details="the file keeps only the latest note")
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
                      f"{tier} {status} of version {version} in run {run} ({user} × {assistant})", "",
                      details="receipt stored")
        out.append((key, at, [event] if ctx.in_range(at) else []))
    return out


#: name → (the kinds it yields, the source); the merge takes the newest head first
SOURCES: dict[str, tuple[frozenset[str] | None, Source]] = {
    "desk": (None, desk), "facts": (frozenset({"fact"}), facts), "sentinels": (frozenset({"fact"}), sentinels),
    "policies": (frozenset({"policy"}), policies), "conflicts": (frozenset({"conflict"}), conflicts),
    "edges": (frozenset({"edge"}), edges), "notes": (frozenset({"note"}), notes),
    "receipts": (frozenset({"receipt"}), receipts),
}

__all__ = ["SOURCES", "desk_records"]
