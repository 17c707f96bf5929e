"""Receipts inside a workspace, ingested all or nothing, once.

They are stored as column blocks (``store.receipt_blocks``): every field of the contract,
plus the line each receipt was read from (so a workspace names a receipt in a health reason
exactly as its file does); ``x-`` extension fields are dropped on the way in, so nothing that
could carry memory content reaches the file. Ingest is idempotent: a receipt already stored —
the same ``receiptId``, or, without one, the same fields (its line aside) — is skipped and
counted (so is a repeat within the input).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.lib import recfunctions
from sqlalchemy import Connection

from memorydesk import testpoints
from memorydesk.core.receipts import Receipt, gc_paused
from memorydesk.store import Workspace, files
from memorydesk.store import receipt_blocks as blocks
from memorydesk.store.retry import with_retry


def insert(conn: Connection, receipts: Iterable[Receipt]) -> int:
    """Add receipts inside the caller's transaction (a promotion writes its own this way)."""
    return blocks.append(conn, [blocks.values_of(r) for r in receipts])


ROW_BYTES = 300  # about what one stored receipt takes with its new strings, twice (log and file)


@dataclass(frozen=True)
class Ingested:
    stored: int
    skipped: int  # already in the workspace (or repeated in the input)


def ingest(ws: Workspace, receipts: Iterable[Receipt]) -> Ingested:
    """Store every receipt not stored yet, in one transaction; on any failure none is stored."""
    values = [blocks.values_of(r) for r in receipts]
    if not values:
        return Ingested(0, 0)
    files.require_free(ws.path.parent, len(values) * ROW_BYTES, f"{len(values):,} receipts")
    strings = blocks.strings_of(values)

    def work(conn: Connection) -> Ingested:
        raw = conn.connection.driver_connection
        testpoints.reached("ingest.begun")
        code, top = blocks.codes_for(raw, strings)
        testpoints.reached("ingest.names-written")
        rec = blocks.records(values, code)
        fresh = rec[new_ones(raw, rec, top)]
        first = blocks.top_id(raw) + 1
        fresh["id"] = np.arange(first, first + len(fresh), dtype=np.int64)
        blocks.write(raw, fresh)
        testpoints.reached("ingest.block-written")  # before the commit
        return Ingested(len(fresh), len(rec) - len(fresh))

    return with_retry(ws, work)


_OTHER = tuple(name for name in blocks.IDENTITY if name != "receipt")


def _keys(rec: np.ndarray) -> np.ndarray:
    """What makes a receipt the same as another, as one byte string each: its receiptId's code,
    or (without one) every field but the line."""
    keys = recfunctions.repack_fields(rec[list(blocks.IDENTITY)])
    named = keys["receipt"] != 0
    for name in _OTHER:
        keys[name][named] = 0
    return keys.view(f"S{keys.dtype.itemsize}")


def new_ones(raw, rec: np.ndarray, top: int) -> np.ndarray:
    """Which of ``rec`` (coded, ids not given) are neither stored already nor repeated earlier in
    it; ``top``: the dictionary's highest code before their strings were added."""
    keys = _keys(rec)
    keep = np.zeros(len(rec), bool)
    keep[np.unique(keys, return_index=True)[1]] = True
    # only a receipt all of whose strings were known before can be stored already, and only in a
    # block that refers to a code as high as its highest
    named = rec["receipt"] != 0
    highest = np.max(np.stack([rec[name] for name in blocks.STRINGS]), axis=0)
    deciding = np.where(named, rec["receipt"], highest)
    maybe = keep & (deciding <= top)
    # one with a receiptId is the same as a stored one of that id; one without, as one of the
    # same fields, so of the same time: only blocks whose span of times covers it are read
    for mask, named_too in ((maybe & named, True), (maybe & ~named, False)):
        if not mask.any():
            continue
        at = None if named_too else (int(rec["at"][mask].min()), int(rec["at"][mask].max()))
        old = blocks.read(raw, codes_from=int(deciding[mask].min()), at=at)
        if len(old):
            keep[mask] = ~np.isin(keys[mask], _keys(old))
    return keep


# -- reading --------------------------------------------------------------------------------------

def _codes(raw, text: np.ndarray, wanted: Iterable[str]) -> np.ndarray:
    """The codes of the strings ``wanted`` (those stored), in ``text`` as :func:`stored` read it."""
    wanted = list(wanted)
    if blocks.has_rows(raw):  # the older layout: a dictionary made in memory
        return blocks.code_array(text, wanted)
    return np.asarray([c for name, c in blocks.known(raw, wanted).items() if name is not None], np.int64)


def load(ws: Workspace, run_id: str | None = None) -> list[Receipt]:
    """Every stored receipt (or one run's), in the order they were stored."""
    if ws.desk_schema < 1:
        return []
    with ws.read() as conn, gc_paused():
        raw = conn.connection.driver_connection
        rec, text = blocks.stored(raw)
        if run_id is not None:
            rec = rec[np.isin(rec["run"], _codes(raw, text, [run_id]))]
        names = text.tolist()
        return [blocks.to_receipt(row, names) for row in rec.tolist()]


def count(ws: Workspace) -> int:
    if ws.desk_schema < 1:
        return 0
    with ws.read() as conn:
        return watermark(conn, ws)[1]


def watermark(conn: Connection, ws: Workspace) -> tuple[int, int]:
    """(highest receipt id given, number of receipts) as ``conn`` sees them."""
    if ws.desk_schema < 1:
        return 0, 0
    raw = conn.connection.driver_connection
    if blocks.has_rows(raw):
        top, n = raw.execute(f"SELECT max(id), count(*) FROM {blocks.ROWS}").fetchone()
        return int(top or 0), int(n)
    n = raw.execute(f"SELECT ifnull(sum(n), 0) FROM {blocks.BLOCKS}").fetchone()[0]
    return blocks.top_id(raw), int(n)


def count_upto(conn: Connection, max_id: int) -> int:
    """How many stored receipts have an id up to ``max_id``."""
    raw = conn.connection.driver_connection
    if blocks.has_rows(raw):
        return int(raw.execute(f"SELECT count(*) FROM {blocks.ROWS} WHERE id <= ?", (max_id,)).fetchone()[0])
    whole = raw.execute(f"SELECT ifnull(sum(n), 0) FROM {blocks.BLOCKS} WHERE last_id <= ?", (max_id,)).fetchone()[0]
    later = blocks.read(raw, ids_above=max_id)
    return int(whole) + int((later["id"] <= max_id).sum())


def runs_after(conn: Connection, max_id: int) -> list[str]:
    """The runs with a receipt stored after ``max_id``."""
    raw = conn.connection.driver_connection
    if blocks.has_rows(raw):
        rows = raw.execute(f"SELECT DISTINCT run_id FROM {blocks.ROWS} WHERE id > ?", (max_id,))
        return [r[0] for r in rows]
    later = blocks.read(raw, ids_above=max_id)
    codes = np.unique(later["run"][later["id"] > max_id]).tolist()
    return [name for (name,) in raw.execute(f"SELECT name FROM {blocks.NAMES} WHERE code IN "
                                            "(SELECT value FROM json_each(?))", (str(codes),))]


def receipt_ids_of(conn: Connection, users: Iterable[str]) -> set[str]:
    """The receiptIds stored for receipts of these userScopes."""
    raw = conn.connection.driver_connection
    rec, text = blocks.stored(raw)
    rec = rec[np.isin(rec["user"], _codes(raw, text, users)) & (rec["receipt"] != 0)]
    if blocks.has_rows(raw):
        return set(text[rec["receipt"]].tolist())
    codes = np.unique(rec["receipt"]).tolist()
    return {name for (name,) in raw.execute(f"SELECT name FROM {blocks.NAMES} WHERE code IN "
                                            "(SELECT value FROM json_each(?))", (str(codes),))}


def remove_scopes_like(conn: Connection, pattern: str) -> int:
    """Remove every receipt whose userScope is SQL ``LIKE pattern`` (a canary's clean-up)."""
    raw = conn.connection.driver_connection
    codes = np.asarray([c for (c,) in raw.execute(f"SELECT code FROM {blocks.NAMES} WHERE name LIKE ?",
                                                  (pattern,))], np.int64)
    if not len(codes):
        return 0
    return blocks.remove(conn, lambda rec, _text: np.isin(rec["user"], codes))


def run_count(conn: Connection) -> int:
    """How many distinct runs have a stored receipt."""
    raw = conn.connection.driver_connection
    rec, _text = blocks.stored(raw)
    return int(len(np.unique(rec["run"])))


# -- reading as columns (the Lineage tab: every run at once) -------------------------------------

def read_runs(conn: Connection, ws: Workspace, run_ids: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
    """The stored receipts of these runs (as :func:`read_records` gives every one), reading only
    the blocks written since the oldest of them was first seen: a receipt names its run by a
    string code, and a block records the highest code it refers to — so the receipts of runs
    that are new (a live workspace's) cost what they hold, not what the whole file holds."""
    if ws.desk_schema < 1:
        return np.zeros(0, blocks.RECORD), np.full(1, None, dtype=object)
    raw = conn.connection.driver_connection
    run_ids = list(run_ids)
    if blocks.has_rows(raw) or not blocks.has_blocks(raw):
        rec, text = blocks.stored(raw)
        return rec[np.isin(rec["run"], blocks.code_array(text, run_ids))], text
    codes = np.asarray([c for name, c in blocks.known(raw, run_ids).items() if name is not None], np.int64)
    if not len(codes):
        return np.zeros(0, blocks.RECORD), blocks.names_of(raw, codes)
    rec = blocks.read(raw, codes_from=int(codes.min()))
    rec = rec[np.isin(rec["run"], codes)]
    return rec, blocks.names_of(raw, np.concatenate([rec[name] for name in blocks.STRINGS]) if len(rec) else codes)


def read_records(conn: Connection, ws: Workspace) -> tuple[np.ndarray, np.ndarray]:
    """Every stored receipt as ``receipt_blocks.RECORD`` rows and the strings their codes name,
    in ``conn``'s transaction (a file of an older layout: its rows, read into the same records)."""
    if ws.desk_schema < 1:
        return np.zeros(0, blocks.RECORD), np.full(1, None, dtype=object)
    return blocks.stored(conn.connection.driver_connection)
