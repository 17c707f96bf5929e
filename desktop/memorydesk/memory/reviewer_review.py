"""What a person does with a review finding (the Review tab), each one transaction with one
history row, undone by Edit ▸ Undo (notes and working-memory items: ``reviewer_items``):

- **quarantine** a fact (soft-deleted with the sentinel ``human:quarantined``) or a policy
  (deactivated), with the finding as the reason; **release** puts it back;
- **merge** a duplicate cluster: every other member is superseded by the keeper the
  person picked (``superseded_by`` = keeper, as the product does); nothing new is made.
  Superseding the loser of a losing correction by the newer fact is the same step;
- **dismiss** a finding (or mark a losing correction **reviewed**): a row in
  ``memdesk_review_decisions`` that holds until the item changes (its fingerprint).

Purging a secret or personal data is the existing purge (``Reviewer.purge_facts``).
Steps check that rows are as the previous step left them (``StaleEdit`` otherwise).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.memory.history import ChangeResult, action, perform
from memorydesk.memory.reviewer_steps import set_superseded
from memorydesk.memory.rows import new_id, now_s
from memorydesk.store import Workspace
from memorydesk.store.ours import DeskReviewDecision
from memorydesk.store.retry import with_retry

QUARANTINED = "human:quarantined"
DECISIONS = DeskReviewDecision.__table__


def _touched(d: dict[str, Any]) -> dict[str, list[str]]:
    return {"review": [d.get("finding_key", "")]}


def _add_decision(conn: Connection, d: dict[str, Any]) -> None:
    row = d["decision"]
    if conn.execute(select(DECISIONS.c.id).where(DECISIONS.c.id == row["id"])).first() is None:
        conn.execute(DECISIONS.insert().values(**row))


def _drop_decision(conn: Connection, d: dict[str, Any]) -> None:
    conn.execute(DECISIONS.delete().where(DECISIONS.c.id == d["decision"]["id"]))


# -- quarantine and release ------------------------------------------------------------------------
def _fact_quarantine(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    set_superseded(ws, conn, d["id"], None, QUARANTINED)
    _add_decision(conn, d)


def _fact_release(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    set_superseded(ws, conn, d["id"], QUARANTINED, None)
    _drop_decision(conn, d)


action("fact", "quarantine", inverse_of=_fact_release, touched=_touched)(_fact_quarantine)
action("fact", "release", inverse_of=_fact_quarantine, touched=_touched)(_fact_release)


def _policy_active(ws: Workspace, conn: Connection, policy_id: str, expect: int, value: int) -> None:
    policies = ws.layout.policies
    row = conn.execute(select(policies.c.active).where(policies.c.id == policy_id)).first()
    if row is None:
        raise StaleEdit(f"policy {policy_id} no longer exists")
    if int(row.active or 0) != expect:
        raise StaleEdit(f"policy {policy_id} changed since; nothing was changed")
    conn.execute(policies.update().where(policies.c.id == policy_id).values(active=value))


def _policy_quarantine(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    _policy_active(ws, conn, d["id"], 1, 0)
    _add_decision(conn, d)


def _policy_release(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    _policy_active(ws, conn, d["id"], 0, 1)
    _drop_decision(conn, d)


action("policy", "quarantine", inverse_of=_policy_release, touched=_touched)(_policy_quarantine)
action("policy", "release", inverse_of=_policy_quarantine, touched=_touched)(_policy_release)


# -- merge (and supersede the loser) ---------------------------------------------------------------
def _merge(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    for other in d["others"]:
        set_superseded(ws, conn, other, None, d["keeper"])


def _unmerge(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    for other in d["others"]:
        set_superseded(ws, conn, other, d["keeper"], None)


action("fact", "merge", inverse_of=_unmerge, touched=_touched)(_merge)


# -- dismiss ---------------------------------------------------------------------------------------
def _dismiss(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    _add_decision(conn, d)


def _undismiss(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    _drop_decision(conn, d)


action("review", "dismiss", inverse_of=_undismiss, touched=_touched)(_dismiss)


# -- the calls the Review tab makes ----------------------------------------------------------------
def _decision(actor: str, reason: str, finding: dict[str, Any], decision: str) -> dict[str, Any]:
    return {"id": new_id(), "finding_key": finding["key"], "kind": finding["kind"], "item_kind": finding["item_kind"],
            "item_id": finding["item_id"], "fingerprint": finding.get("fingerprint", ""), "decision": decision,
            "actor": actor, "reason": reason, "at": now_s()}


def _needs_reason(reason: str) -> str:
    if not reason.strip():
        raise MemoryDeskError("give a reason: it is kept in the history with the change")
    return reason.strip()


def quarantine(ws: Workspace, actor: str, finding: dict[str, Any], reason: str) -> ChangeResult:
    """Soft-delete the finding's fact, or deactivate its policy; the finding is the reason."""
    reason = _needs_reason(reason)
    kind, item = finding["item_kind"], finding["item_id"]
    if kind in ("note", "working_item"):
        from memorydesk.memory import reviewer_items  # it builds on this module's decision rows

        return reviewer_items.quarantine(ws, actor, finding, reason)
    if kind not in ("fact", "policy"):
        raise MemoryDeskError(f"a {kind.replace('_', ' ')} cannot be quarantined")

    def work(conn: Connection) -> ChangeResult:
        detail = {"id": item, "finding_key": finding["key"], "finding": finding.get("title", ""),
                  "decision": _decision(actor, reason, finding, "quarantined")}
        hid = perform(ws, conn, f"{kind}.quarantine", entity_id=item, actor=actor, reason=reason, detail=detail)
        return ChangeResult(kind, [item], [hid], f"{kind} quarantined", {"review": [finding["key"]]})

    return with_retry(ws, work)


def release(ws: Workspace, actor: str, item_kind: str, item_id: str, reason: str) -> ChangeResult:
    """Put a quarantined fact, policy, note or working-memory item back."""
    reason = _needs_reason(reason)
    if item_kind in ("note", "working_item"):
        from memorydesk.memory import reviewer_items

        return reviewer_items.release(ws, actor, item_kind, item_id, reason)

    def work(conn: Connection) -> ChangeResult:
        row = conn.execute(select(DECISIONS).where(DECISIONS.c.item_kind == item_kind, DECISIONS.c.item_id == item_id,
                                                   DECISIONS.c.decision == "quarantined")).first()
        if row is None:
            raise StaleEdit(f"{item_kind} {item_id} is not quarantined")
        detail = {"id": item_id, "finding_key": row.finding_key, "decision": dict(row._mapping)}
        hid = perform(ws, conn, f"{item_kind}.release", entity_id=item_id, actor=actor, reason=reason, detail=detail)
        return ChangeResult(item_kind, [item_id], [hid], f"{item_kind} released", {"review": [row.finding_key]})

    return with_retry(ws, work)


def merge(ws: Workspace, actor: str, keeper: str, others: Iterable[str], reason: str,
          finding_key: str = "") -> ChangeResult:
    """Supersede every fact in ``others`` by ``keeper`` (a duplicate cluster's merge, or the loser of a
    losing correction superseded by the newer fact)."""
    reason = _needs_reason(reason)
    others = [o for o in dict.fromkeys(others) if o != keeper]
    if not others:
        raise MemoryDeskError("pick a keeper and at least one other fact")

    def work(conn: Connection) -> ChangeResult:
        detail = {"keeper": keeper, "others": others, "finding_key": finding_key}
        hid = perform(ws, conn, "fact.merge", entity_id=keeper, actor=actor, reason=reason, detail=detail)
        return ChangeResult("fact", [keeper, *others], [hid], f"{len(others)} fact(s) superseded by the keeper",
                            {"review": [finding_key]})

    return with_retry(ws, work)


def dismiss(ws: Workspace, actor: str, finding: dict[str, Any], reason: str, *, reviewed: bool = False) -> ChangeResult:
    """Keep the finding out of the open queue until its item changes."""
    reason = _needs_reason(reason)

    def work(conn: Connection) -> ChangeResult:
        detail = {"finding_key": finding["key"], "decision": _decision(actor, reason, finding,
                                                                        "reviewed" if reviewed else "dismissed")}
        hid = perform(ws, conn, "review.dismiss", entity_id=finding["key"], actor=actor, reason=reason, detail=detail)
        return ChangeResult("review", [finding["key"]], [hid], "marked reviewed" if reviewed else "finding dismissed")

    return with_retry(ws, work)
