"""The reviewer's actions on facts and policies, each a typed value (``reviewer_action``):
what it stores to undo, how it is done, how it is undone.

Each step checks that the rows are still as the previous step left them, so an undo
never overwrites what an agent changed in the meantime: it is refused with
``StaleEdit`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import StaleEdit
from memorydesk.memory.actions.base import ReviewerAction
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


# -- facts ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _CountsChange(ReviewerAction):
    """Facts and policies are counted per domain (the grants tab shows the counts); which
    domains an undo changes is not stored, so it names the kind without ids (any)."""

    def touched(self) -> dict[str, list[str]]:
        return {"domain": []}


@dataclass(frozen=True)
class EditFact(_CountsChange):
    """A fact superseded by a new version the person wrote. Stores both ids and the new row;
    undone by marking the new version undone and making the old one active again (redo
    makes the new one active again)."""

    entity, name = "fact", "edit"
    old_id: str
    new_id: str
    new_row: dict[str, Any]

    def forward(self, ws: Workspace, conn: Connection) -> None:
        set_superseded(ws, conn, self.old_id, None, self.new_id)
        if fact_row(conn, ws.layout, self.new_id) is None:
            insert_fact(conn, ws.layout, dict(self.new_row), vectors=ws.has_vectors)
        else:
            set_superseded(ws, conn, self.new_id, UNDONE, None)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        set_superseded(ws, conn, self.new_id, None, UNDONE)
        set_superseded(ws, conn, self.old_id, self.new_id, None)


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
    """A policy replaced by a new version (the old one deactivated). Stores both ids, the new
    row and whether the old one was active; undone by deactivating the new one and
    giving the old one its state back."""

    entity, name = "policy", "edit"
    old_id: str
    new_id: str
    new_row: dict[str, Any]
    old_active: int = 1

    def forward(self, ws: Workspace, conn: Connection) -> None:
        _set_active(ws, conn, self.old_id, self.old_active, 0)
        if _policy(ws, conn, self.new_id) is None:
            conn.execute(ws.layout.policies.insert().values(**self.new_row))
        else:
            _set_active(ws, conn, self.new_id, 0, 1)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        _set_active(ws, conn, self.new_id, 1, 0)
        _set_active(ws, conn, self.old_id, 0, self.old_active)


@dataclass(frozen=True)
class DeletePolicy(_CountsChange):
    """A policy row deleted. Stores the whole row; undone by inserting it again."""

    entity, name = "policy", "delete"
    row: dict[str, Any]

    def forward(self, ws: Workspace, conn: Connection) -> None:
        policies = ws.layout.policies
        conn.execute(policies.delete().where(policies.c.id == self.row["id"]))

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        conn.execute(ws.layout.policies.insert().values(**self.row))


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
