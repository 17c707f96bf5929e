"""The decision rows the review's actions write (``memdesk_review_decisions``): a quarantine,
a dismissal or a "reviewed" mark on a finding, held until its item changes (its fingerprint).
Shared by the actions on facts and policies (``memory.actions.review``) and on notes and
working-memory items (``memory.actions.items``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.inputs import check_reason
from memorydesk.memory.rows import new_id, now_s
from memorydesk.store.ours import DeskReviewDecision

DECISIONS = DeskReviewDecision.__table__


def add_decision(conn: Connection, row: dict[str, Any]) -> None:
    if conn.execute(select(DECISIONS.c.id).where(DECISIONS.c.id == row["id"])).first() is None:
        conn.execute(DECISIONS.insert().values(**row))


def drop_decision(conn: Connection, row: dict[str, Any]) -> None:
    conn.execute(DECISIONS.delete().where(DECISIONS.c.id == row["id"]))


def decision_row(actor: str, reason: str, finding: dict[str, Any], decision: str) -> dict[str, Any]:
    """A new decision on ``finding`` (its key, kind, item and fingerprint), by ``actor``."""
    return {"id": new_id(), "finding_key": finding["key"], "kind": finding["kind"], "item_kind": finding["item_kind"],
            "item_id": finding["item_id"], "fingerprint": finding.get("fingerprint", ""), "decision": decision,
            "actor": actor, "reason": reason, "at": now_s()}


def needs_reason(reason: str) -> str:
    """The reason, trimmed (``core.inputs.check_reason``: the one rule for every place that asks why)."""
    return check_reason(reason)
