"""Receipts inside a workspace: ``memdesk_receipts``, ingested all or nothing, once.

Only the contract's fields are stored, plus the line each receipt was read from (so
a workspace names a receipt in a health reason exactly as its file does); ``x-``
extension fields are dropped on the way in, so nothing that could carry memory
content reaches the file. Ingest is idempotent: a receipt already stored — the same
``receiptId``, or, without one, the same fields (its line aside) — is skipped and
counted (so is a repeat within the input).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from memorydesk.core.receipts import Receipt, format_utc, gc_paused
import numpy as np

from memorydesk.store import Workspace, files, receipt_blocks
from memorydesk.store.ours import RECEIPT_COLUMNS_SCHEMA, RECEIPT_LINES_SCHEMA, DeskReceipt
from memorydesk.store.retry import with_retry

TABLE = DeskReceipt.__table__
BATCH = 20_000


COLUMNS = ("receipt_id", "run_id", "user_scope", "assistant_scope", "tier", "status", "version", "source_version",
           "at_utc", "source_present", "waiting_until", "expected_version", "depends_on_version",
           "outcome_receipt", "canary", "line")
IDENTITY = COLUMNS[:-1]  # what makes two receipts without an id the same: every field but the line
INSERT = f"INSERT INTO {TABLE.name} ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
INSERT_WITH_ID = f"INSERT INTO {TABLE.name} (id, {', '.join(COLUMNS)}) VALUES (?, {', '.join('?' * len(COLUMNS))})"


def _utc(moment: datetime) -> str:
    """``format_utc`` for a receipt's time (aware and in UTC, as a Receipt's always are), faster."""
    text = moment.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else format_utc(moment)


def _row(r: Receipt) -> tuple:
    sp, canary, until = r.source_present, r.canary, r.waiting_until
    return (r.receipt_id, r.run_id, r.user_scope, r.assistant_scope, r.tier, r.status, r.version, r.source_version,
            _utc(r.at_utc), None if sp is None else int(sp), _utc(until) if until else None,
            r.expected_version, r.depends_on_version, r.outcome_receipt, None if canary is None else int(canary),
            r.line)


def insert(conn: Connection, receipts: Iterable[Receipt]) -> int:
    """Add receipts inside the caller's transaction (a promotion writes its own this way)."""
    receipts = list(receipts)
    return _store(conn, [_row(r) for r in receipts], receipts)


def _store(conn: Connection, rows: list[tuple], receipts: list[Receipt]) -> int:
    """``rows`` (``_row`` of each of ``receipts``) stored with the next ids, and their block."""
    if not rows:
        return 0
    first = int(conn.exec_driver_sql(f"SELECT ifnull(max(id), 0) FROM {TABLE.name}").scalar() or 0) + 1
    numbered = [(first + k, *row) for k, row in enumerate(rows)]
    for start in range(0, len(numbered), BATCH):
        conn.exec_driver_sql(INSERT_WITH_ID, numbered[start:start + BATCH])
    receipt_blocks.append(conn, first, [receipt_blocks.values_of(r) for r in receipts])
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
        rows, fresh = new_rows(conn, receipts)
        _store(conn, rows, fresh)
        return Ingested(len(fresh), len(receipts) - len(fresh))

    return with_retry(ws, work)


def new_rows(conn: Connection, receipts: list[Receipt]) -> tuple[list[tuple], list[Receipt]]:
    """The rows of the receipts neither stored already nor repeated earlier in ``receipts``, and
    those receipts."""
    conn.exec_driver_sql(RECEIPT_ID_INDEX)
    stored = conn.exec_driver_sql(f"SELECT 1 FROM {TABLE.name} LIMIT 1").first() is not None
    seen_ids = _known(conn, "SELECT receipt_id FROM {t} WHERE receipt_id IN (SELECT value FROM json_each(?))",
                      {r.receipt_id for r in receipts if r.receipt_id is not None} if stored else set(),
                      lambda row: row[0])
    seen_rows = _known(conn, f"SELECT {', '.join(IDENTITY)} FROM {{t}} WHERE receipt_id IS NULL AND run_id IN "
                             "(SELECT value FROM json_each(?))",
                       {r.run_id for r in receipts if r.receipt_id is None} if stored else set(), tuple)
    rows, fresh = [], []
    for r in receipts:
        row = _row(r)
        key = row[0] if row[0] is not None else row[:len(IDENTITY)]
        seen = seen_ids if row[0] is not None else seen_rows
        if key in seen:
            continue
        seen.add(key)
        rows.append(row)
        fresh.append(r)
    return rows, fresh


def _known(conn: Connection, sql: str, keys: set[str], shape) -> set:
    found: set = set()
    keys_list = list(keys)
    for start in range(0, len(keys_list), BATCH):
        chunk = json.dumps(keys_list[start:start + BATCH])
        found.update(shape(row) for row in conn.exec_driver_sql(sql.format(t=TABLE.name), (chunk,)))
    return found


# -- reading --------------------------------------------------------------------------------------

def _select(ws: Workspace, where: str = "", order: str = "id") -> str:
    names = [c for c in COLUMNS if c != "line" or ws.desk_schema >= RECEIPT_LINES_SCHEMA]
    return f"SELECT {', '.join(names)} FROM {TABLE.name}{where} ORDER BY {order}"


_TIMES: dict[str, datetime] = {}


def _time(text: str) -> datetime:
    # Stored times are our own format_utc output; many receipts share one.
    moment = _TIMES.get(text)
    if moment is None:
        if len(_TIMES) > 200_000:
            _TIMES.clear()
        moment = _TIMES[text] = datetime.fromisoformat(text)
    return moment


def _receipt(row: Any) -> Receipt:
    """A stored row as a Receipt (what the table holds was checked on the way in)."""
    sp, canary = row[9], row[14]
    values = {
        "receipt_id": row[0], "run_id": row[1], "user_scope": row[2], "assistant_scope": row[3], "tier": row[4],
        "status": row[5], "version": row[6], "source_version": row[7], "at_utc": _time(row[8]),
        "source_present": None if sp is None else bool(sp),
        "waiting_until": _time(row[10]) if row[10] else None, "expected_version": row[11],
        "depends_on_version": row[12], "outcome_receipt": row[13], "canary": None if canary is None else bool(canary),
        "extensions": {}, "line": row[15] if len(row) > 15 else None,
    }
    receipt = object.__new__(Receipt)
    object.__setattr__(receipt, "__dict__", values)
    return receipt


def load(ws: Workspace, run_id: str | None = None) -> list[Receipt]:
    """Every stored receipt (or one run's), in the order they were stored."""
    if ws.desk_schema < 1:
        return []
    where, params = (" WHERE run_id = ?", (run_id,)) if run_id is not None else ("", ())
    with ws.read() as conn, gc_paused():
        rows = conn.exec_driver_sql(_select(ws, where), params).fetchall()
        return [_receipt(row) for row in rows]


def count(ws: Workspace) -> int:
    if ws.desk_schema < 1:
        return 0
    with ws.read() as conn:
        return int(conn.exec_driver_sql(f"SELECT count(*) FROM {TABLE.name}").scalar() or 0)


def watermark(conn: Connection, ws: Workspace) -> tuple[int, int]:
    """(highest receipt id, number of receipts) as ``conn`` sees them."""
    if ws.desk_schema < 1:
        return 0, 0
    top, n = conn.exec_driver_sql(f"SELECT max(id), count(*) FROM {TABLE.name}").one()
    return int(top or 0), int(n)


def count_upto(conn: Connection, max_id: int) -> int:
    return int(conn.exec_driver_sql(f"SELECT count(*) FROM {TABLE.name} WHERE id <= ?", (max_id,)).scalar() or 0)


def runs_after(conn: Connection, max_id: int) -> list[str]:
    """The runs with a receipt stored after ``max_id``."""
    rows = conn.exec_driver_sql(f"SELECT DISTINCT run_id FROM {TABLE.name} WHERE id > ?", (max_id,))
    return [r[0] for r in rows]


# -- reading as columns (the Lineage tab: every run at once) -------------------------------------

def read_records(conn: Connection, ws: Workspace) -> tuple[np.ndarray, np.ndarray] | None:
    """Every stored receipt as ``receipt_blocks.RECORD`` rows and the strings their codes name,
    read from the blocks (checked against the rows) in ``conn``'s transaction; None for a file
    of a layout before the blocks (read it with :func:`read_columns`)."""
    if ws.desk_schema < RECEIPT_COLUMNS_SCHEMA:
        return None
    return receipt_blocks.stored(conn.connection.driver_connection)


def _micros(column: str) -> str:
    """SQL for a stored time (our ``…SSZ`` or ``…SS.ffffffZ``) as microseconds since the epoch."""
    return (f"(unixepoch(substr({column}, 1, 19)) * 1000000 + "
            f"CASE WHEN length({column}) = 27 THEN CAST(substr({column}, 21, 6) AS INTEGER) ELSE 0 END)")


NEVER_SQL = "9223372036854775807"
#: one receipt as five values (fewer values, faster reading): its lane (``len(user):user`` +
#: assistant), version, dependsOnVersion, time, waitingUntil, line, and the small fields
#: packed in one integer (SQLite's ``|`` and ``<<`` bind alike: each term in brackets) — tier | status << 3 | (sourcePresent + 1) << 6 |
#: (expectedVersion: -1 none, 0 same, 1 other, + 1) << 8 | outcomeReceipt << 10 |
#: sourceVersion missing << 11 | canary << 12
COLUMN_SELECT = (
    "SELECT length(user_scope) || ':' || user_scope || assistant_scope, version, depends_on_version, "
    f"{_micros('at_utc')}, "
    f"CASE WHEN waiting_until IS NULL THEN {NEVER_SQL} ELSE {_micros('waiting_until')} END, {{line}}, "
    "((CASE tier WHEN 'stm' THEN 0 WHEN 'mtm' THEN 1 WHEN 'lpm' THEN 2 WHEN 'retrieval' THEN 3 ELSE 4 END) "
    "| ((CASE status WHEN 'started' THEN 0 WHEN 'waiting' THEN 1 WHEN 'committed' THEN 2 WHEN 'verified' THEN 3 "
    "ELSE 4 END) << 3) | ((ifnull(source_present, -1) + 1) << 6) "
    "| ((CASE WHEN expected_version IS NULL THEN 0 WHEN expected_version = version THEN 1 ELSE 2 END) << 8) "
    "| ((outcome_receipt IS NOT NULL) << 10) | ((source_version IS NULL) << 11) | ((ifnull(canary, 0) != 0) << 12)) "
    f"FROM {TABLE.name}{{where}} ORDER BY run_id, id")


def read_columns(conn: Connection, ws: Workspace, sink: Callable[[list[tuple]], None],
                 run_ids: list[str] | None = None, chunk: int = 50_000,
                 upto_us: int | None = None) -> tuple[list[str], list[int], list[tuple]]:
    """Every stored receipt (or those of ``run_ids``; with ``upto_us``, only those dated at or
    before it: the receipts as of that time) as rows of a few small values, grouped by run.

    The rows (see ``COLUMN_SELECT``) go to ``sink`` a chunk at a time, in the order of the
    runs returned: the runs in ``runId`` order, how many receipts each has (each run's
    rows in the order stored), and the distinct (runId, sourceVersion) pairs. All read in
    ``conn``'s one transaction.
    """
    if ws.desk_schema < 1:
        return [], [], []
    raw = conn.connection.driver_connection
    line = "ifnull(line, 0)" if ws.desk_schema >= RECEIPT_LINES_SCHEMA else "0"
    cut = "" if upto_us is None else f"{_micros('at_utc')} <= {int(upto_us)}"
    if run_ids is None:
        parts: list[tuple[str, tuple]] = [(f" WHERE {cut}" if cut else "", ())]
    else:
        also_cut = f" AND {cut}" if cut else ""
        parts = [(f" WHERE run_id IN ({', '.join('?' * len(part))}){also_cut}", tuple(part))
                 for part in (run_ids[k:k + 500] for k in range(0, len(run_ids), 500))]
    runs: list[str] = []
    counts: list[int] = []
    pairs: list[tuple] = []
    for where, params in parts:
        grouped = raw.execute(f"SELECT run_id, count(*) FROM {TABLE.name}{where} GROUP BY run_id ORDER BY run_id",
                              params).fetchall()
        runs.extend(r[0] for r in grouped)
        counts.extend(r[1] for r in grouped)
        cursor = raw.execute(COLUMN_SELECT.format(line=line, where=where), params)
        while rows := cursor.fetchmany(chunk):
            sink(rows)
        also = " AND" if where else " WHERE"
        pairs.extend(raw.execute(f"SELECT DISTINCT run_id, source_version FROM {TABLE.name}{where}{also} "
                                 "source_version IS NOT NULL", params).fetchall())
    return runs, counts, pairs
