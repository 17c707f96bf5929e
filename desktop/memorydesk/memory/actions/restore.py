"""Bringing a fact back, whatever happened to what replaced it (no Qt).

A fact stops reaching agents when its ``superseded_by`` is set: by a person's delete
(``human:deleted``), by a sentinel (``system:harvest``), or by the id of the fact that
replaced it — which may since have been superseded in turn, deleted, or removed from
the file altogether (a *dangling* supersession: the product deletes rows for real).

Restoring it always works: the fact becomes active again, and the version now in force
of what replaced it — the end of that chain, when it is an active fact — is superseded
by the restored fact, so agents are not handed both. When the chain ends anywhere else
(a missing fact, a sentinel, a deleted version, a cycle) nothing else changes; nor when
that version also replaced other facts (a burst's winner: it stands for them too, as the
burst review keeps it).
``restore_plan`` says which, in a sentence, before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import Connection, func, select

from memorydesk.core.errors import StaleEdit
from memorydesk.memory.actions.facts import DELETED, RestoreFact
from memorydesk.memory.history.record import ChangeResult, perform
from memorydesk.memory.rows import fact_row, new_id
from memorydesk.store.layout import Layout
from memorydesk.store.retry import with_retry

if TYPE_CHECKING:
    from memorydesk.store import Workspace

CHAIN_LIMIT = 50


@dataclass(frozen=True)
class RestorePlan:
    fact: str
    was: str  # its superseded_by now
    replaces: str | None  # the active version in force that the restore supersedes, if any
    says: str  # what the restore will do, for a person

    @property
    def touched(self) -> list[str]:
        return [self.fact] + ([self.replaces] if self.replaces else [])


def _short(fact_id: str) -> str:
    return fact_id if ":" in fact_id else fact_id[:8] + "…"


def restore_plan(conn: Connection, layout: Layout, fact_id: str, *, name: str = "",
                 replaced_name: str = "") -> RestorePlan:
    """What restoring ``fact_id`` will do (``StaleEdit`` when it is active or gone).
    ``name`` / ``replaced_name`` label the fact and what replaced it in the sentence
    (``A``, ``B``); ids otherwise."""
    row = fact_row(conn, layout, fact_id)
    if row is None:
        raise StaleEdit(f"fact {fact_id} no longer exists, so it cannot be restored")
    was = row.superseded_by
    label = name or f"fact {_short(fact_id)}"
    if was is None:
        raise StaleEdit(f"{label} is already active; there is nothing to restore")
    back = f"{label} becomes active again"
    if was == DELETED:
        return RestorePlan(fact_id, was, None, f"{back} (it was deleted in the desk); nothing else changes.")
    if ":" in was:
        return RestorePlan(fact_id, was, None, f"{back} (it was set aside as {was}); nothing else changes.")
    other = replaced_name or f"fact {_short(was)}"
    seen, current, steps = {fact_id}, was, 0
    while True:
        nxt = fact_row(conn, layout, current)
        if nxt is None:
            tail = ("no longer exists (the product deleted it)" if current == was
                    else f"leads to {_short(current)}, which no longer exists")
            return RestorePlan(fact_id, was, None, f"{back}. {other}, which replaced it, {tail}, so nothing "
                                                   "else changes.")
        if nxt.superseded_by is None:
            head = other if current == was else f"{_short(current)} — the version of {other} in force now —"
            others = _also_replaced(conn, layout, current, seen | {current})
            if others:  # it stands for them too (a burst): superseding it would take them all away
                return RestorePlan(fact_id, was, None, f"{back}; {head} stays active: it also replaced {others} "
                                                       "other fact(s), which restoring this one does not bring back.")
            return RestorePlan(fact_id, was, current, f"{back}, and {head} is superseded by it.")
        if nxt.superseded_by == DELETED or ":" in nxt.superseded_by:
            why = "was deleted in the desk" if nxt.superseded_by == DELETED else f"is set aside as {nxt.superseded_by}"
            where = other if current == was else f"{_short(current)}, the latest version of {other},"
            return RestorePlan(fact_id, was, None, f"{back}. {where} {why}, so nothing else changes.")
        seen.add(current)
        current, steps = nxt.superseded_by, steps + 1
        if current in seen or steps > CHAIN_LIMIT:
            return RestorePlan(fact_id, was, None, f"{back}. What replaced it is superseded in a cycle, so nothing "
                                                   "else changes.")


def _also_replaced(conn: Connection, layout: Layout, head: str, chain: set[str]) -> int:
    """How many facts outside the chain ``head`` replaced (and still replaces)."""
    f = layout.facts
    return int(conn.execute(select(func.count()).select_from(f).where(
        f.c.superseded_by == head, f.c.id.notin_(sorted(chain)))).scalar_one())


def restore_facts(ws: Workspace, actor: str, ids: Iterable[str], reason: str = "") -> ChangeResult:
    """Restore each fact (one history row each, one transaction); the message says what changed."""
    ids = list(dict.fromkeys(ids))

    def work(conn: Connection) -> ChangeResult:
        hids, touched, replaced = [], [], 0
        batch = new_id() if len(ids) > 1 else None  # one Undo takes them all back (memory.history.batches)
        for fid in ids:
            plan = restore_plan(conn, ws.layout, fid)
            hids.append(perform(ws, conn, RestoreFact(fid, None, plan.was, plan.replaces), entity_id=fid, actor=actor,
                                reason=reason, before_id=plan.replaces, batch=batch))
            touched.extend(plan.touched)
            replaced += plan.replaces is not None
        more = f"; {replaced} newer version(s) superseded by them" if replaced else ""
        return ChangeResult("fact", list(dict.fromkeys(touched)), hids, f"{len(ids)} fact(s) restored{more}",
                            {"domain": []})  # some domains' counts (which: not read)

    return with_retry(ws, work)
