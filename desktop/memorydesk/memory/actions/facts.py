"""The reviewer's actions on facts and policies, each a typed value (``reviewer_action``):
what it stores to undo, how it is done, how it is undone.

Each step checks that the rows are still as the previous step left them, so an undo
never overwrites what an agent changed in the meantime: it is refused with
``StaleEdit`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import StaleEdit
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.history.record import note_move
from memorydesk.memory.rows import fact_row, insert_fact
from memorydesk.store import Workspace

DELETED = "human:deleted"
UNDONE = "human:undone"


def set_superseded(ws: Workspace, conn: Connection, fact_id: str, expect: str | None, value: str | None) -> None:
    """Point ``fact_id`` at ``value``, refusing (``StaleEdit``) unless it points at ``expect`` now."""
    facts = ws.layout.facts
    row = fact_row(conn, ws.layout, fact_id)
    if row is None:
        raise StaleEdit(f"fact {fact_id} no longer exists")
    if row.superseded_by != expect:
        state = "active" if row.superseded_by is None else f"superseded by {row.superseded_by}"
        raise StaleEdit(f"fact {fact_id} changed since (it is now {state}); nothing was changed")
    conn.execute(facts.update().where(facts.c.id == fact_id).values(superseded_by=value))
    note_move(conn, fact_id, expect, value)


# -- facts ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _CountsChange(ReviewerAction):
    """Facts and policies are counted per domain (the grants tab shows the counts); which
    domains an undo changes is not stored, so it names the kind without ids (any)."""

    def touched(self) -> dict[str, list[str]]:
        return {"domain": []}


def store_vector(ws: Workspace, conn: Connection, fact_id: str, vector: tuple[bytes, bytes | None]) -> None:
    """A fact's ``embedding`` and ``binary_embedding``, and our index row (a malformed blob is kept, not indexed)."""
    from memorydesk.embedding.embedder import BLOB_BYTES
    from memorydesk.store.vectors import put_vector

    facts = ws.layout.facts
    conn.execute(facts.update().where(facts.c.id == fact_id).values(embedding=vector[0], binary_embedding=vector[1]))
    if ws.has_vectors and len(vector[0]) == BLOB_BYTES:
        put_vector(conn, fact_id, vector[0])


@dataclass(frozen=True)
class EditFact(_CountsChange):
    """A fact superseded by a new version the person wrote. Stores both ids and the new row.
    Undone by making the old one active again and removing the new version, after checking
    nothing was written to it or about it since, so the file is as it was (``removes``; rows
    written before version 2 mark the new version undone instead, and still do). Redo
    inserts it again, with the old one's vector when the text is the same, else its own
    (``vector``, computed before the first run and not stored — False: none, the model was not
    ready; a redo embeds again)."""

    entity, name = "fact", "edit"
    version = 2
    old_id: str
    new_id: str
    new_row: dict[str, Any]
    removes: bool = False
    vector: tuple[bytes, bytes | None] | bool | None = field(default=None, compare=False)

    def to_detail(self) -> dict[str, Any]:
        return {"v": self.version, **{f.name: getattr(self, f.name) for f in fields(self) if f.name != "vector"}}

    def forward(self, ws: Workspace, conn: Connection) -> None:
        set_superseded(ws, conn, self.old_id, None, self.new_id)
        if fact_row(conn, ws.layout, self.new_id) is None:
            insert_fact(conn, ws.layout, dict(self.new_row), vectors=ws.has_vectors)
            if self.removes:  # (rows before version 2 stored their vector apart, and kept the new version)
                vector = self._vector(ws, conn) if self.vector is None else self.vector
                if isinstance(vector, tuple):
                    store_vector(ws, conn, self.new_id, vector)
        else:
            set_superseded(ws, conn, self.new_id, UNDONE, None)

    def _vector(self, ws: Workspace, conn: Connection) -> tuple[bytes, bytes | None] | None:
        """The new version's vector on a redo: the old one's for the same text, else embedded again."""
        from memorydesk.embedding.embedder import fact_text, fact_vectors

        old = fact_row(conn, ws.layout, self.old_id)
        same = old is not None and (old.topic, old.content) == (self.new_row["topic"], self.new_row["content"])
        if same and old.embedding is not None:
            return bytes(old.embedding), old.binary_embedding
        return fact_vectors([fact_text(self.new_row["topic"], self.new_row["content"])])[0]

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        if not self.removes:
            set_superseded(ws, conn, self.new_id, None, UNDONE)
            set_superseded(ws, conn, self.old_id, self.new_id, None)
            return
        row = fact_row(conn, ws.layout, self.new_id)
        kept = {k: v for k, v in self.new_row.items() if k not in ("embedding", "binary_embedding")}
        if row is None or row.superseded_by is not None or {k: getattr(row, k) for k in kept} != kept:
            raise StaleEdit(f"the new version {self.new_id} changed since it was written; nothing was changed")
        if _named_since(ws, conn, self.new_id, self.old_id):
            raise StaleEdit(f"an agent wrote about the new version {self.new_id} since (a link, a conflict or a "
                            "supersession names it); nothing was changed")
        set_superseded(ws, conn, self.old_id, self.new_id, None)
        conn.execute(ws.layout.facts.delete().where(ws.layout.facts.c.id == self.new_id))
        if ws.has_vectors:
            from memorydesk.store.vectors import drop_vectors

            drop_vectors(conn, [self.new_id])


def _named_since(ws: Workspace, conn: Connection, fact_id: str, old_id: str) -> bool:
    """Whether another row names ``fact_id`` (an edge, a conflict, another fact's supersession)."""
    f, e, c = ws.layout.facts, ws.layout.edges, ws.layout.conflicts
    checks = (select(f.c.id).where(f.c.superseded_by == fact_id, f.c.id != old_id),
              select(e.c.id).where((e.c.source_fact_id == fact_id) | (e.c.target_fact_id == fact_id)),
              select(c.c.id).where((c.c.fact_a_id == fact_id) | (c.c.fact_b_id == fact_id)))
    return any(conn.execute(q.limit(1)).first() is not None for q in checks)


@dataclass(frozen=True)
class DeleteFact(_CountsChange):
    """A soft delete (``superseded_by = 'human:deleted'``). Stores the id and what it pointed at
    before; undone by pointing it back."""

    entity, name = "fact", "delete"
    id: str
    before: str | None = None

    def forward(self, ws: Workspace, conn: Connection) -> None:
        set_superseded(ws, conn, self.id, self.before, DELETED)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        set_superseded(ws, conn, self.id, DELETED, self.before)


@dataclass(frozen=True)
class RestoreFact(_CountsChange):
    """A fact made active again, whatever replaced it (``memory.actions.restore``): a delete, a
    sentinel or a supersession (``was``: what its ``superseded_by`` held; rows written before
    restores of superseded facts have none: a delete). The version in force it ``replaces``,
    if any, is superseded by it. Undone by pointing both back."""

    entity, name = "fact", "restore"
    id: str
    before: str | None = None
    was: str | None = DELETED
    replaces: str | None = None

    def forward(self, ws: Workspace, conn: Connection) -> None:
        set_superseded(ws, conn, self.id, self.was, self.before)
        if self.replaces:
            set_superseded(ws, conn, self.replaces, None, self.id)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        if self.replaces:
            set_superseded(ws, conn, self.replaces, self.id, None)
        set_superseded(ws, conn, self.id, self.before, self.was)

    def touched(self) -> dict[str, list[str]]:
        return {"fact": [self.id, *([self.replaces] if self.replaces else [])], **super().touched()}


# -- policies ------------------------------------------------------------------------------------
def _policy(ws: Workspace, conn: Connection, policy_id: str):
    policies = ws.layout.policies
    return conn.execute(select(policies).where(policies.c.id == policy_id)).first()


def _set_active(ws: Workspace, conn: Connection, policy_id: str, expect: int | None, value: int) -> None:
    row = _policy(ws, conn, policy_id)
    if row is None:
        raise StaleEdit(f"policy {policy_id} no longer exists")
    if expect is not None and row.active != expect:
        raise StaleEdit(f"policy {policy_id} changed since; nothing was changed")
    policies = ws.layout.policies
    conn.execute(policies.update().where(policies.c.id == policy_id).values(active=value))


@dataclass(frozen=True)
class EditPolicy(_CountsChange):
    """A policy replaced by a new version (the old one deactivated; the new one as active as
    the old one was). Stores both ids, the new row and whether the old one was active.
    Undone by removing the new version, after checking it is still as written, and giving the
    old one its state back, so the file is as it was (``removes``; rows written before version 2
    deactivated the new version instead, and still do); redo inserts it again."""

    entity, name = "policy", "edit"
    version = 2
    old_id: str
    new_id: str
    new_row: dict[str, Any]
    old_active: int = 1
    removes: bool = False

    def forward(self, ws: Workspace, conn: Connection) -> None:
        _set_active(ws, conn, self.old_id, self.old_active, 0)
        if _policy(ws, conn, self.new_id) is None:
            conn.execute(ws.layout.policies.insert().values(**self.new_row))
        else:
            _set_active(ws, conn, self.new_id, 0, 1)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        if self.removes:
            row = _policy(ws, conn, self.new_id)
            if row is None or {k: getattr(row, k) for k in self.new_row} != self.new_row:
                raise StaleEdit(f"policy {self.new_id} changed since it was written; nothing was changed")
            conn.execute(ws.layout.policies.delete().where(ws.layout.policies.c.id == self.new_id))
        else:
            _set_active(ws, conn, self.new_id, 1, 0)
        _set_active(ws, conn, self.old_id, 0, self.old_active)


@dataclass(frozen=True)
class DeletePolicy(_CountsChange):
    """A policy row deleted. Stores the whole row and its rowid; undone by inserting it again
    exactly — at its rowid too, as an edge's undo does (rows an older build wrote without a
    rowid get a new one)."""

    entity, name = "policy", "delete"
    row: dict[str, Any]
    rowid: int | None = None

    def forward(self, ws: Workspace, conn: Connection) -> None:
        policies = ws.layout.policies
        conn.execute(policies.delete().where(policies.c.id == self.row["id"]))

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        table = ws.layout.policies.name
        if self.rowid is None:
            conn.execute(ws.layout.policies.insert().values(**self.row))
            return
        if conn.exec_driver_sql(f"SELECT 1 FROM {table} WHERE rowid = ? OR id = ?",
                                (self.rowid, self.row["id"])).first() is not None:
            raise StaleEdit(f"policy {self.row['id']} (or its place in the table) was written again since; "
                            "nothing was changed")
        names = ["rowid", *(f'"{k}"' for k in self.row)]
        conn.exec_driver_sql(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                             (self.rowid, *self.row.values()))


@dataclass(frozen=True)
class SetPolicyActive(_CountsChange):
    """A policy activated or deactivated. Stores its state before and after; undone by setting
    the state before again."""

    entity, name = "policy", "activate"
    id: str
    before: int
    after: int

    def forward(self, ws: Workspace, conn: Connection) -> None:
        _set_active(ws, conn, self.id, self.before, self.after)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        _set_active(ws, conn, self.id, self.after, self.before)
