"""Receipts as typed columns beside their rows: what the Lineage tab reads in one scan.

``memdesk_receipts`` keeps one row of text per receipt (what SQL readers, the run detail and
the de-duplication use). Every write of receipts also appends one *block*: the same receipts
as a packed numpy record array (:data:`RECORD`) — times as integer microseconds, tier,
status and flags as codes, and every string (run, scopes, versions, sourceVersion) as a
code into ``memdesk_receipt_names``, a dictionary of strings that only grows. Reading every
receipt is then a few blob reads and one ``np.frombuffer``: no row objects, no SQL
expression per row.

The rows stay the truth: a reader checks the blocks against them (the highest id and the
count) and reads rows the blocks do not hold (written by an older build) or drops receipts
whose rows were deleted (a canary's clean-up, a person's SQL).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from collections.abc import Iterable, Sequence
from typing import Final

import numpy as np
from sqlalchemy import Connection

from memorydesk.core.health_arrays import NEVER
from memorydesk.core.health_vector import STATUS_CODES, TIER_CODES
from memorydesk.core.receipts import Receipt

BLOCKS: Final = "memdesk_receipt_blocks"
NAMES: Final = "memdesk_receipt_names"
ROWS: Final = "memdesk_receipts"

#: one receipt: its row id, string codes (0: unstated), times in µs (until: NEVER when unstated),
#: its line (0: none) and the small fields packed as ``receipt_store.COLUMN_SELECT`` packs them
RECORD: Final = np.dtype([("id", "<i8"), ("run", "<i4"), ("user", "<i4"), ("assistant", "<i4"),
                          ("version", "<i4"), ("depends", "<i4"), ("source", "<i4"), ("at", "<i8"),
                          ("until", "<i8"), ("line", "<i4"), ("packed", "<i4")])
STRINGS: Final = ("run", "user", "assistant", "version", "depends", "source")

DDL: Final = (
    f"CREATE TABLE IF NOT EXISTS {NAMES} (code INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
    f"CREATE TABLE IF NOT EXISTS {BLOCKS} (id INTEGER PRIMARY KEY, last_id INTEGER NOT NULL, "
    "n INTEGER NOT NULL, data BLOB NOT NULL)",
)


_TIER_STATUS: Final = {(t, s): tc | sc << 3 for t, tc in TIER_CODES.items() for s, sc in STATUS_CODES.items()}
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_US: Final = timedelta(microseconds=1)


def packed_of(r: Receipt) -> int:
    """tier | status << 3 | (sourcePresent + 1) << 6 | (expectedVersion: 0 none, 1 same, 2 other) << 8
    | outcomeReceipt << 10 | sourceVersion missing << 11 | canary << 12."""
    expected = 0 if r.expected_version is None else 1 + (r.expected_version != r.version)
    present = r.source_present
    return (_TIER_STATUS[r.tier, r.status] | (0 if present is None else 1 + present) << 6 | expected << 8
            | (r.outcome_receipt is not None) << 10 | (r.source_version is None) << 11 | bool(r.canary) << 12)


def values_of(r: Receipt) -> tuple:
    """One receipt's strings and numbers in :data:`RECORD`'s order (no id, strings not yet coded)."""
    until = r.waiting_until
    return (r.run_id, r.user_scope, r.assistant_scope, r.version, r.depends_on_version, r.source_version,
            (r.at_utc - _EPOCH) // _US, NEVER if until is None else (until - _EPOCH) // _US, r.line or 0,
            packed_of(r))


def create(conn: Connection) -> None:
    for ddl in DDL:
        conn.exec_driver_sql(ddl)


def codes_for(conn: Connection, names: Iterable[str]) -> dict[str | None, int]:
    """The code of each string (None: 0), adding the strings the dictionary does not hold yet."""
    wanted = list(set(names))
    found: dict[str | None, int] = {None: 0}
    for start in range(0, len(wanted), 20_000):
        chunk = json.dumps(wanted[start:start + 20_000], ensure_ascii=False)
        found.update(conn.exec_driver_sql(f"SELECT name, code FROM {NAMES} WHERE name IN "
                                          "(SELECT value FROM json_each(?))", (chunk,)).fetchall())
    missing = [name for name in wanted if name not in found]
    if missing:
        top = int(conn.exec_driver_sql(f"SELECT ifnull(max(code), 0) FROM {NAMES}").scalar() or 0)
        added = list(zip(range(top + 1, top + 1 + len(missing)), missing))
        conn.exec_driver_sql(f"INSERT INTO {NAMES} (code, name) VALUES (?, ?)", added)
        found.update((name, code) for code, name in added)
    return found


def records(first_id: int, values: Sequence[tuple], code: dict[str | None, int]) -> np.ndarray:
    """:data:`RECORD` rows for ``values`` (see :func:`values_of`), ids from ``first_id`` on;
    ``code`` maps every string in them (and None) to its code."""
    out = np.zeros(len(values), RECORD)
    if not values:
        return out
    out["id"] = np.arange(first_id, first_id + len(values), dtype=np.int64)
    columns = list(zip(*values))
    for k, name in enumerate(STRINGS):
        out[name] = np.fromiter(map(code.__getitem__, columns[k]), np.int32, len(values))
    for k, name in enumerate(("at", "until", "line", "packed"), start=len(STRINGS)):
        out[name] = columns[k]
    return out


def append(conn: Connection, first_id: int, values: Sequence[tuple]) -> None:
    """Store ``values`` (receipts whose rows got ids ``first_id``, ``first_id + 1``, …) as one block."""
    if not values:
        return
    strings = {s for v in values for s in v[:6] if s is not None}
    block = records(first_id, values, codes_for(conn, strings))
    conn.exec_driver_sql(f"INSERT INTO {BLOCKS} (last_id, n, data) VALUES (?, ?, ?)",
                         (first_id + len(values) - 1, len(values), block.tobytes()))


def read(raw) -> np.ndarray:
    """Every stored block's records, in the order written (``raw``: a DB-API connection)."""
    blobs = [row[0] for row in raw.execute(f"SELECT data FROM {BLOCKS} ORDER BY id")]
    return np.frombuffer(b"".join(blobs), RECORD) if blobs else np.zeros(0, RECORD)


def names(raw) -> np.ndarray:
    """The dictionary as an array: code → string (object array; code 0 is None)."""
    top, n = raw.execute(f"SELECT ifnull(max(code), 0), count(*) FROM {NAMES}").fetchone()
    if top == n:  # codes 1..n, as this module writes them: one joined string, split
        joined = raw.execute(f"SELECT group_concat(name, char(0)) FROM (SELECT name FROM {NAMES} "
                             "ORDER BY code)").fetchone()[0]
        parts = joined.split("\0") if joined is not None else []
        if len(parts) == n:  # (no name holds a NUL)
            out = np.empty(n + 1, dtype=object)
            out[1:] = parts
            return out
    rows = raw.execute(f"SELECT code, name FROM {NAMES}").fetchall()
    out = np.full(top + 1, None, dtype=object)
    if rows:
        codes, texts = zip(*rows)
        out[np.asarray(codes, np.int64)] = texts
    return out


#: the stored rows as :func:`values_of` makes them (with the id first): what fills blocks for
#: rows no block holds (a file migrated from the text-only layout)
def _micros(column: str) -> str:
    return (f"(unixepoch(substr({column}, 1, 19)) * 1000000 + "
            f"CASE WHEN length({column}) = 27 THEN CAST(substr({column}, 21, 6) AS INTEGER) ELSE 0 END)")


ROW_VALUES: Final = (
    "SELECT id, run_id, user_scope, assistant_scope, version, depends_on_version, source_version, "
    f"{_micros('at_utc')}, CASE WHEN waiting_until IS NULL THEN {NEVER} ELSE {_micros('waiting_until')} END, "
    "{line}, (CASE tier WHEN 'stm' THEN 0 WHEN 'mtm' THEN 1 WHEN 'lpm' THEN 2 WHEN 'retrieval' THEN 3 ELSE 4 END) "
    "| ((CASE status WHEN 'started' THEN 0 WHEN 'waiting' THEN 1 WHEN 'committed' THEN 2 WHEN 'verified' THEN 3 "
    "ELSE 4 END) << 3) | ((ifnull(source_present, -1) + 1) << 6) "
    "| ((CASE WHEN expected_version IS NULL THEN 0 WHEN expected_version = version THEN 1 ELSE 2 END) << 8) "
    "| ((outcome_receipt IS NOT NULL) << 10) | ((source_version IS NULL) << 11) | ((ifnull(canary, 0) != 0) << 12) "
    f"FROM {ROWS} WHERE id > ? ORDER BY id")


def fill(conn: Connection, chunk: int = 50_000) -> int:
    """Blocks for every stored row above the blocks' highest id (the migration's step; each
    block holds at most ``chunk`` receipts, consecutive ids not required)."""
    create(conn)
    raw = conn.connection.driver_connection
    top = int(raw.execute(f"SELECT ifnull(max(last_id), 0) FROM {BLOCKS}").fetchone()[0])
    columns = {row[1] for row in raw.execute(f"PRAGMA table_info({ROWS})")}
    cursor = raw.execute(ROW_VALUES.format(line="ifnull(line, 0)" if "line" in columns else "0"), (top,))
    done = 0
    while rows := cursor.fetchmany(chunk):
        strings = {s for v in rows for s in v[1:7] if s is not None}
        code = codes_for(conn, strings)
        block = records(0, [v[1:] for v in rows], code)
        block["id"] = [v[0] for v in rows]
        conn.exec_driver_sql(f"INSERT INTO {BLOCKS} (last_id, n, data) VALUES (?, ?, ?)",
                             (rows[-1][0], len(rows), block.tobytes()))
        done += len(rows)
    return done


def stored(raw) -> tuple[np.ndarray, np.ndarray]:
    """Every stored receipt as :data:`RECORD` rows in the order stored, and the dictionary
    (code → string), checked against the rows: rows above the blocks' highest id are read
    from the rows themselves, receipts whose rows are gone are left out."""
    rec, text = read(raw), names(raw)
    top = int(rec["id"].max()) if len(rec) else 0
    max_id, n = raw.execute(f"SELECT ifnull(max(id), 0), count(*) FROM {ROWS}").fetchone()
    if max_id > top:
        columns = {row[1] for row in raw.execute(f"PRAGMA table_info({ROWS})")}
        rows = raw.execute(ROW_VALUES.format(line="ifnull(line, 0)" if "line" in columns else "0"), (top,)).fetchall()
        code: dict[str | None, int] = {None: 0}
        code.update((name, k) for k, name in enumerate(text.tolist()) if name is not None)
        fresh = [s for v in rows for s in v[1:7] if s is not None and s not in code]
        new = list(dict.fromkeys(fresh))
        code.update((name, len(text) + k) for k, name in enumerate(new))
        text = np.concatenate([text, np.asarray(new, dtype=object)]) if new else text
        more = records(0, [v[1:] for v in rows], code)
        more["id"] = [v[0] for v in rows]
        rec = np.concatenate([rec, more])
    if len(rec) != n:  # rows deleted since their block was written
        ids = np.fromiter((row[0] for row in raw.execute(f"SELECT id FROM {ROWS}")), np.int64)
        rec = rec[np.isin(rec["id"], ids)]
    return rec, text
