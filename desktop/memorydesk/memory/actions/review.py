"""What a person does with a review finding (the Review tab), each one transaction with one
history row, undone by Edit ▸ Undo (notes and working-memory items: ``memory.actions.items``):

- **quarantine** a fact (soft-deleted with the sentinel ``human:quarantined``) or a policy
  (deactivated), with the finding as the reason; **release** puts it back;
- **merge** a duplicate cluster: every other member is superseded by the keeper the
  person picked (``superseded_by`` = keeper, as the product does); nothing new is made.
  Superseding the loser of a losing correction by the newer fact is the same step;
- **dismiss** a finding (or mark a losing correction **reviewed**): a row in
  ``memdesk_review_decisions`` that holds until the item changes (its fingerprint).

Purging a secret or personal data is the existing purge (``Reviewer.purge_facts``).
Steps check that rows are as the previous step left them (``StaleEdit`` otherwise).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from sqlalchemy import Connection, select

from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.memory.actions import items as reviewer_items
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.actions.decisions import DECISIONS, add_decision, decision_row, drop_decision, needs_reason
from memorydesk.memory.actions.facts import set_superseded
from memorydesk.memory.history.record import ChangeResult, perform
from memorydesk.store import Workspace
from memorydesk.store.retry import with_retry

QUARANTINED = "human:quarantined"


def _policy_active(ws: Workspace, conn: Connection, policy_id: str, expect: int, value: int) -> None:
    policies = ws.layout.policies
    row = conn.execute(select(policies.c.active).where(policies.c.id == policy_id)).first()
    if row is None:
        raise StaleEdit(f"policy {policy_id} no longer exists")
    if int(row.active or 0) != expect:
        raise StaleEdit(f"policy {policy_id} changed since; nothing was changed")
    conn.execute(policies.update().where(policies.c.id == policy_id).values(active=value))


@dataclass(frozen=True)
class _Finding(ReviewerAction):
    """An action on a review finding: it changes the finding's state in the Review tab too."""

    finding_key: str

    def touched(self) -> dict[str, list[str]]:
        return {"review": [self.finding_key]}


# -- quarantine and release ------------------------------------------------------------------------
@dataclass(frozen=True)
class _Quarantine(_Finding):
    """Take an item out of what agents get, with the decision row that says why. Stores the
    item and the decision; undone by putting the item back and dropping the decision."""

    id: str
    decision: dict[str, Any]
    finding: str = ""  # the finding's title

    def take_out(self, ws: Workspace, conn: Connection) -> None:
        raise NotImplementedError

    def put_back(self, ws: Workspace, conn: Connection) -> None:
        raise NotImplementedError

    def forward(self, ws: Workspace, conn: Connection) -> None:
        self.take_out(ws, conn)
        add_decision(conn, self.decision)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        self.put_back(ws, conn)
        drop_decision(conn, self.decision)


@dataclass(frozen=True)
class _Release(_Finding):
    """Put a quarantined item back (its decision row dropped); undone by quarantining it again."""

    id: str
    decision: dict[str, Any]
    quarantine: ClassVar[type[_Quarantine]]

    def _twin(self) -> _Quarantine:
        return self.quarantine(self.finding_key, self.id, self.decision)

    def forward(self, ws: Workspace, conn: Connection) -> None:
        self._twin().inverse(ws, conn)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        self._twin().forward(ws, conn)


@dataclass(frozen=True)
class QuarantineFact(_Quarantine):
    """A fact soft-deleted with the sentinel ``human:quarantined``."""

    entity, name = "fact", "quarantine"

    def take_out(self, ws: Workspace, conn: Connection) -> None:
        set_superseded(ws, conn, self.id, None, QUARANTINED)

    def put_back(self, ws: Workspace, conn: Connection) -> None:
        set_superseded(ws, conn, self.id, QUARANTINED, None)


@dataclass(frozen=True)
class QuarantinePolicy(_Quarantine):
    """A policy deactivated."""

    entity, name = "policy", "quarantine"

    def take_out(self, ws: Workspace, conn: Connection) -> None:
        _policy_active(ws, conn, self.id, 1, 0)

    def put_back(self, ws: Workspace, conn: Connection) -> None:
        _policy_active(ws, conn, self.id, 0, 1)


@dataclass(frozen=True)
class ReleaseFact(_Release):
    entity, name, quarantine = "fact", "release", QuarantineFact


@dataclass(frozen=True)
class ReleasePolicy(_Release):
    entity, name, quarantine = "policy", "release", QuarantinePolicy


# -- merge (and supersede the loser) ---------------------------------------------------------------
@dataclass(frozen=True)
class MergeFacts(_Finding):
    """Every other fact superseded by the keeper. Stores the keeper and the others; undone by
    making the others active again."""

    entity, name = "fact", "merge"
    keeper: str
    others: list[str]

    def forward(self, ws: Workspace, conn: Connection) -> None:
        for other in self.others:
            set_superseded(ws, conn, other, None, self.keeper)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        for other in self.others:
            set_superseded(ws, conn, other, self.keeper, None)


# -- dismiss ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DismissFinding(_Finding):
    """A decision row that keeps the finding out of the open queue until its item changes;
    undone by dropping it."""

    entity, name = "review", "dismiss"
    decision: dict[str, Any]

    def forward(self, ws: Workspace, conn: Connection) -> None:
        add_decision(conn, self.decision)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        drop_decision(conn, self.decision)


# -- the calls the Review tab makes ----------------------------------------------------------------
def quarantine(ws: Workspace, actor: str, finding: dict[str, Any], reason: str) -> ChangeResult:
    """Soft-delete the finding's fact, or deactivate its policy; the finding is the reason."""
    reason = needs_reason(reason)
    kind, item = finding["item_kind"], finding["item_id"]
    if kind in ("note", "working_item"):
        return reviewer_items.quarantine(ws, actor, finding, reason)
    if kind not in ("fact", "policy"):
        raise MemoryDeskError(f"a {kind.replace('_', ' ')} cannot be quarantined")

    def work(conn: Connection) -> ChangeResult:
        step = (QuarantineFact if kind == "fact" else QuarantinePolicy)(
            finding["key"], item, decision_row(actor, reason, finding, "quarantined"), finding.get("title", ""))
        hid = perform(ws, conn, step, entity_id=item, actor=actor, reason=reason)
        return ChangeResult(kind, [item], [hid], f"{kind} quarantined", {"review": [finding["key"]]})

    return with_retry(ws, work)


def release(ws: Workspace, actor: str, item_kind: str, item_id: str, reason: str) -> ChangeResult:
    """Put a quarantined fact, policy, note or working-memory item back."""
    reason = needs_reason(reason)
    if item_kind in ("note", "working_item"):
        return reviewer_items.release(ws, actor, item_kind, item_id, reason)

    def work(conn: Connection) -> ChangeResult:
        row = conn.execute(select(DECISIONS).where(DECISIONS.c.item_kind == item_kind, DECISIONS.c.item_id == item_id,
                                                   DECISIONS.c.decision == "quarantined")).first()
        if row is None:
            raise StaleEdit(f"{item_kind} {item_id} is not quarantined")
        step = (ReleaseFact if item_kind == "fact" else ReleasePolicy)(row.finding_key, item_id, dict(row._mapping))
        hid = perform(ws, conn, step, entity_id=item_id, actor=actor, reason=reason)
        return ChangeResult(item_kind, [item_id], [hid], f"{item_kind} released", {"review": [row.finding_key]})

    return with_retry(ws, work)


def merge(ws: Workspace, actor: str, keeper: str, others: Iterable[str], reason: str,
          finding_key: str = "") -> ChangeResult:
    """Supersede every fact in ``others`` by ``keeper`` (a duplicate cluster's merge, or the loser of a
    losing correction superseded by the newer fact)."""
    reason = needs_reason(reason)
    others = [o for o in dict.fromkeys(others) if o != keeper]
    if not others:
        raise MemoryDeskError("pick a keeper and at least one other fact")

    def work(conn: Connection) -> ChangeResult:
        hid = perform(ws, conn, MergeFacts(finding_key, keeper, others), entity_id=keeper, actor=actor, reason=reason)
        return ChangeResult("fact", [keeper, *others], [hid], f"{len(others)} fact(s) superseded by the keeper",
                            {"review": [finding_key]})

    return with_retry(ws, work)


def dismiss(ws: Workspace, actor: str, finding: dict[str, Any], reason: str, *, reviewed: bool = False) -> ChangeResult:
    """Keep the finding out of the open queue until its item changes."""
    reason = needs_reason(reason)

    def work(conn: Connection) -> ChangeResult:
        decision = decision_row(actor, reason, finding, "reviewed" if reviewed else "dismissed")
        step = DismissFinding(finding["key"], decision)
        hid = perform(ws, conn, step, entity_id=finding["key"], actor=actor, reason=reason)
        return ChangeResult("review", [finding["key"]], [hid], "marked reviewed" if reviewed else "finding dismissed")

    return with_retry(ws, work)
