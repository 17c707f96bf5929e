"""Edit ▸ Undo and Redo of one action that wrote an entry per item (a delete of several facts,
a restore of several): the entries share a ``batch`` mark in their detail (``history.perform``),
and the newest change is taken back — or redone — with every entry of its batch, newest
first, in one transaction. Undoing one entry by its id (the History tab) takes that one only.
"""

from __future__ import annotations

import json

from sqlalchemy import Connection, func, select

from memorydesk.core.errors import MemoryDeskError
from memorydesk.memory.history import record as history
from memorydesk.memory.history.record import HISTORY, ChangeResult
from memorydesk.memory.history.undo import undo_entry
from memorydesk.memory.rows import new_id
from memorydesk.store import Workspace

BATCH = func.json_extract(HISTORY.c.detail, "$.batch")


def new_batch() -> str:
    return new_id()


def batch_of(detail: str | None) -> str | None:
    try:
        value = json.loads(detail or "{}")
    except ValueError:
        return None
    batch = value.get("batch") if isinstance(value, dict) else None
    return batch if isinstance(batch, str) and batch else None


def batch_entries(conn: Connection, history_id: int) -> list[int]:
    """``history_id`` and the entries of its batch that the same press of Undo (or Redo) takes:
    changes not undone yet (for a change), or undos not redone yet (for an undo); newest first."""
    row = history.row_of(conn, history_id)
    batch = batch_of(row.detail)
    if batch is None:
        return [history_id]
    undo_rows = row.action == "undo"
    query = select(HISTORY.c.id).where(BATCH == batch, HISTORY.c.undone_by.is_(None))
    query = query.where(HISTORY.c.action == "undo") if undo_rows else query.where(HISTORY.c.action != "undo")
    ids = [int(i) for i in conn.execute(query.order_by(HISTORY.c.id.desc())).scalars()]
    return ids or [history_id]


def _joined(results: list[ChangeResult], word: str) -> ChangeResult:
    first = results[0]
    ids = list(dict.fromkeys(i for r in results for i in r.ids))
    touched: dict[str, list[str]] = {}
    for r in results:
        for kind, more in r.touched.items():
            mine = touched.get(kind)
            touched[kind] = [] if mine == [] or not more else list(dict.fromkeys([*(mine or []), *more]))
    hids = [h for r in results for h in r.history_ids]
    message = first.message if len(results) == 1 else f"{word} {len(results)} changes made together"
    return ChangeResult(first.entity, ids, hids, message, touched)


def undo_latest(ws: Workspace, conn: Connection, actor: str, reason: str = "") -> ChangeResult:
    target = history.latest_undoable(conn)
    if target is None:
        raise MemoryDeskError("nothing to undo")
    return _take(ws, conn, target, actor, reason, "Undone:")


def redo_latest(ws: Workspace, conn: Connection, actor: str, reason: str = "") -> ChangeResult:
    target = history.latest_redoable(conn)
    if target is None:
        raise MemoryDeskError("nothing to redo")
    return _take(ws, conn, target, actor, reason, "Redone:")


def _take(ws: Workspace, conn: Connection, target: int, actor: str, reason: str, word: str) -> ChangeResult:
    ids = batch_entries(conn, target)
    batch = new_batch() if len(ids) > 1 else None
    return _joined([undo_entry(ws, conn, hid, actor, reason, batch=batch) for hid in ids], word)
