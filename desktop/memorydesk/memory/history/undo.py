"""Undo and redo of a history entry: the row read back into its typed action (``actions``),
then its ``inverse`` (undo) or its ``forward`` again (redo), recorded as a row of its own."""

from __future__ import annotations

import json
import re

from sqlalchemy import Connection

from memorydesk.core.change_words import grant_words
from memorydesk.core.errors import MemoryDeskError
from memorydesk.memory.actions.registry import decode
from memorydesk.memory.history.record import HISTORY, ChangeResult, moving, record, row_of
from memorydesk.store import Workspace

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)


def undo_entry(ws: Workspace, conn: Connection, history_id: int, actor: str, reason: str = "",
               batch: str | None = None) -> ChangeResult:
    """Undo entry ``history_id``: invert a change, or re-apply the change an undo reverted
    (``batch``: the undo of a batch marks its entries as one, so redo takes them together)."""
    row = row_of(conn, history_id)
    if row.undone_by is not None:
        raise MemoryDeskError(f"history entry {history_id} was already undone (by entry {row.undone_by})")
    original = row
    while original.action in ("undo", "redo") and original.undo_of:
        original = row_of(conn, original.undo_of)
    act = decode(original.entity, original.action, original.detail)
    if not act.undoable:
        raise MemoryDeskError(f"a {original.action} of a {original.entity} cannot be undone")
    name = "redo" if row.action == "undo" else "undo"
    moves = moving(conn, lambda: act.forward(ws, conn) if name == "redo" else act.inverse(ws, conn))
    new_id = record(conn, key=f"{original.entity}.{name}", entity_id=original.entity_id, actor=actor,
                    reason=reason or f"{name} of entry {history_id}",
                    detail={"of": history_id, **({"batch": batch} if batch else {}),
                            **({"moves": moves} if moves else {})},
                    before_id=original.after_id, after_id=original.before_id, undo_of=history_id)
    conn.execute(HISTORY.update().where(HISTORY.c.id == history_id).values(undone_by=new_id))
    ids = list(dict.fromkeys(i for i in (original.entity_id, original.before_id, original.after_id) if i))
    said = f"{'Undone' if name == 'undo' else 'Redone'}: {original.action.replace('_', ' ')} of {original.entity}"
    what = f"{said} {_short(original.entity_id)}"
    if original.entity == "grant":  # the cells, whole: “… of conventions from none to write”
        what += f": {grant_words(json.loads(original.detail or '{}'), back=name == 'undo')}"
    return ChangeResult(original.entity, ids, [new_id], what, act.touched())


def _short(entity_id: str) -> str:
    """An id as a sentence names it: a long generated id by its first 8 characters, a name whole."""
    return entity_id[:8] + "…" if UUID.match(entity_id) else entity_id
