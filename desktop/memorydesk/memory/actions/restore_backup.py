"""Restore from a backup (or any other workspace file): one fact, policy or grant cell put
back as that file holds it, through the reviewer, with a reason, a history row and undo.

The desk creates nothing new here: a removed fact or policy comes back as the very row
the other file holds (same id, same columns, its embedding included); a changed one gets
that file's values back. The other file is only read. Each forward and inverse step
checks the row is still as the previous step left it (``StaleEdit`` otherwise), as every
reviewer action does. A grant cell is restored with the Grants tab's own edits
(``GrantEdits.restore_grant``).

Actions: ``RestoreFactBackup`` (``fact.restore_backup``) and ``RestorePolicyBackup``
(``policy.restore_backup``); they store the ``table`` role, the ``id``, the ``source`` file,
the ``old`` row (as the other file holds it) and the ``current`` one (null: there was none),
blobs as hex.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.history.record import ChangeResult, perform
from memorydesk.store import Workspace, open_workspace
from memorydesk.store import vectors as vector_store
from memorydesk.store.retry import with_retry

BLOBS = ("embedding", "binary_embedding")


def _wire(row: dict[str, Any] | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {k: (v.hex() if isinstance(v, bytes) else v) for k, v in row.items()}


def _unwire(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (bytes.fromhex(v) if k in BLOBS and isinstance(v, str) else v) for k, v in row.items()}


def _table(ws: Workspace, role: str):
    return {"facts": ws.layout.facts, "policies": ws.layout.policies}[role]


def _current(ws: Workspace, conn: Connection, role: str, item_id: str) -> dict[str, Any] | None:
    table = _table(ws, role)
    row = conn.execute(select(table).where(table.c.id == item_id)).first()
    return _wire(dict(row._mapping)) if row is not None else None


def _put(ws: Workspace, conn: Connection, role: str, expect: dict[str, Any] | None, value: dict[str, Any] | None,
         item_id: str) -> None:
    """Make the row ``value`` (None: absent), refusing unless it is ``expect`` now."""
    table = _table(ws, role)
    if _current(ws, conn, role, item_id) != expect:
        raise StaleEdit(f"{role[:-1] if role == 'facts' else 'policy'} {item_id} changed since; nothing was changed")
    if value is None:
        conn.execute(table.delete().where(table.c.id == item_id))
        if role == "facts" and ws.has_vectors:
            vector_store.drop_vectors(conn, [item_id])
        return
    row = _unwire(value)
    if expect is None:
        conn.execute(table.insert().values(**row))
    else:
        conn.execute(table.update().where(table.c.id == item_id).values(**row))
    if role == "facts" and ws.has_vectors:
        if row.get("embedding") is not None:
            vector_store.put_vector(conn, item_id, row["embedding"])
        else:
            vector_store.drop_vectors(conn, [item_id])


@dataclass(frozen=True)
class _RestoreBackup(ReviewerAction):
    """Put a row back as another file holds it. Stores both rows; undone by putting the
    row that was there back (or removing it when there was none)."""

    table: str  # "facts" or "policies"
    id: str
    source: str
    old: dict[str, Any]  # the row as the other file holds it
    current: dict[str, Any] | None  # the row it replaced (None: there was none)

    def forward(self, ws: Workspace, conn: Connection) -> None:
        _put(ws, conn, self.table, self.current, self.old, self.id)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        _put(ws, conn, self.table, self.old, self.current, self.id)


@dataclass(frozen=True)
class RestoreFactBackup(_RestoreBackup):
    entity, name = "fact", "restore_backup"


@dataclass(frozen=True)
class RestorePolicyBackup(_RestoreBackup):
    entity, name = "policy", "restore_backup"


def _read_other(source: Path, role: str, item_id: str) -> dict[str, Any]:
    with open_workspace(source, read_only=True) as other:
        table = _table(other, role)
        with other.read() as conn:
            row = conn.execute(select(table).where(table.c.id == item_id)).first()
    if row is None:
        raise MemoryDeskError(f"{source.name} holds no {'fact' if role == 'facts' else 'policy'} {item_id}; "
                              "nothing to restore")
    return _wire(dict(row._mapping))


def restore_row(ws: Workspace, actor: str, source: str | Path, kind: str, item_id: str,
                reason: str = "") -> ChangeResult:
    """Put fact or policy ``item_id`` back as ``source`` holds it (``kind``: "fact" or "policy")."""
    role = {"fact": "facts", "policy": "policies"}[kind]
    source = Path(source)
    old = _read_other(source, role, item_id)

    def work(conn: Connection) -> ChangeResult:
        current = _current(ws, conn, role, item_id)
        if current == old:
            raise MemoryDeskError(f"{kind} {item_id} is already as {source.name} holds it; nothing was changed")
        step = (RestoreFactBackup if kind == "fact" else RestorePolicyBackup)(role, item_id, str(source), old, current)
        hid = perform(ws, conn, step, entity_id=item_id, actor=actor, reason=reason)
        verb = "brought back" if current is None else "put back"
        return ChangeResult(kind, [item_id], [hid], f"{kind} {verb} as {source.name} holds it")

    return with_retry(ws, work)
