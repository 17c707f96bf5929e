"""What a person decides about conflicts (docs/architecture.md, "What the desk does to memory"), as part of
``Reviewer``.

- **restore the loser** of a resolved contradiction, whatever happened to the winner since
  (``memory.actions.restore``): the loser becomes active again and the winner's version in force,
  when there is one, is superseded by it (a winner the product deleted changes nothing);
- **confirm** a resolution: recorded as reviewed, the rows stay as they are;
- **keep A / keep B** of an open cross-agent pair: the other fact is superseded by the
  kept one (no product conflict row is written);
- **keep both**: recorded as reviewed in our table, so the desk stops listing the pair
  as open; the product's rows are untouched;
- **review a burst** together: restore some of the facts one winner displaced, confirm
  the rest.

Each is one transaction with one history row (the decision rides in its detail) and is
undone by Edit ▸ Undo. A decision on facts that changed since is refused (``StaleEdit``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.memory.actions.conflicts import ConfirmResolution, KeepBoth, KeepFact, RestoreLoser, ReviewBurst
from memorydesk.memory.actions.restore import restore_plan
from memorydesk.memory.history.record import ChangeResult, perform
from memorydesk.memory.rows import fact_row, new_id, now_s
from memorydesk.store.retry import with_retry

if TYPE_CHECKING:
    from memorydesk.store import Workspace

CROSS_AGENT = "cross_agent"


def _state(superseded_by: str | None) -> str:
    return "active" if superseded_by is None else f"superseded by {superseded_by}"


class ConflictDecisions:
    """The conflict half of ``Reviewer`` (which supplies ``ws`` and ``actor``)."""

    ws: Workspace
    actor: str

    def restore_loser(self, conflict_id: str, reason: str = "") -> ChangeResult:
        def work(conn: Connection) -> ChangeResult:
            row = self._conflict(conn, conflict_id)
            if row.resolution is None and row.winning_fact_id is None:
                raise MemoryDeskError("this conflict is open: it has no loser to restore "
                                      "(keep A, keep B or keep both instead)")
            winner, loser = row.winning_fact_id or row.fact_b_id, row.fact_a_id
            loser_now = self._superseded(conn, loser)
            if loser_now != winner:
                raise StaleEdit(f"the loser {loser} is no longer superseded by the winner (it is now "
                                f"{_state(loser_now)}); nothing was changed")
            plan = restore_plan(conn, self.ws.layout, loser)  # whatever happened to the winner
            detail = {"conflict": conflict_id, "loser": loser, "winner": winner, "loser_before": loser_now,
                      "replaced": plan.replaces, "winner_before": None, "says": plan.says,
                      "review": self._review(row, "restored", reason)}
            hid = perform(self.ws, conn, RestoreLoser(**detail), entity_id=conflict_id, actor=self.actor,
                          reason=reason, before_id=plan.replaces, after_id=loser)
            done = f"; {plan.replaces[:8]}… superseded by it" if plan.replaces else " (nothing else changed)"
            return ChangeResult("conflict", [conflict_id], [hid], f"loser {loser[:8]}… restored{done}",
                                {"fact": plan.touched})

        return with_retry(self.ws, work)

    def confirm_conflict(self, conflict_id: str, reason: str = "") -> ChangeResult:
        def work(conn: Connection) -> ChangeResult:
            row = self._conflict(conn, conflict_id)
            if row.resolution is None and row.winning_fact_id is None:
                raise MemoryDeskError("this conflict is open: there is no resolution to confirm "
                                      "(keep A, keep B or keep both instead)")
            detail = {"conflict": conflict_id, "review": self._review(row, "confirmed", reason)}
            hid = perform(self.ws, conn, ConfirmResolution(**detail), entity_id=conflict_id, actor=self.actor,
                          reason=reason)
            return ChangeResult("conflict", [conflict_id], [hid], "resolution confirmed")

        return with_retry(self.ws, work)

    def keep_fact(self, conflict_id: str, keep: str, reason: str = "") -> ChangeResult:
        """Keep fact ``"a"`` or ``"b"`` of an open cross-agent conflict; the other is superseded by it."""
        if keep not in ("a", "b"):
            raise MemoryDeskError("keep must be 'a' or 'b'")

        def work(conn: Connection) -> ChangeResult:
            row = self._open_pair(conn, conflict_id)
            kept, dropped = (row.fact_a_id, row.fact_b_id) if keep == "a" else (row.fact_b_id, row.fact_a_id)
            for fid, what in ((kept, "kept"), (dropped, "other")):
                now = self._superseded(conn, fid)
                if now is not None:
                    raise StaleEdit(f"the {what} fact {fid} is no longer active (it is {_state(now)}); "
                                    "nothing was changed")
            detail = {"conflict": conflict_id, "kept": kept, "dropped": dropped,
                      "review": self._review(row, f"kept_{keep}", reason)}
            hid = perform(self.ws, conn, KeepFact(**detail), entity_id=conflict_id, actor=self.actor, reason=reason,
                          before_id=dropped, after_id=kept)
            return ChangeResult("conflict", [conflict_id], [hid],
                                f"kept {keep.upper()}; the other fact is superseded by it", {"fact": [kept, dropped]})

        return with_retry(self.ws, work)

    def keep_both(self, conflict_id: str, reason: str = "") -> ChangeResult:
        """Both facts of an open cross-agent conflict stay; the pair is recorded as reviewed."""
        def work(conn: Connection) -> ChangeResult:
            row = self._open_pair(conn, conflict_id)
            detail = {"conflict": conflict_id, "review": self._review(row, "kept_both", reason)}
            hid = perform(self.ws, conn, KeepBoth(**detail), entity_id=conflict_id, actor=self.actor, reason=reason)
            return ChangeResult("conflict", [conflict_id], [hid], "kept both; the pair is marked as reviewed")

        return with_retry(self.ws, work)

    def review_burst(self, winner: str, conflict_ids: Iterable[str], restore: Iterable[str] = (),
                     reason: str = "") -> ChangeResult:
        """Review the conflicts a burst's winner won: the losers of ``restore`` become active
        again (the winner stays: it displaced several facts, no one of them replaces it), the
        others are confirmed. One history row."""
        ids = list(dict.fromkeys(conflict_ids))
        chosen = set(restore)
        if not ids:
            raise MemoryDeskError("the burst has no conflicts to review")
        if not chosen <= set(ids):
            raise MemoryDeskError("only conflicts of the burst can be restored")

        def work(conn: Connection) -> ChangeResult:
            restored, reviews, losers = [], [], []
            for cid in ids:
                row = self._conflict(conn, cid)
                if (row.winning_fact_id or row.fact_b_id) != winner:
                    raise StaleEdit(f"conflict {cid} was not won by {winner}")
                if cid in chosen:
                    before = self._superseded(conn, row.fact_a_id)
                    if before != winner or row.fact_a_id in losers:
                        raise StaleEdit(f"fact {row.fact_a_id} is no longer superseded by the winner (it is "
                                        f"{_state(before)}); nothing was changed")
                    losers.append(row.fact_a_id)
                    restored.append({"conflict": cid, "loser": row.fact_a_id, "loser_before": before})
                reviews.append(self._review(row, "restored" if cid in chosen else "confirmed", reason))
            detail = {"winner": winner, "conflicts": ids, "restored": restored, "reviews": reviews}
            hid = perform(self.ws, conn, ReviewBurst(**detail), entity_id=winner, actor=self.actor, reason=reason)
            n = len(restored)
            return ChangeResult("conflict", ids, [hid], f"burst reviewed: {n} fact(s) restored, "
                                f"{len(ids) - n} confirmed", {"fact": [winner, *losers]})

        return with_retry(self.ws, work)

    # -- helpers -----------------------------------------------------------------------------------
    def _review(self, row: Any, decision: str, reason: str) -> dict[str, Any]:
        return {"id": new_id(), "conflict_id": row.id, "fact_a_id": row.fact_a_id, "fact_b_id": row.fact_b_id,
                "decision": decision, "actor": self.actor, "reason": reason, "at": now_s()}

    def _conflict(self, conn: Connection, conflict_id: str) -> Any:
        conflicts = self.ws.layout.conflicts
        row = conn.execute(select(conflicts).where(conflicts.c.id == conflict_id)).first()
        if row is None:
            raise MemoryDeskError(f"conflict {conflict_id} does not exist")
        return row

    def _open_pair(self, conn: Connection, conflict_id: str) -> Any:
        row = self._conflict(conn, conflict_id)
        if row.conflict_type != CROSS_AGENT or row.resolution is not None:
            raise MemoryDeskError("keep A, keep B and keep both are for open cross-agent conflicts; "
                                  "a resolved one can be confirmed or its loser restored")
        return row

    def _superseded(self, conn: Connection, fact_id: str) -> str | None:
        row = fact_row(conn, self.ws.layout, fact_id)
        if row is None:
            raise StaleEdit(f"fact {fact_id} no longer exists")
        return row.superseded_by
