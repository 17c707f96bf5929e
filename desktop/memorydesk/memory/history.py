"""The change history: one ``memdesk_history`` row per change, written in the same
transaction as the change, and the undo machinery over it.

Every reviewer action is a pair of functions, ``forward`` and ``inverse``, over the
row's ``detail``. Doing it runs ``forward``; undoing it runs ``inverse`` and records
an ``undo`` entry (itself a history row); undoing that undo (redo) runs ``forward``
again and records a ``redo`` entry.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, and_, select

from memorydesk.core.changes import ChangeSet
from memorydesk.core.errors import MemoryDeskError
from memorydesk.memory.rows import now_s
from memorydesk.store import Workspace
from memorydesk.store.ours import DeskHistory

HISTORY = DeskHistory.__table__
Step = Callable[[Workspace, Connection, dict[str, Any]], None]


@dataclass(frozen=True)
class Action:
    entity: str
    name: str
    forward: Step
    inverse: Step | None  # None: cannot be undone (purge)
    touched: Callable[[dict[str, Any]], dict[str, list[str]]] | None = None  # other kinds it changes, with ids


ACTIONS: dict[str, Action] = {}


def action(entity: str, name: str, inverse_of: Step | None = None,
           touched: Callable[[dict[str, Any]], dict[str, list[str]]] | None = None):
    """Register ``forward`` for ``entity.name``; ``inverse_of`` is its undo; ``touched(detail)``
    names the other kinds of entity it changes (a conflict action changes facts)."""

    def register(forward: Step) -> Step:
        ACTIONS[f"{entity}.{name}"] = Action(entity, name, forward, inverse_of, touched)
        return forward

    return register


@dataclass
class ChangeResult:
    """What a reviewer action changed: its entity and ids, other kinds it touched (with ids),
    the history rows it wrote, and a sentence for a person."""

    entity: str
    ids: list[str]
    history_ids: list[int] = field(default_factory=list)
    message: str = ""
    touched: dict[str, list[str]] = field(default_factory=dict)

    @property
    def kinds(self) -> frozenset[str]:
        """Every kind of entity this change touched (the history always)."""
        return frozenset({self.entity, "history", *self.touched})

    @property
    def changes(self) -> ChangeSet:
        """The typed change set the window routes (a kind name that is no ``Kind`` is refused)."""
        ids: dict[str, list[str]] = {self.entity: list(self.ids)}
        for kind, more in self.touched.items():  # an empty list of ids: any of that kind
            mine = ids.get(kind)
            ids[kind] = [] if mine == [] or not more else [*(mine or []), *more]
        return ChangeSet.of(ids, self.history_ids)

    def ids_of(self, kind: str) -> list[str]:
        if kind == self.entity:
            return list(self.ids)
        if kind == "history":
            return [str(h) for h in self.history_ids]
        return list(self.touched.get(kind, []))


def record(conn: Connection, *, key: str, entity_id: str, actor: str, reason: str, detail: dict[str, Any],
           before_id: str | None = None, after_id: str | None = None, undo_of: int | None = None,
           at: int | None = None) -> int:
    entity, name = key.split(".", 1)
    result = conn.execute(HISTORY.insert().values(
        entity=entity, entity_id=entity_id, before_id=before_id, after_id=after_id, action=name, actor=actor,
        reason=reason, at=now_s() if at is None else at,
        detail=json.dumps(detail, ensure_ascii=False, separators=(",", ":")), undo_of=undo_of))
    return int(result.inserted_primary_key[0])


def perform(ws: Workspace, conn: Connection, key: str, *, entity_id: str, actor: str, reason: str,
            detail: dict[str, Any], before_id: str | None = None, after_id: str | None = None) -> int:
    """Run an action's forward step and record it; returns the history id."""
    ACTIONS[key].forward(ws, conn, detail)
    return record(conn, key=key, entity_id=entity_id, actor=actor, reason=reason, detail=detail,
                  before_id=before_id, after_id=after_id)


def _row(conn: Connection, history_id: int):
    row = conn.execute(select(HISTORY).where(HISTORY.c.id == history_id)).first()
    if row is None:
        raise MemoryDeskError(f"history entry {history_id} does not exist")
    return row


def latest_undoable(conn: Connection) -> int | None:
    """The newest entry that is a change (or a redo) and has not been undone."""
    return conn.execute(select(HISTORY.c.id).where(and_(
        HISTORY.c.undone_by.is_(None), HISTORY.c.action != "undo", HISTORY.c.action != "purge"))
        .order_by(HISTORY.c.id.desc()).limit(1)).scalar()


def latest_redoable(conn: Connection) -> int | None:
    """The newest undo not yet redone, unless a new change was made after it (that ends redo)."""
    for row in conn.execute(select(HISTORY).order_by(HISTORY.c.id.desc())):
        if row.action == "redo" or (row.action == "undo" and row.undone_by is not None):
            continue
        return int(row.id) if row.action == "undo" else None
    return None


def undo(ws: Workspace, conn: Connection, history_id: int, actor: str, reason: str = "") -> ChangeResult:
    """Undo entry ``history_id``: invert a change, or re-apply the change an undo reverted."""
    row = _row(conn, history_id)
    if row.undone_by is not None:
        raise MemoryDeskError(f"history entry {history_id} was already undone (by entry {row.undone_by})")
    original = row
    while original.action in ("undo", "redo") and original.undo_of:
        original = _row(conn, original.undo_of)
    key = f"{original.entity}.{original.action}"
    act = ACTIONS.get(key)
    if act is None or act.inverse is None:
        raise MemoryDeskError(f"a {original.action} of a {original.entity} cannot be undone")
    detail = json.loads(original.detail)
    if row.action == "undo":
        act.forward(ws, conn, detail)
        name = "redo"
    else:
        act.inverse(ws, conn, detail)
        name = "undo"
    new_id = record(conn, key=f"{original.entity}.{name}", entity_id=original.entity_id, actor=actor,
                    reason=reason or f"{name} of entry {history_id}", detail={"of": history_id},
                    before_id=original.after_id, after_id=original.before_id, undo_of=history_id)
    conn.execute(HISTORY.update().where(HISTORY.c.id == history_id).values(undone_by=new_id))
    ids = list(dict.fromkeys(i for i in (original.entity_id, original.before_id, original.after_id) if i))
    touched = act.touched(detail) if act.touched is not None else {}
    return ChangeResult(original.entity, ids, [new_id], f"{name}: {original.action}", touched)


def entries(conn: Connection, entity: str | None = None, entity_id: str | None = None,
            limit: int = 500) -> list[dict[str, Any]]:
    query = select(HISTORY)
    if entity is not None:
        query = query.where(HISTORY.c.entity == entity)
    if entity_id is not None:
        query = query.where((HISTORY.c.entity_id == entity_id) | (HISTORY.c.before_id == entity_id)
                            | (HISTORY.c.after_id == entity_id))
    rows = conn.execute(query.order_by(HISTORY.c.id.desc()).limit(limit)).all()
    return [dict(r._mapping) for r in rows]


def read_entries(ws: Workspace, entity: str | None = None, entity_id: str | None = None) -> list[dict[str, Any]]:
    """History rows about an entity (newest first), their details decoded (one read)."""
    with ws.read() as conn:
        rows = entries(conn, entity, entity_id)
    for row in rows:
        row["detail"] = json.loads(row["detail"] or "{}")
    return rows
