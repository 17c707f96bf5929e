"""The forward and inverse steps of every reviewer action (see ``history``).

Each step checks that the rows are still as the previous step left them, so an undo
never overwrites what an agent changed in the meantime: it is refused with
``StaleEdit`` instead.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import StaleEdit
from memorydesk.memory.history import action
from memorydesk.memory.purge import erase_rows
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
def _edit_inverse(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    set_superseded(ws, conn, d["new_id"], None, UNDONE)
    set_superseded(ws, conn, d["old_id"], d["new_id"], None)


@action("fact", "edit", inverse_of=_edit_inverse)
def _edit_forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    set_superseded(ws, conn, d["old_id"], None, d["new_id"])
    if fact_row(conn, ws.layout, d["new_id"]) is None:
        row = dict(d["new_row"])
        insert_fact(conn, ws.layout, row, vectors=ws.has_vectors)
    else:
        set_superseded(ws, conn, d["new_id"], UNDONE, None)


def _delete_inverse(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    set_superseded(ws, conn, d["id"], DELETED, d.get("before"))


@action("fact", "delete", inverse_of=_delete_inverse)
def _delete_forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    set_superseded(ws, conn, d["id"], d.get("before"), DELETED)


def _restore_inverse(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    if d.get("replaces"):
        set_superseded(ws, conn, d["replaces"], d["id"], None)
    set_superseded(ws, conn, d["id"], d.get("before"), d.get("was", DELETED))


def _restored_facts(d: dict[str, Any]) -> dict[str, list[str]]:
    return {"fact": [d["id"], *([d["replaces"]] if d.get("replaces") else [])]}


@action("fact", "restore", inverse_of=_restore_inverse, touched=_restored_facts)
def _restore_forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    """Active again (``memory.restore``): from a delete (rows written before restores of superseded
    facts have no ``was``), a sentinel, or a supersession; the version in force it ``replaces``
    is superseded by it."""
    set_superseded(ws, conn, d["id"], d.get("was", DELETED), d.get("before"))
    if d.get("replaces"):
        set_superseded(ws, conn, d["replaces"], None, d["id"])


@action("fact", "purge")
def _purge_forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    """Delete the facts (their FTS entries go by trigger) and everything that quotes them."""
    erase_rows(conn, ws.layout, d["ids"], vectors=ws.has_vectors)


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


def _policy_edit_inverse(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    _set_active(ws, conn, d["new_id"], 1, 0)
    _set_active(ws, conn, d["old_id"], 0, d.get("old_active", 1))


@action("policy", "edit", inverse_of=_policy_edit_inverse)
def _policy_edit_forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    _set_active(ws, conn, d["old_id"], d.get("old_active", 1), 0)
    if _policy(ws, conn, d["new_id"]) is None:
        conn.execute(ws.layout.policies.insert().values(**d["new_row"]))
    else:
        _set_active(ws, conn, d["new_id"], 0, 1)


def _policy_delete_inverse(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    conn.execute(ws.layout.policies.insert().values(**d["row"]))


@action("policy", "delete", inverse_of=_policy_delete_inverse)
def _policy_delete_forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    policies = ws.layout.policies
    conn.execute(policies.delete().where(policies.c.id == d["row"]["id"]))


def _activate_inverse(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    _set_active(ws, conn, d["id"], d["after"], d["before"])


@action("policy", "activate", inverse_of=_activate_inverse)
def _activate_forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    _set_active(ws, conn, d["id"], d["before"], d["after"])
