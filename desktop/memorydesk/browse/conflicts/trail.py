"""The trail of one conflict: everything support staff need on one screen (no Qt, no writes).

``conflict_trail(ws, conflict_id)`` returns a ``Trail`` (``browse.conflicts.trail_types``; its
``to_json()`` is the export's shape):

- ``conflict``: the row (and, for an open pair the product flagged again and again,
  every row of the pair), its state, the person's decisions on it;
- ``a``, ``b``: the two facts in full, with provenance (author agent and role, veracity
  read as the product reads it and its weight, confidence, times, mentions, source
  observations, embedding) and whether each is active, superseded, deleted, missing or
  purged;
- ``decision``: the product's rule recomputed on the facts as they are now, with its
  arithmetic, and whether the recorded winner is still what it gives (and why not);
- ``chain_a``, ``chain_b``: each fact's supersession chain forward (what replaced it, up to the
  version in force) and back (what it replaced), every step with its time and who made
  it: a person named in our history (its moves), else the one rule of ``core.supersession``
  the History and *as of* use too — an agent (its write), ``system:*`` (a cleanup at an
  unknown time, not before the bound its rule gives), ``human:*``, or nobody the file names;
  and, from the desk's moves, the supersessions of either fact (or into it) that a person
  took back since — a restored loser was still superseded by the winner until then;
- ``history``: what people did to this conflict in the desk;
- ``related``: the other conflicts of the same topic and of either fact.
"""

from __future__ import annotations

import json
from dataclasses import replace

from sqlalchemy import Connection, select

from memorydesk.browse.conflicts import listing
from memorydesk.browse.conflicts.chains import TrailReader, lapsed, missing_state, newer, older
from memorydesk.browse.conflicts.trail_types import (
    Decision,
    DeskStep,
    RelatedLine,
    Restore,
    RowRef,
    SideStrength,
    Trail,
    TrailChain,
    TrailConflict,
    TrailFact,
)
from memorydesk.browse.facts import fact_state
from memorydesk.core.errors import StaleEdit
from memorydesk.core.product.conflict_rule import Side, decide
from memorydesk.core.product.vocab import parse_agent_role, parse_memory_type, parse_veracity, veracity_weight
from memorydesk.memory.actions.restore import restore_plan
from memorydesk.store.workspace import Workspace

RELATED_LIMIT = 60
TOPIC_FACTS_LIMIT = 2_000


def _json_list(text: str | None) -> list[str]:
    try:
        value = json.loads(text) if text else []
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def _fact(ctx: TrailReader, fact_id: str, key: int | None) -> TrailFact:
    row = ctx.fact(fact_id)
    if row is None:
        state = missing_state(ctx, fact_id)
        return TrailFact(fact_id, False, state, purged=ctx.purged[fact_id] if state == "purged" else None)
    m = row._mapping
    emb = m.get("embedding")
    name, agent_role = ctx.agent(m["authored_by_agent_id"])
    role = parse_agent_role(m["authored_by_role"])
    weight = veracity_weight(m["veracity"])
    return TrailFact(
        fact_id, True, fact_state(m["superseded_by"], m["valid_until"]), key=key, domain=m["domain"],
        topic=m["topic"], content=m["content"], memory_type=m["memory_type"],
        memory_type_read_as=parse_memory_type(m["memory_type"]).value, veracity=m["veracity"],
        veracity_read_as=parse_veracity(m["veracity"]).value, weight=weight, confidence=float(m["confidence"]),
        strength=float(m["confidence"]) * weight, created_at=m["created_at"], updated_at=m["updated_at"],
        mention_count=m["mention_count"], recall_count=m["recall_count"],
        source_observation_ids=tuple(_json_list(m["source_observation_ids"])),
        embedding_bytes=len(emb) if emb is not None else None, agent_id=m["authored_by_agent_id"],
        agent_name=name, agent_known=name is not None, role=m["authored_by_role"],
        role_read_as=role.value if role else None, agent_role_now=agent_role, superseded_by=m["superseded_by"],
        valid_until=m["valid_until"])


# --- the decision ---------------------------------------------------------------------------


def _decision(conflict: TrailConflict, a: TrailFact, b: TrailFact) -> Decision:
    recorded = conflict.recorded_winner
    if not (a.exists and b.exists):
        return Decision(recorded, note="one of the facts no longer exists: the rule cannot be applied")
    sa = Side(a.confidence, a.veracity, a.created_at, a.key or 0)
    sb = Side(b.confidence, b.veracity, b.created_at, b.key or 0)
    d = decide(sa, sb)
    winner = a.id if d.winner == "a" else b.id
    sides = {name: SideStrength(side.confidence, side.weight, side.strength, side.veracity_read_as)
             for name, side in (("a", sa), ("b", sb))}
    rule = Decision(recorded, winner, None, d.tie, a.id if d.newer == "a" else b.id, tuple(d.lines()), sides["a"],
                    sides["b"])
    if recorded is None:
        return replace(rule, note="the product leaves cross-agent conflicts open; applied to the facts as they are "
                                  f"now, its rule would keep {'A' if d.winner == 'a' else 'B'}")
    if recorded == winner:
        return replace(rule, matches=True)
    decided = conflict.resolved_at or conflict.created_at
    later = [name for name, f in (("A", a), ("B", b)) if (f.updated_at or 0) > decided]
    why = (f"{' and '.join(later)} changed after the decision (updated since): a re-mention raises "
           "confidence, and an edit in the product's dialog changes confidence in place"
           if later else "the facts' confidence or veracity no longer give the recorded winner")
    return replace(rule, matches=False, note=f"the recorded winner is not what the rule gives today: {why}")


def _restore(ws: Workspace, conn: Connection, conflict: TrailConflict, a: TrailFact, b: TrailFact) -> Restore:
    """Whether Restore Loser can bring fact A back, and what it will do (whatever happened to
    the winner: superseded since, deleted, or gone from the file)."""
    if conflict.recorded_winner is None:
        return Restore(False, "An open disagreement has no loser to restore.")
    if not a.exists:
        return Restore(False, "The loser (A) is no longer in the file, so it cannot be restored.")
    if a.superseded_by != conflict.recorded_winner:
        now = "active" if a.superseded_by is None else f"superseded by {a.superseded_by}"
        return Restore(False, f"A is no longer superseded by the winner (it is {now}): nothing of "
                              "this conflict is left to restore.")
    try:
        plan = restore_plan(conn, ws.layout, a.id, name="A", replaced_name="B" if b.id == a.superseded_by else "")
    except StaleEdit as exc:
        return Restore(False, str(exc))
    return Restore(True, plan.says, plan.replaces)


# --- the trail -----------------------------------------------------------------------------


def _conflict(ws: Workspace, conn: Connection, conflict_id: str) -> TrailConflict | None:
    c = ws.layout.conflicts
    row = conn.execute(select(listing.ROWID.label("key"), c).where(c.c.id == conflict_id)).first()
    if row is None:
        return None
    rows = [row]
    if row.conflict_type == listing.CROSS:
        a, b = listing.pair_key(row.fact_a_id, row.fact_b_id)
        found = conn.execute(select(listing.ROWID.label("key"), c).where(
            c.c.fact_a_id.in_([a, b]), c.c.conflict_type == listing.CROSS)).all()
        rows = sorted((r for r in found if listing.pair_key(r.fact_a_id, r.fact_b_id) == (a, b)),
                      key=lambda r: r.key, reverse=True) or [row]
    winner = row.winning_fact_id if row.winning_fact_id is not None else (
        row.fact_b_id if row.resolution is not None else None)
    return TrailConflict(row.id, int(row.key), row.conflict_type, row.resolution, winner, row.fact_a_id,
                         row.fact_b_id, row.created_at, row.resolved_at, row.workspace_id,
                         tuple(RowRef(r.id, r.created_at, int(r.key)) for r in rows),
                         min(r.created_at for r in rows), max(r.created_at for r in rows))


def _related(ws: Workspace, conn: Connection, conflict: TrailConflict,
             facts: tuple[TrailFact, TrailFact]) -> tuple[list[int], dict[int, list[str]]]:
    """Keys of the lines of the same topic or naming either fact (newest first), and why.

    Found through indexes only (no pass over the conflict table): rows whose fact A is a
    fact of the topic, is A or B, or was superseded by A or B. That is every row the
    product writes (both facts of a row share its topic); a row naming A or B only as its
    fact B, with a fact A of another topic or deleted, is found by the list's "touches
    fact" filter instead."""
    c, f = ws.layout.conflicts, ws.layout.facts
    own = {r.id for r in conflict.rows}
    named = {conflict.fact_a: "fact A", conflict.fact_b: "fact B"}
    topics = {(x.domain, x.topic) for x in facts if x.exists}
    ids = set(named)
    for _domain, topic in topics:
        ids.update(conn.execute(select(f.c.id).where(f.c.topic == topic).limit(TOPIC_FACTS_LIMIT)).scalars())
    ids.update(conn.execute(select(f.c.id).where(f.c.superseded_by.in_(list(named)))).scalars())
    found = []
    wanted = sorted(ids)
    for start in range(0, len(wanted), 500):
        found.extend(conn.execute(select(listing.ROWID.label("key"), c.c.id, c.c.conflict_type, c.c.fact_a_id,
                                         c.c.fact_b_id).where(c.c.fact_a_id.in_(wanted[start:start + 500]))).all())
    found.sort(key=lambda r: r.key, reverse=True)
    keys: list[int] = []
    why: dict[int, list[str]] = {}
    seen: set[tuple[str, str]] = set()
    for r in found:
        if r.id in own:
            continue
        if r.conflict_type == listing.CROSS:
            pair = listing.pair_key(r.fact_a_id, r.fact_b_id)
            if pair in seen:
                continue
            seen.add(pair)
        keys.append(int(r.key))
        why[int(r.key)] = [named[x] for x in (r.fact_a_id, r.fact_b_id) if x in named] or ["same topic"]
        if len(keys) >= RELATED_LIMIT:
            break
    return keys, why


def conflict_trail(ws: Workspace, conflict_id: str) -> Trail | None:
    """The whole trail of one conflict (see the module docstring), or None when the row is gone."""
    with ws.read() as conn:
        conflict = _conflict(ws, conn, conflict_id)
        if conflict is None:
            return None
        ctx = TrailReader(ws, conn)
        keys = dict(conn.execute(select(ws.layout.facts.c.id, listing.ROWID).where(
            ws.layout.facts.c.id.in_([conflict.fact_a, conflict.fact_b]))).all())
        a, b = (_fact(ctx, fid, int(keys[fid]) if fid in keys else None) for fid in (conflict.fact_a, conflict.fact_b))
        chains = []
        for side in (a, b):
            row = ctx.fact(side.id) if side.exists else None
            chains.append(TrailChain(tuple(newer(ctx, row)) if row is not None else (),
                                     tuple(older(ctx, side.id)) if side.exists else (), lapsed(ctx, side.id)))
        desk = []
        for r in conflict.rows:
            desk.extend(h for h in ctx.history_of(r.id) if h["entity"] == "conflict")
        reviews = listing.Reviews(listing.read_reviews(conn)).of(conflict.type, conflict.id, conflict.fact_a,
                                                                  conflict.fact_b)
        related_keys, why = _related(ws, conn, conflict, (a, b))
        restore = _restore(ws, conn, conflict, a, b)
    related = tuple(RelatedLine(line.id, tuple(line.ids), line.type, line.state, line.fact_a, line.fact_b, line.topic,
                                line.domain, line.last_at, line.count, tuple(why[line.key]), line.dangling)
                    for line in listing.lines_for_keys(ws, related_keys) if line is not None)
    settled = [r for r in reviews if r.decision in listing.SETTLING]
    state = conflict.resolution if conflict.resolution is not None else ("reviewed" if settled else "open")
    conflict = replace(conflict, state=state)
    desk.sort(key=lambda h: h["id"], reverse=True)
    return Trail(conflict, a, b, _decision(conflict, a, b), chains[0], chains[1], tuple(reviews), restore,
                 tuple(DeskStep(h["id"], h["at"], h["action"], h["actor"], h["reason"], h["undone_by"] is not None)
                       for h in desk), related)


__all__ = ["conflict_trail"]
