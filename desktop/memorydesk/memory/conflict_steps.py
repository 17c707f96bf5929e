"""The forward and inverse steps of the reviewer's conflict actions (see ``history``).

The product's conflict rows are never written: a person's decision is a change to the
facts' ``superseded_by`` (restore a loser, keep one fact of an open pair) and/or one row
in our ``memdesk_conflict_reviews`` table, carried whole in the history detail so undo
deletes it and redo puts back the same row. Each step checks that the facts are still
as the previous step left them (``StaleEdit`` otherwise).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from memorydesk.core.errors import StaleEdit
from memorydesk.memory.history import action
from memorydesk.memory.reviewer_steps import set_superseded
from memorydesk.store import Workspace
from memorydesk.store.ours import DeskConflictReview

REVIEWS = DeskConflictReview.__table__


def put_review(conn: Connection, row: dict[str, Any] | None) -> None:
    if row is not None:
        conn.execute(REVIEWS.insert().values(**row))


def drop_review(conn: Connection, row: dict[str, Any] | None) -> None:
    if row is None:
        return
    done = conn.execute(REVIEWS.delete().where(REVIEWS.c.id == row["id"]))
    if done.rowcount != 1:
        raise StaleEdit(f"the review of conflict {row['conflict_id']} was removed since; nothing was changed")


# -- restore the loser (DESIGN.md section 5) -----------------------------------------------------
def _replaced(d: dict[str, Any]) -> str | None:
    """The fact the restore superseded: the winner's version in force, or none (a winner the
    product deleted). Rows written before that choice have no ``replaced``: the winner."""
    return d["replaced"] if "replaced" in d else d["winner"]


def _restore_loser_inverse(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    drop_review(conn, d.get("review"))
    if _replaced(d):
        set_superseded(ws, conn, _replaced(d), d["loser"], d["winner_before"])
    set_superseded(ws, conn, d["loser"], None, d["loser_before"])


def _pair_facts(d: dict[str, Any]) -> dict[str, list[str]]:
    return {"fact": list(dict.fromkeys([d["loser"], d["winner"], *([_replaced(d)] if _replaced(d) else [])]))}


@action("conflict", "restore_loser", inverse_of=_restore_loser_inverse, touched=_pair_facts)
def _restore_loser_forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    set_superseded(ws, conn, d["loser"], d["loser_before"], None)
    if _replaced(d):
        set_superseded(ws, conn, _replaced(d), d["winner_before"], d["loser"])
    put_review(conn, d.get("review"))


# -- confirm a resolution, keep both: a review only --------------------------------------------------
def _review_inverse(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    drop_review(conn, d.get("review"))


def _review_forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    put_review(conn, d.get("review"))


action("conflict", "confirm", inverse_of=_review_inverse)(_review_forward)
action("conflict", "keep_both", inverse_of=_review_inverse)(_review_forward)


# -- keep one fact of an open cross-agent pair ----------------------------------------------------
def _keep_inverse(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    drop_review(conn, d["review"])
    set_superseded(ws, conn, d["dropped"], d["kept"], None)


def _kept_facts(d: dict[str, Any]) -> dict[str, list[str]]:
    return {"fact": [d["kept"], d["dropped"]]}


@action("conflict", "keep", inverse_of=_keep_inverse, touched=_kept_facts)
def _keep_forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    set_superseded(ws, conn, d["dropped"], None, d["kept"])
    put_review(conn, d["review"])


# -- a burst reviewed together -------------------------------------------------------------------
def _burst_inverse(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    for row in d["reviews"]:
        drop_review(conn, row)
    for r in d["restored"]:
        set_superseded(ws, conn, r["loser"], None, r["loser_before"])


def _burst_facts(d: dict[str, Any]) -> dict[str, list[str]]:
    return {"fact": [d["winner"], *(r["loser"] for r in d["restored"])]}


@action("conflict", "review_burst", inverse_of=_burst_inverse, touched=_burst_facts)
def _burst_forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    for r in d["restored"]:
        set_superseded(ws, conn, r["loser"], r["loser_before"], None)
    for row in d["reviews"]:
        put_review(conn, row)
