"""The change history: one ``memdesk_history`` row per change, written in the same
transaction as the change, and the undo machinery over it (docs/architecture.md, "The
undo model").

Every reviewer action is a typed value (``memory.actions.base.ReviewerAction``, listed in
``memory.actions.registry.ACTIONS``) whose fields are the row's ``detail``. Doing it (``perform``) runs its
``forward`` and records it; undoing it (``undo.undo_entry``) reads the row back into its
type, runs ``inverse`` and records an ``undo`` entry (itself a history row); undoing that
undo (redo) runs ``forward`` again and records a ``redo`` entry.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, and_, select

from memorydesk.core.changes import ChangeSet
from memorydesk.core.errors import MemoryDeskError
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.rows import now_s
from memorydesk.store import Workspace
from memorydesk.store.ours import DeskHistory

HISTORY = DeskHistory.__table__
_MOVES = "memdesk_moves"  # in ``Connection.info`` while an action runs: the supersessions it made


def note_move(conn: Connection, fact_id: str, before: str | None, after: str | None) -> None:
    """A fact's ``superseded_by`` went from ``before`` to ``after`` (``set_superseded`` says so):
    the history row of the step under way keeps it (``moves``), so that *as of* an earlier
    time the desk's own changes can be applied backwards (``browse.history.as_of``)."""
    moves = conn.info.get(_MOVES)
    if moves is not None:
        moves.append([fact_id, before, after])


def moving(conn: Connection, step: Callable[[], None]) -> list[list[Any]]:
    """Run ``step`` and return the supersessions it made (``note_move``)."""
    conn.info[_MOVES] = []
    try:
        step()
    finally:
        moves = conn.info.pop(_MOVES, [])
    return moves


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


def perform(ws: Workspace, conn: Connection, act: ReviewerAction, *, entity_id: str, actor: str,
            reason: str, before_id: str | None = None, after_id: str | None = None,
            batch: str | None = None) -> int:
    """Do ``act`` (its ``forward``) and record it with what it stores to undo; the history id.

    ``batch``: one action of a person that writes an entry per item (a delete of several
    facts) marks them all with it, and Edit ▸ Undo takes them back together (``batches``); the
    supersessions the step made are kept with it (``moves``)."""
    moves = moving(conn, lambda: act.forward(ws, conn))  # first: a step may fill in what it stores
    stored = {**act.to_detail(), **({"batch": batch} if batch else {}), **({"moves": moves} if moves else {})}
    return record(conn, key=act.key(), entity_id=entity_id, actor=actor, reason=reason, detail=stored,
                  before_id=before_id, after_id=after_id)


def row_of(conn: Connection, history_id: int):
    row = conn.execute(select(HISTORY).where(HISTORY.c.id == history_id)).first()
    if row is None:
        raise MemoryDeskError(f"history entry {history_id} does not exist")
    return row


#: history rows that record something without changing memory (a forget receipt): Undo and Redo pass them by
RECORDS = ("forget",)


def latest_undoable(conn: Connection) -> int | None:
    """The newest entry that is a change (or a redo) and has not been undone."""
    return conn.execute(select(HISTORY.c.id).where(and_(
        HISTORY.c.undone_by.is_(None), HISTORY.c.action != "undo", HISTORY.c.action != "purge",
        HISTORY.c.entity.not_in(RECORDS)))
        .order_by(HISTORY.c.id.desc()).limit(1)).scalar()


def latest_redoable(conn: Connection) -> int | None:
    """The newest undo not yet redone, unless a new change was made after it (that ends redo)."""
    for row in conn.execute(select(HISTORY).order_by(HISTORY.c.id.desc())):
        if row.action == "redo" or (row.action == "undo" and row.undone_by is not None) or row.entity in RECORDS:
            continue
        return int(row.id) if row.action == "undo" else None
    return None


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


@dataclass(frozen=True)
class HistoryEntry:
    """One row of the desk's history, its detail decoded, as the detail panes list it."""

    id: int
    entity: str
    entity_id: str
    before_id: str | None
    after_id: str | None
    action: str
    actor: str
    reason: str
    at: int
    detail: dict[str, Any]
    undo_of: int | None
    undone_by: int | None


def history_entries(ws: Workspace, entity: str | None = None, entity_id: str | None = None) -> list[HistoryEntry]:
    """History rows about an entity (newest first), their details decoded (one read)."""
    with ws.read() as conn:
        rows = entries(conn, entity, entity_id)
    return [HistoryEntry(**{**row, "detail": json.loads(row["detail"] or "{}")}) for row in rows]


def read_entries(ws: Workspace, entity: str | None = None, entity_id: str | None = None) -> list[dict[str, Any]]:
    """``history_entries`` as row dicts (column → value)."""
    return [dataclasses.asdict(e) for e in history_entries(ws, entity, entity_id)]
