"""Receipts inside a workspace: ``memdesk_receipts``, ingested all or nothing.

Only the contract's fields are stored; ``x-`` extension fields are dropped on the
way in, so nothing that could carry memory content reaches the file.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, select

from memorydesk.core.receipts import Receipt, format_utc, parse_utc
from memorydesk.store import Workspace
from memorydesk.store.ours import DeskReceipt
from memorydesk.store.retry import with_retry

TABLE = DeskReceipt.__table__
BATCH = 20_000


COLUMNS = ("receipt_id", "run_id", "user_scope", "assistant_scope", "tier", "status", "version", "source_version",
           "at_utc", "source_present", "waiting_until", "expected_version", "depends_on_version",
           "outcome_receipt", "canary")
INSERT = f"INSERT INTO {TABLE.name} ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def _row(r: Receipt) -> tuple:
    return (r.receipt_id, r.run_id, r.user_scope, r.assistant_scope, r.tier, r.status, r.version, r.source_version,
            format_utc(r.at_utc), _flag(r.source_present), format_utc(r.waiting_until) if r.waiting_until else None,
            r.expected_version, r.depends_on_version, r.outcome_receipt, _flag(r.canary))


def insert(conn: Connection, receipts: Iterable[Receipt]) -> int:
    """Add receipts inside the caller's transaction (a promotion writes its own this way)."""
    rows = [_row(r) for r in receipts]
    for start in range(0, len(rows), BATCH):
        conn.exec_driver_sql(INSERT, rows[start:start + BATCH])
    return len(rows)


def ingest(ws: Workspace, receipts: Iterable[Receipt]) -> int:
    """Store every receipt in one transaction; on any failure none is stored."""
    receipts = list(receipts)
    return with_retry(ws, lambda conn: insert(conn, receipts)) if receipts else 0


def load(ws: Workspace, run_id: str | None = None) -> list[Receipt]:
    query = select(TABLE).order_by(TABLE.c.id)
    if run_id is not None:
        query = query.where(TABLE.c.run_id == run_id)
    if ws.desk_schema < 1:
        return []
    with ws.read() as conn:
        rows = conn.execute(query).all()

    def flag(value: int | None) -> bool | None:
        return None if value is None else bool(value)

    return [Receipt(
        run_id=r.run_id, user_scope=r.user_scope, assistant_scope=r.assistant_scope, tier=r.tier, status=r.status,
        version=r.version, at_utc=parse_utc(r.at_utc, "atUtc"), source_version=r.source_version,
        source_present=flag(r.source_present),
        waiting_until=parse_utc(r.waiting_until, "waitingUntil") if r.waiting_until else None,
        expected_version=r.expected_version, depends_on_version=r.depends_on_version,
        outcome_receipt=r.outcome_receipt, receipt_id=r.receipt_id, canary=flag(r.canary),
    ) for r in rows]
