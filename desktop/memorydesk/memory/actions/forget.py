"""A forget receipt kept with the history (``browse.forget.check`` makes it): one ``memdesk_history``
row of entity ``forget``, written through the memory layer in one transaction; no product
table is touched. The row's ``detail`` is the receipt — content-free (ids, paths, verdicts,
times, the file's data stamp) — and its ``entity_id`` the receipt's id, so a later purge of the
facts it names does not erase it (a purge erases rows that name the purged facts).

A receipt records a check; it changes no memory, so there is nothing to undo: Undo and Redo
pass it by (``history.record.RECORDS``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import MemoryDeskError
from memorydesk.core.forget.receipt import Receipt
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.history.record import HISTORY, ChangeResult, perform
from memorydesk.store import Workspace
from memorydesk.store.retry import with_retry

ENTITY = "forget"


@dataclass(frozen=True)
class KeepForgetReceipt(ReviewerAction):
    """A forget check's receipt kept in the history. Stores the receipt; a record, not a change:
    it cannot be undone (nothing in memory changed)."""

    entity, name = ENTITY, "check"
    undoable = False
    receipt: dict[str, Any]

    def forward(self, ws: Workspace, conn: Connection) -> None:
        pass  # the history row written with it is the receipt


def keep_receipt(ws: Workspace, actor: str, receipt: Receipt, reason: str = "") -> ChangeResult:
    """Keep ``receipt`` with the history (one transaction; the first write adds the desk's tables)."""
    if receipt.workspace_id != ws.workspace_id:
        raise MemoryDeskError(f"this receipt was made on workspace {receipt.workspace_id}, not on {ws.path.name}")

    def work(conn: Connection) -> ChangeResult:
        hid = perform(ws, conn, KeepForgetReceipt(receipt.to_json()), entity_id=receipt.receipt_id,
                      actor=actor, reason=reason.strip() or "forget check")
        return ChangeResult(ENTITY, [receipt.receipt_id], [hid],
                            f"forget receipt {receipt.receipt_id} kept in the history")

    return with_retry(ws, work)


def kept_receipts(ws: Workspace, conn: Connection, ids: list[str] | None = None) -> list[Receipt]:
    """The receipts kept in the history, oldest first (only those naming one of ``ids``, when given)."""
    if not ws.desk_schema:
        return []
    out = []
    wanted = set(ids or ())
    rows = conn.execute(select(HISTORY.c.detail).where(HISTORY.c.entity == ENTITY).order_by(HISTORY.c.id))
    for (detail,) in rows:
        try:
            receipt = Receipt.from_json(json.loads(detail)["receipt"])
        except (ValueError, KeyError, TypeError):
            continue
        subject = receipt.subject
        named = set(receipt.versions) | set(subject.get("fact_ids", ())) | set(subject.get("item_ids", ()))
        if not wanted or wanted & named:
            out.append(receipt)
    return out
