"""Receipts as typed columns in blocks: the one place a workspace stores its receipts.

Every write of receipts appends one *block* to ``memdesk_receipt_blocks``: the receipts as a
packed numpy record array (:data:`RECORD`) — times as integer microseconds, tier, status and
flags as codes, and every string (run, scopes, versions, sourceVersion, receiptId,
expectedVersion, outcomeReceipt) as a code into ``memdesk_receipt_names``, a dictionary of
strings that only grows. Every field of the receipts contract is kept, exactly, and nothing
else (the line a receipt was read from aside). Reading every receipt is a few blob reads and
one ``np.frombuffer``: no row objects, no SQL expression per row; writing 512 receipts is one
blob and the dictionary's new strings, not 512 rows of text and their index entries.

Ids only grow: a block keeps the highest id it was given (``last_id``) even when receipts are
removed from it (rewritten, or left empty), so an id is never given twice. A block also keeps
the highest string code it refers to (``codes_hi``, indexed) and the span of its receipts' times
(``at_lo``, ``at_hi``): a receipt whose strings were all first seen after a block was written,
or timed outside its span, cannot be in it, so finding whether a receipt is stored already
reads only the blocks written since its strings were first seen that cover its time.

Files of an older layout kept one row of text per receipt in ``memdesk_receipts``; while such
a file is opened read-only its rows are read into the same records in memory, and the first
opening for writing moves them into blocks and drops the table (``ours._receipts_in_blocks``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta
from typing import Final

import numpy as np
from sqlalchemy import Connection

from memorydesk.core.receipt_codes import CANARY_STATED, EPOCH, NEVER, packed_of, to_us
from memorydesk.core.receipts import STATUSES, TIERS, Receipt

BLOCKS: Final = "memdesk_receipt_blocks"
NAMES: Final = "memdesk_receipt_names"
ROWS: Final = "memdesk_receipts"  # the older layout's table (see the module docstring)

#: one receipt: its id, times in µs (until: NEVER when unstated), string codes (0: unstated),
#: its line (0: none) and the small fields packed (``core.receipt_codes.packed_of``)
RECORD: Final = np.dtype([("id", "<i8"), ("at", "<i8"), ("until", "<i8"), ("run", "<i4"), ("user", "<i4"),
                          ("assistant", "<i4"), ("version", "<i4"), ("depends", "<i4"), ("source", "<i4"),
                          ("receipt", "<i4"), ("expected", "<i4"), ("outcome", "<i4"), ("line", "<i4"),
                          ("packed", "<i4")])
STRINGS: Final = ("run", "user", "assistant", "version", "depends", "source", "receipt", "expected", "outcome")
NUMBERS: Final = ("at", "until", "line", "packed")
#: what makes two receipts without a receiptId the same: every field but the id and the line
IDENTITY: Final = tuple(name for name in RECORD.names if name not in ("id", "line"))

DDL: Final = (
    f"CREATE TABLE IF NOT EXISTS {NAMES} (code INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
    f"CREATE TABLE IF NOT EXISTS {BLOCKS} (id INTEGER PRIMARY KEY, last_id INTEGER NOT NULL, "
    "n INTEGER NOT NULL, data BLOB NOT NULL, codes_hi INTEGER NOT NULL DEFAULT 0, "
    f"at_lo INTEGER NOT NULL DEFAULT {-2**63}, at_hi INTEGER NOT NULL DEFAULT {2**63 - 1})",
    f"CREATE INDEX IF NOT EXISTS idx_{BLOCKS}_codes_hi ON {BLOCKS} (codes_hi)",
)


def values_of(r: Receipt) -> tuple:
    """One receipt's strings (:data:`STRINGS`, not yet coded) then numbers (:data:`NUMBERS`)."""
    until = r.waiting_until
    return (r.run_id, r.user_scope, r.assistant_scope, r.version, r.depends_on_version, r.source_version,
            r.receipt_id, r.expected_version, r.outcome_receipt,
            to_us(r.at_utc), NEVER if until is None else to_us(until), r.line or 0, packed_of(r))


def create(conn: Connection) -> None:
    for ddl in DDL:
        conn.exec_driver_sql(ddl)


def known(raw, names: Iterable[str]) -> dict[str | None, int]:
    """The code of each of ``names`` the dictionary holds (and None: 0)."""
    wanted = list(set(names))
    found: dict[str | None, int] = {None: 0}
    for start in range(0, len(wanted), 20_000):
        chunk = json.dumps(wanted[start:start + 20_000], ensure_ascii=False)
        found.update(raw.execute(f"SELECT name, code FROM {NAMES} WHERE name IN "
                                 "(SELECT value FROM json_each(?))", (chunk,)).fetchall())
    return found


def codes_for(raw, names: Iterable[str]) -> tuple[dict[str | None, int], int]:
    """The code of each string (None: 0), adding the strings the dictionary does not hold yet,
    and the highest code before any was added."""
    names = set(names)
    found = known(raw, names)
    top = int(raw.execute(f"SELECT ifnull(max(code), 0) FROM {NAMES}").fetchone()[0])
    missing = sorted(name for name in names if name not in found)  # in order: the name index grows at its end
    if missing:
        added = list(zip(range(top + 1, top + 1 + len(missing)), missing))
        raw.executemany(f"INSERT INTO {NAMES} (code, name) VALUES (?, ?)", added)
        found.update((name, code) for code, name in added)
    return found, top


def records(values: Sequence[tuple], code: dict[str | None, int]) -> np.ndarray:
    """:data:`RECORD` rows for ``values`` (see :func:`values_of`), ids not yet given;
    ``code`` maps every string in them (and None) to its code."""
    out = np.zeros(len(values), RECORD)
    if not values:
        return out
    columns = list(zip(*values))
    for k, name in enumerate(STRINGS):
        out[name] = np.fromiter(map(code.__getitem__, columns[k]), np.int32, len(values))
    for k, name in enumerate(NUMBERS, start=len(STRINGS)):
        out[name] = columns[k]
    return out


def strings_of(values: Iterable[tuple]) -> set[str]:
    return {s for v in values for s in v[:len(STRINGS)] if s is not None}


def top_id(raw) -> int:
    """The highest id ever given to a receipt (0: none yet)."""
    row = raw.execute(f"SELECT last_id FROM {BLOCKS} ORDER BY id DESC LIMIT 1").fetchone()
    return int(row[0]) if row else 0


def write(raw, block: np.ndarray, last_id: int | None = None) -> None:
    """Store ``block`` (ids given) as one block."""
    if not len(block):
        return
    hi = int(max(block[name].max() for name in STRINGS))
    raw.execute(f"INSERT INTO {BLOCKS} (last_id, n, data, codes_hi, at_lo, at_hi) VALUES (?, ?, ?, ?, ?, ?)",
                (int(block["id"][-1]) if last_id is None else last_id, len(block), block.tobytes(), hi,
                 int(block["at"].min()), int(block["at"].max())))


def append(conn: Connection, values: Sequence[tuple]) -> int:
    """Store ``values`` (see :func:`values_of`) as one block with the next ids; how many."""
    if not values:
        return 0
    raw = conn.connection.driver_connection
    block = records(values, codes_for(raw, strings_of(values))[0])
    first = top_id(raw) + 1
    block["id"] = np.arange(first, first + len(block), dtype=np.int64)
    write(raw, block)
    return len(block)


def read(raw, codes_from: int = 0, ids_above: int = 0, at: tuple[int, int] | None = None) -> np.ndarray:
    """The records of the blocks that may hold a string code ≥ ``codes_from``, an id above
    ``ids_above`` and a receipt timed within ``at`` (µs, both ends included), in the order
    written (default: every block)."""
    where = []
    if codes_from:
        where.append(f"codes_hi >= {int(codes_from)}")
    if ids_above:
        where.append(f"last_id > {int(ids_above)}")
    if at is not None:
        where.append(f"at_hi >= {int(at[0])} AND at_lo <= {int(at[1])}")
    sql = f"SELECT data FROM {BLOCKS}{' WHERE ' + ' AND '.join(where) if where else ''} ORDER BY id"
    blobs = [row[0] for row in raw.execute(sql)]
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


def names_of(raw, codes: np.ndarray) -> np.ndarray:
    """The dictionary as :func:`names` gives it, holding only the strings of ``codes`` (None
    elsewhere): what reading a few runs needs, without reading every string stored."""
    top = int(raw.execute(f"SELECT ifnull(max(code), 0) FROM {NAMES}").fetchone()[0])
    out = np.full(top + 1, None, dtype=object)
    wanted = np.unique(np.asarray(codes, np.int64))
    wanted = wanted[wanted > 0].tolist()
    for start in range(0, len(wanted), 20_000):
        rows = raw.execute(f"SELECT code, name FROM {NAMES} WHERE code IN (SELECT value FROM json_each(?))",
                           (json.dumps(wanted[start:start + 20_000]),)).fetchall()
        for code, name in rows:
            out[code] = name
    return out


def has_rows(raw) -> bool:
    """True for a file of the older layout (receipts as rows, not moved into blocks yet)."""
    return raw.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (ROWS,)).fetchone() is not None


def has_blocks(raw) -> bool:
    return raw.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                       (BLOCKS,)).fetchone() is not None


# -- the older layout's rows ----------------------------------------------------------------------

def _micros(column: str) -> str:
    """SQL for a stored time (our ``…SSZ`` or ``…SS.ffffffZ``) as microseconds since the epoch."""
    return (f"(unixepoch(substr({column}, 1, 19)) * 1000000 + "
            f"CASE WHEN length({column}) = 27 THEN CAST(substr({column}, 21, 6) AS INTEGER) ELSE 0 END)")


#: the stored rows as :func:`values_of` makes them, with the id first
ROW_VALUES: Final = (
    "SELECT id, run_id, user_scope, assistant_scope, version, depends_on_version, source_version, receipt_id, "
    f"expected_version, outcome_receipt, {_micros('at_utc')}, "
    f"CASE WHEN waiting_until IS NULL THEN {NEVER} ELSE {_micros('waiting_until')} END, "
    "{line}, (CASE tier WHEN 'stm' THEN 0 WHEN 'mtm' THEN 1 WHEN 'lpm' THEN 2 WHEN 'retrieval' THEN 3 ELSE 4 END) "
    "| ((CASE status WHEN 'started' THEN 0 WHEN 'waiting' THEN 1 WHEN 'committed' THEN 2 WHEN 'verified' THEN 3 "
    "ELSE 4 END) << 3) | ((ifnull(source_present, -1) + 1) << 6) "
    "| ((CASE WHEN expected_version IS NULL THEN 0 WHEN expected_version = version THEN 1 ELSE 2 END) << 8) "
    "| ((outcome_receipt IS NOT NULL) << 10) | ((source_version IS NULL) << 11) | ((ifnull(canary, 0) != 0) << 12) "
    f"| ((canary IS NOT NULL) << 13) FROM {ROWS} ORDER BY id")


def _row_cursor(raw):
    columns = {row[1] for row in raw.execute(f"PRAGMA table_info({ROWS})")}
    return raw.execute(ROW_VALUES.format(line="ifnull(line, 0)" if "line" in columns else "0"))


def from_rows(raw) -> tuple[np.ndarray, np.ndarray]:
    """A file of the older layout's rows as records and a dictionary of their own, in memory."""
    rows = _row_cursor(raw).fetchall()
    new = list(dict.fromkeys(s for v in rows for s in v[1:1 + len(STRINGS)] if s is not None))
    code: dict[str | None, int] = {None: 0}
    code.update((name, k) for k, name in enumerate(new, start=1))
    text = np.empty(len(new) + 1, dtype=object)
    text[1:] = new
    rec = records([v[1:] for v in rows], code)
    rec["id"] = [v[0] for v in rows]
    return rec, text


def move_rows(raw, chunk: int = 50_000) -> int:
    """Every stored row into blocks of at most ``chunk`` receipts, ids kept, any block written
    beside the rows by an older build replaced (the rows are the truth there), then the rows
    dropped: the migration's step, and salvage's for a file of that layout (``raw``: a DB-API
    connection inside the caller's transaction)."""
    raw.execute(f"DROP TABLE IF EXISTS {BLOCKS}")  # an older build's blocks: another record layout
    for ddl in DDL:
        raw.execute(ddl)
    cursor = _row_cursor(raw)
    done = 0
    while rows := cursor.fetchmany(chunk):
        values = [v[1:] for v in rows]
        block = records(values, codes_for(raw, strings_of(values))[0])
        block["id"] = [v[0] for v in rows]
        write(raw, block)
        done += len(rows)
    raw.execute(f"DROP TABLE {ROWS}")
    return done


# -- reading and removing -------------------------------------------------------------------------

def stored(raw) -> tuple[np.ndarray, np.ndarray]:
    """Every stored receipt as :data:`RECORD` rows in the order stored, and the dictionary
    (code → string)."""
    if has_rows(raw):
        return from_rows(raw)
    if not has_blocks(raw):
        return np.zeros(0, RECORD), np.full(1, None, dtype=object)
    return read(raw), names(raw)


def remove(conn: Connection, drop: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> int:
    """Remove the receipts ``drop(records, dictionary)`` marks (a boolean array per block),
    rewriting the blocks that held them; how many were removed. Ids are not given again."""
    raw = conn.connection.driver_connection
    text = names(raw)
    removed = 0
    for block_id, data in raw.execute(f"SELECT id, data FROM {BLOCKS} ORDER BY id").fetchall():
        rec = np.frombuffer(data, RECORD)
        gone = drop(rec, text) if len(rec) else np.zeros(0, bool)
        if gone.any():
            kept = rec[~gone]
            raw.execute(f"UPDATE {BLOCKS} SET n = ?, data = ? WHERE id = ?", (len(kept), kept.tobytes(), block_id))
            removed += int(gone.sum())
    return removed


def code_array(text: np.ndarray, wanted: Iterable[str]) -> np.ndarray:
    """The codes of ``wanted`` in ``text`` (a dictionary array), those it holds."""
    wanted = set(wanted)
    return np.asarray([k for k, name in enumerate(text.tolist()) if name in wanted], np.int64)


def to_receipt(row: tuple, text: list) -> Receipt:
    """One record (``tolist()`` of a :data:`RECORD` row) as a Receipt (its fields were checked
    on the way in)."""
    (_id, at, until, run, user, assistant, version, depends, source, receipt, expected, outcome, line,
     packed) = row
    present = (packed >> 6) & 3
    values = {
        "receipt_id": text[receipt], "run_id": text[run], "user_scope": text[user],
        "assistant_scope": text[assistant], "tier": TIERS[packed & 7], "status": STATUSES[(packed >> 3) & 7],
        "version": text[version], "source_version": text[source], "at_utc": EPOCH + timedelta(microseconds=at),
        "source_present": None if present == 0 else present == 2,
        "waiting_until": None if until == NEVER else EPOCH + timedelta(microseconds=until),
        "expected_version": text[expected], "depends_on_version": text[depends],
        "outcome_receipt": text[outcome],
        "canary": bool(packed >> 12 & 1) if packed & CANARY_STATED else None,
        "extensions": {}, "line": line or None,
    }
    receipt_obj = object.__new__(Receipt)
    object.__setattr__(receipt_obj, "__dict__", values)
    return receipt_obj


def recent(raw, before_id: int | None, n: int) -> list[tuple]:
    """Up to ``n`` receipts stored last (ids below ``before_id``), newest first, as (id, run, tier,
    status, version, sourceVersion, whole seconds since the epoch, userScope, assistantScope); ``raw``
    is the driver's connection (for the history, which reads receipts beside the other rows)."""
    if has_rows(raw):
        cond, args = ("id < ?", (before_id,)) if before_id is not None else ("1", ())
        return raw.execute("SELECT id, run_id, tier, status, version, source_version, "
                           "CAST(strftime('%s', substr(at_utc, 1, 19)) AS INTEGER), user_scope, assistant_scope "
                           f"FROM {ROWS} WHERE {cond} ORDER BY id DESC LIMIT ?", (*args, n)).fetchall()
    if not has_blocks(raw):
        return []
    cond = ""
    if before_id is not None:  # blocks after the first that reaches ``before_id`` hold no id below it
        stop = raw.execute(f"SELECT min(id) FROM {BLOCKS} WHERE last_id >= ?", (before_id,)).fetchone()[0]
        cond = "" if stop is None else f" WHERE id <= {int(stop)}"
    parts: list[np.ndarray] = []
    got = 0
    for (data,) in raw.execute(f"SELECT data FROM {BLOCKS}{cond} ORDER BY id DESC"):
        rec = np.frombuffer(data, RECORD)
        if before_id is not None:
            rec = rec[rec["id"] < before_id]
        parts.append(rec[::-1])
        got += len(rec)
        if got >= n:
            break
    rec = np.concatenate(parts)[:n] if parts else np.zeros(0, RECORD)
    wanted = np.unique(np.concatenate([rec[k] for k in ("run", "version", "source", "user", "assistant")]))
    text = dict(raw.execute(f"SELECT code, name FROM {NAMES} WHERE code IN (SELECT value FROM json_each(?))",
                            (str(wanted.tolist()),)).fetchall())
    text[0] = None
    return [(int(r["id"]), text[r["run"]], TIERS[r["packed"] & 7], STATUSES[(r["packed"] >> 3) & 7],
             text[r["version"]], text[r["source"]], int(r["at"]) // 1_000_000, text[r["user"]], text[r["assistant"]])
            for r in rec]
