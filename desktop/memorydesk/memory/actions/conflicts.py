"""The reviewer's conflict decisions, each a typed value (``reviewer_action``).

The product's conflict rows are never written: a person's decision is a change to the
facts' ``superseded_by`` (restore a loser, keep one fact of an open pair) and/or one row
in our ``memdesk_conflict_reviews`` table, carried whole in the history detail so undo
deletes it and redo puts back the same row. Each step checks that the facts are still
as the previous step left them (``StaleEdit`` otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from memorydesk.core.errors import StaleEdit
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.actions.facts import set_superseded
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


# -- restore the loser (docs/architecture.md, "What the desk does to memory") ------------------------------------------
@dataclass(frozen=True)
class RestoreLoser(ReviewerAction):
    """The loser of a resolved contradiction made active again, whatever happened to the winner
    since (``memory.actions.restore``): the fact it ``replaced`` — the winner's version in force, or
    none when the product deleted the winner — is superseded by it. Stores the facts, what they
    pointed at before and the review row; undone by pointing them back and deleting the review.

    Version 2 stores ``replaced``; a version 1 row (written before that choice) replaced the
    winner itself."""

    entity, name = "conflict", "restore_loser"
    version = 2
    conflict: str
    loser: str
    winner: str
    loser_before: str | None
    winner_before: str | None
    review: dict[str, Any] | None = None
    replaced: str | None = None
    says: Any = None  # what the plan told the person (kept for the history's reader)

    @classmethod
    def upgrade(cls, detail: dict[str, Any], version: int) -> dict[str, Any]:
        return {"replaced": detail.get("winner"), **detail}

    def forward(self, ws: Workspace, conn: Connection) -> None:
        set_superseded(ws, conn, self.loser, self.loser_before, None)
        if self.replaced:
            set_superseded(ws, conn, self.replaced, self.winner_before, self.loser)
        put_review(conn, self.review)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        drop_review(conn, self.review)
        if self.replaced:
            set_superseded(ws, conn, self.replaced, self.loser, self.winner_before)
        set_superseded(ws, conn, self.loser, None, self.loser_before)

    def touched(self) -> dict[str, list[str]]:
        return {"fact": list(dict.fromkeys([self.loser, self.winner, *([self.replaced] if self.replaced else [])]))}


# -- confirm a resolution, keep both: a review only --------------------------------------------------
@dataclass(frozen=True)
class ConfirmResolution(ReviewerAction):
    """A resolution confirmed: one review row (stored whole), deleted again by undo."""

    entity, name = "conflict", "confirm"
    conflict: str
    review: dict[str, Any] | None = None

    def forward(self, ws: Workspace, conn: Connection) -> None:
        put_review(conn, self.review)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        drop_review(conn, self.review)


@dataclass(frozen=True)
class KeepBoth(ConfirmResolution):
    """Both facts of an open pair kept: a review row only, as a confirmation is."""

    entity, name = "conflict", "keep_both"


# -- keep one fact of an open cross-agent pair ----------------------------------------------------
@dataclass(frozen=True)
class KeepFact(ReviewerAction):
    """One fact of an open cross-agent pair kept, the other superseded by it. Stores both and
    the review row; undone by making the other active again and deleting the review."""

    entity, name = "conflict", "keep"
    conflict: str
    kept: str
    dropped: str
    review: dict[str, Any]

    def forward(self, ws: Workspace, conn: Connection) -> None:
        set_superseded(ws, conn, self.dropped, None, self.kept)
        put_review(conn, self.review)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        drop_review(conn, self.review)
        set_superseded(ws, conn, self.dropped, self.kept, None)

    def touched(self) -> dict[str, list[str]]:
        return {"fact": [self.kept, self.dropped]}


# -- a burst reviewed together -------------------------------------------------------------------
@dataclass(frozen=True)
class ReviewBurst(ReviewerAction):
    """The conflicts one winner won, reviewed together: some losers made active again, a review
    row for each. Stores the restored losers (with what they pointed at) and the reviews;
    undone by deleting the reviews and pointing the losers back."""

    entity, name = "conflict", "review_burst"
    winner: str
    conflicts: list[str]
    restored: list[dict[str, Any]]
    reviews: list[dict[str, Any]]

    def forward(self, ws: Workspace, conn: Connection) -> None:
        for r in self.restored:
            set_superseded(ws, conn, r["loser"], r["loser_before"], None)
        for row in self.reviews:
            put_review(conn, row)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        for row in self.reviews:
            drop_review(conn, row)
        for r in self.restored:
            set_superseded(ws, conn, r["loser"], None, r["loser_before"])

    def touched(self) -> dict[str, list[str]]:
        return {"fact": [self.winner, *(r["loser"] for r in self.restored)]}
