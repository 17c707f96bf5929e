"""Receipts inside a workspace: ``memdesk_receipts``, ingested all or nothing, once.

Only the contract's fields are stored; ``x-`` extension fields are dropped on the
way in, so nothing that could carry memory content reaches the file. Ingest is
idempotent: a receipt already stored — the same ``receiptId``, or, without one, the
same fields — is skipped and counted (so is a repeat within the input).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Connection, select

from memorydesk.core.receipts import Receipt, format_utc, parse_utc
from memorydesk.store import Workspace, files
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
    return _insert_rows(conn, [_row(r) for r in receipts])


def _insert_rows(conn: Connection, rows: list[tuple]) -> int:
    for start in range(0, len(rows), BATCH):
        conn.exec_driver_sql(INSERT, rows[start:start + BATCH])
    return len(rows)


ROW_BYTES = 600  # about what one stored receipt takes, with its index entries, twice (log and file)
RECEIPT_ID_INDEX = (f"CREATE INDEX IF NOT EXISTS idx_memdesk_receipts_receipt_id ON {TABLE.name} (receipt_id) "
                    "WHERE receipt_id IS NOT NULL")


@dataclass(frozen=True)
class Ingested:
    stored: int
    skipped: int  # already in the workspace (or repeated in the input)


def ingest(ws: Workspace, receipts: Iterable[Receipt]) -> Ingested:
    """Store every receipt not stored yet, in one transaction; on any failure none is stored."""
    receipts = list(receipts)
    if not receipts:
        return Ingested(0, 0)
    files.require_free(ws.path.parent, len(receipts) * ROW_BYTES, f"{len(receipts):,} receipts")

    def work(conn: Connection) -> Ingested:
        fresh = new_rows(conn, receipts)
        _insert_rows(conn, fresh)
        return Ingested(len(fresh), len(receipts) - len(fresh))

    return with_retry(ws, work)


def new_rows(conn: Connection, receipts: list[Receipt]) -> list[tuple]:
    """The rows of the receipts neither stored already nor repeated earlier in ``receipts``."""
    conn.exec_driver_sql(RECEIPT_ID_INDEX)
    stored = conn.exec_driver_sql(f"SELECT 1 FROM {TABLE.name} LIMIT 1").first() is not None
    seen_ids = _known(conn, "SELECT receipt_id FROM {t} WHERE receipt_id IN (SELECT value FROM json_each(?))",
                      {r.receipt_id for r in receipts if r.receipt_id is not None} if stored else set(),
                      lambda row: row[0])
    seen_rows = _known(conn, f"SELECT {', '.join(COLUMNS)} FROM {{t}} WHERE receipt_id IS NULL AND run_id IN "
                             "(SELECT value FROM json_each(?))",
                       {r.run_id for r in receipts if r.receipt_id is None} if stored else set(), tuple)
    fresh = []
    for r in receipts:
        row = _row(r)
        key = row[0] if row[0] is not None else row
        seen = seen_ids if row[0] is not None else seen_rows
        if key in seen:
            continue
        seen.add(key)
        fresh.append(row)
    return fresh


def _known(conn: Connection, sql: str, keys: set[str], shape) -> set:
    found: set = set()
    keys_list = list(keys)
    for start in range(0, len(keys_list), BATCH):
        chunk = json.dumps(keys_list[start:start + BATCH])
        found.update(shape(row) for row in conn.exec_driver_sql(sql.format(t=TABLE.name), (chunk,)))
    return found


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
