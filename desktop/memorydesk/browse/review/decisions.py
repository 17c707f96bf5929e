"""People's decisions on findings (``memdesk_review_decisions``), applied to a scan's findings.

A dismissal (or a losing correction marked reviewed) holds while the item is as it was
when it was decided (same fingerprint); a quarantine holds while the item is
quarantined (a fact soft-deleted as quarantined, a policy deactivated by it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlalchemy import select

from memorydesk.core.review.finding import Finding
from memorydesk.store import Workspace
from memorydesk.store.ours import DeskReviewDecision

DECISIONS = DeskReviewDecision.__table__


@dataclass(frozen=True)
class Decision:
    id: str
    finding_key: str
    kind: str
    item_kind: str
    item_id: str
    fingerprint: str
    decision: str
    actor: str
    reason: str
    at: int


def has_table(ws: Workspace) -> bool:
    with ws.read() as conn:
        return conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = ?",
                                    (DECISIONS.name,)).first() is not None


def read_decisions(ws: Workspace) -> list[Decision]:
    if not has_table(ws):
        return []
    with ws.read() as conn:
        rows = conn.execute(select(DECISIONS).order_by(DECISIONS.c.at)).all()
    return [Decision(r.id, r.finding_key, r.kind, r.item_kind, r.item_id, r.fingerprint, r.decision, r.actor,
                     r.reason, r.at) for r in rows]


def apply_states(findings: list[Finding], decisions: list[Decision]) -> list[Finding]:
    """The findings with each one's ``state`` from the decisions that still hold: a new list,
    where a finding whose state a decision sets is a copy. The scan's own findings are never
    changed, so a kept scan stays what the scan found and a decision undone since (or made
    in another window) is read afresh each time."""
    by_key = {d.finding_key: d for d in decisions if d.decision in ("dismissed", "reviewed")}
    quarantined = {(d.item_kind, d.item_id) for d in decisions if d.decision == "quarantined"}
    out: list[Finding] = []
    for f in findings:
        d = by_key.get(f.key)
        if (f.item_kind, f.item_id) in quarantined or f.state == "quarantined":
            out.append(f if f.state == "quarantined" else replace(f, state="quarantined"))
        elif d is not None and d.fingerprint == f.fingerprint:
            out.append(replace(f, state="dismissed", evidence={
                **f.evidence, "decision": {"by": d.actor, "reason": d.reason, "at": d.at, "as": d.decision}}))
        else:
            out.append(f)
    return out
