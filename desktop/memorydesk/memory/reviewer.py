"""The reviewer side: what people do to memory from the desk (docs/architecture.md, "What the desk does to memory").

Every method is one transaction that changes the rows and writes the history row
together, and returns a ``ChangeResult`` saying what changed. Edits supersede
(a new fact, the person named in the history, the author left empty); deletes are
soft (``superseded_by = 'human:deleted'``); purge removes the text for good.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.core.product.vocab import MemoryType
from memorydesk.embedding.embedder import Embedder, fact_text, fact_vectors
from memorydesk.memory.actions import edges as reviewer_edges
from memorydesk.memory.actions import review as reviewer_review
from memorydesk.memory.actions.conflict_decisions import ConflictDecisions
from memorydesk.memory.actions.facts import DELETED, DeleteFact, DeletePolicy, EditFact, EditPolicy, SetPolicyActive
from memorydesk.memory.actions.forget import keep_receipt
from memorydesk.memory.actions.grant_edits import GrantEdits
from memorydesk.memory.actions.purge import BackupAction, purge
from memorydesk.memory.actions.purge_items import purge_items
from memorydesk.memory.actions.restore import restore_facts
from memorydesk.memory.actions.restore_backup import restore_row
from memorydesk.memory.history import batches
from memorydesk.memory.history import record as history
from memorydesk.memory.history.record import ChangeResult, perform
from memorydesk.memory.history.undo import undo_entry
from memorydesk.memory.rows import fact_row, new_id, now_s
from memorydesk.store import Workspace
from memorydesk.store.retry import with_retry

__all__ = ["DELETED", "Reviewer"]


class Reviewer(ConflictDecisions, GrantEdits):
    """Reviewer actions on one workspace, attributed to ``actor`` (a person's name).

    Conflict decisions (restore the loser, confirm, keep A/B/both, review a burst) are in
    ``reviewer_conflicts``; grant edits (cells, rows, lock-down, fixes) in ``reviewer_grants``."""

    def __init__(self, ws: Workspace, actor: str, embedder: Embedder | None | bool = None) -> None:
        self.ws = ws
        self.actor = actor
        self._embedder = embedder

    # -- facts -----------------------------------------------------------------------------------
    def edit_fact(self, fact_id: str, *, domain: str, topic: str, content: str, confidence: float,
                  reason: str = "", expected_updated_at: int | None = None,
                  memory_type: str | None = None) -> ChangeResult:
        """A new version with the values given, stored exactly as given (the edit dialog hands
        back a field the person did not change exactly as it was); every other field is kept
        (type, sources, validity, tags, mentions; the vector too when topic and content are the
        same), except what marks a person's edit: veracity ``stated``, no author agent or role.
        ``memory_type`` changes the type (None: kept)."""
        if memory_type is not None and memory_type not in {t.value for t in MemoryType}:
            raise MemoryDeskError(f"not a memory type: {memory_type!r}; choose from "
                                  f"{', '.join(t.value for t in MemoryType)}")
        if not (domain.strip() and topic.strip() and content.strip()):
            raise MemoryDeskError("domain, topic and content must not be empty")
        if not 0.0 <= confidence <= 1.0:
            raise MemoryDeskError("confidence must be between 0 and 1")
        vector = fact_vectors([fact_text(topic, content)], self._embedder)[0]

        def work(conn: Connection) -> ChangeResult:
            old = fact_row(conn, self.ws.layout, fact_id)
            if old is None:
                raise StaleEdit(f"fact {fact_id} no longer exists")
            if old.superseded_by is not None:
                raise StaleEdit(f"fact {fact_id} was superseded by {old.superseded_by} since you opened it; "
                                "edit the current version instead")
            if expected_updated_at is not None and old.updated_at != expected_updated_at:
                raise StaleEdit(f"an agent changed fact {fact_id} since you opened it; reload and edit again")
            now = now_s()
            same_text = (old.topic, old.content) == (topic, content)
            new_row: dict[str, Any] = {
                "id": new_id(), "workspace_id": old.workspace_id, "domain": domain, "topic": topic,
                "content": content, "source_observation_ids": old.source_observation_ids,
                "confidence": confidence, "authored_by_agent_id": None, "authored_by_role": None,
                "memory_type": memory_type or old.memory_type, "veracity": "stated", "valid_until": old.valid_until,
                "temporal_tags": old.temporal_tags, "mention_count": old.mention_count, "created_at": now,
                "updated_at": now, "embedding": None, "binary_embedding": None,
            }
            # the same text keeps its vector exactly; a new text gets its own (none without the model)
            kept = (bytes(old.embedding), old.binary_embedding) if same_text and old.embedding is not None else vector
            hid = perform(self.ws, conn, EditFact(fact_id, new_row["id"], new_row, removes=True, vector=kept or False),
                          entity_id=fact_id, actor=self.actor, reason=reason, before_id=fact_id,
                          after_id=new_row["id"])
            return ChangeResult("fact", [fact_id, new_row["id"]], [hid], "fact edited (superseded)",
                                {"domain": list(dict.fromkeys((old.domain, domain)))})  # their counts

        return with_retry(self.ws, work)

    def _each_fact(self, act: type[DeleteFact], ids: Iterable[str], reason: str,
                   message: str) -> ChangeResult:
        ids = list(dict.fromkeys(ids))

        def work(conn: Connection) -> ChangeResult:
            batch = batches.new_batch() if len(ids) > 1 else None  # one Undo takes them all back
            hids = [perform(self.ws, conn, act(fid), entity_id=fid, actor=self.actor, reason=reason, batch=batch)
                    for fid in ids]
            return ChangeResult("fact", ids, hids, message.format(n=len(ids)), {"domain": _domains(self.ws, conn, ids)})

        return with_retry(self.ws, work)

    def delete_facts(self, ids: Iterable[str], reason: str = "") -> ChangeResult:
        return self._each_fact(DeleteFact, ids, reason, "{n} fact(s) deleted")

    def restore_facts(self, ids: Iterable[str], reason: str = "") -> ChangeResult:
        """Active again, whatever replaced them (``memory.actions.restore``): a deleted fact, a fact set
        aside by a sentinel, or a superseded one (the version in force of what replaced it is
        superseded by it; nothing else when that is gone)."""
        return restore_facts(self.ws, self.actor, ids, reason)

    def restore_from_backup(self, source: str | Path, kind: str, item_id: str, reason: str = "") -> ChangeResult:
        """Fact or policy ``item_id`` put back as ``source`` (a backup) holds it (``memory.actions.restore_backup``)."""
        return restore_row(self.ws, self.actor, source, kind, item_id, reason)

    def purge_facts(self, ids: Iterable[str], reason: str = "", *, backups: BackupAction = "keep") -> ChangeResult:
        """Remove the facts, their earlier versions and every copy of their text. Not undoable.

        Edges, conflicts and beliefs that name them go too. The write-ahead log is emptied
        (or the erase is left pending, and the message says why); backups beside the file
        that hold the text are kept, erased or deleted as ``backups`` says (``memory.actions.purge``)."""
        outcome = purge(self.ws, self.actor, ids, reason, backups=backups)
        change = outcome.change or ChangeResult("fact", [], [], "")
        change.message = "; ".join(outcome.lines())
        return change

    # -- policies --------------------------------------------------------------------------------
    def edit_policy(self, policy_id: str, *, domain: str, rule: str, required_role: str | None,
                    reason: str = "") -> ChangeResult:
        """A new version with the values given (stored as given), active as the old one was; the
        old one retired. Undo removes the new version and gives the old one its state back."""
        if not rule.strip() or not domain.strip():
            raise MemoryDeskError("domain and rule must not be empty")

        def work(conn: Connection) -> ChangeResult:
            old = self._policy(conn, policy_id)
            now = now_s()
            new_row = {"id": new_id(), "workspace_id": old.workspace_id, "domain": domain,
                       "rule": rule, "source_fact_ids": old.source_fact_ids,
                       "required_role": required_role, "active": old.active, "created_at": now, "updated_at": now}
            hid = perform(self.ws, conn, EditPolicy(policy_id, new_row["id"], new_row, old.active, removes=True),
                          entity_id=policy_id, actor=self.actor, reason=reason, before_id=policy_id,
                          after_id=new_row["id"])
            return ChangeResult("policy", [policy_id, new_row["id"]], [hid], "policy edited (superseded)",
                                {"domain": list(dict.fromkeys((old.domain, new_row["domain"])))})

        return with_retry(self.ws, work)

    def delete_policy(self, policy_id: str, reason: str = "") -> ChangeResult:
        def work(conn: Connection) -> ChangeResult:
            row = dict(self._policy(conn, policy_id)._mapping)
            rowid = conn.exec_driver_sql(f"SELECT rowid FROM {self.ws.layout.policies.name} WHERE id = ?",
                                         (policy_id,)).scalar()
            hid = perform(self.ws, conn, DeletePolicy(row, rowid), entity_id=policy_id, actor=self.actor,
                          reason=reason)
            return ChangeResult("policy", [policy_id], [hid], "policy deleted", {"domain": [row["domain"]]})

        return with_retry(self.ws, work)

    def set_policy_active(self, policy_id: str, active: bool, reason: str = "") -> ChangeResult:
        def work(conn: Connection) -> ChangeResult:
            row = self._policy(conn, policy_id)
            hid = perform(self.ws, conn, SetPolicyActive(policy_id, row.active, int(active)), entity_id=policy_id,
                          actor=self.actor, reason=reason)
            return ChangeResult("policy", [policy_id], [hid], "policy activated" if active else "policy deactivated",
                                {"domain": [row.domain]})

        return with_retry(self.ws, work)

    def _policy(self, conn: Connection, policy_id: str):
        policies = self.ws.layout.policies
        row = conn.execute(select(policies).where(policies.c.id == policy_id)).first()
        if row is None:
            raise StaleEdit(f"policy {policy_id} no longer exists")
        return row

    def index_missing_vectors(self, reason: str, **how: Any) -> Any:
        """Tools ▸ Index Missing Vectors: the facts without a vector get one, with history and
        undo (``memory.vector_index``; ``how``: batch, progress, cancelled)."""
        from memorydesk.memory.vector_index import index_missing_vectors

        embedder = self._embedder if isinstance(self._embedder, Embedder) else None
        return index_missing_vectors(self.ws, actor=self.actor, reason=reason, embedder=embedder, **how)

    # -- edges -----------------------------------------------------------------------------------
    def delete_edges(self, edge_ids: Iterable[str], reason: str = "") -> ChangeResult:
        """Delete episodic edges (a wrong link, a dangling one); undo restores each row exactly."""
        return reviewer_edges.delete_edges(self.ws, self.actor, edge_ids, reason)

    # -- the review queue's findings (memory.actions.review; notes and hot items: memory.actions.purge_items)
    def quarantine(self, finding: dict[str, Any], reason: str) -> ChangeResult:
        """The finding's fact soft-deleted, policy deactivated, note emptied or hot item taken out."""
        return reviewer_review.quarantine(self.ws, self.actor, finding, reason)

    def release(self, item_kind: str, item_id: str, reason: str) -> ChangeResult:
        """A quarantined item back as it was."""
        return reviewer_review.release(self.ws, self.actor, item_kind, item_id, reason)

    def merge_facts(self, keeper: str, others: Iterable[str], reason: str, finding_key: str = "") -> ChangeResult:
        """Every fact in ``others`` superseded by ``keeper`` (a duplicate cluster, a losing correction)."""
        return reviewer_review.merge(self.ws, self.actor, keeper, others, reason, finding_key)

    def redact(self, item_kind: str, item_id: str, reason: str, finding_key: str = "",
               finding: dict | None = None) -> ChangeResult:
        """Every secret in the item replaced by a placeholder (``memory.actions.redact``): a fact superseded by
        its redacted version, a note or working item in place; undone by Undo. ``finding`` of personal data or
        an injected instruction: only that finding's stretch is replaced."""
        from memorydesk.memory.actions.redact import redact

        return redact(self, item_kind, item_id, reason, finding_key, finding)

    def set_fact_type(self, fact_id: str, memory_type: str, reason: str) -> ChangeResult:
        """The fact's memory type changed (a new version, as any edit; text and confidence kept as they are)."""
        def current(conn: Connection):
            row = fact_row(conn, self.ws.layout, fact_id)
            if row is None:
                raise StaleEdit(f"fact {fact_id} no longer exists")
            return row

        with self.ws.read() as conn:
            row = current(conn)
        return self.edit_fact(fact_id, domain=row.domain, topic=row.topic, content=row.content,
                              confidence=row.confidence, reason=reason, expected_updated_at=row.updated_at,
                              memory_type=memory_type)

    def dismiss_finding(self, finding: dict[str, Any], reason: str, *, reviewed: bool = False) -> ChangeResult:
        """The finding out of the open queue until its item changes."""
        return reviewer_review.dismiss(self.ws, self.actor, finding, reason, reviewed=reviewed)

    def purge_items(self, item_kind: str, ids: Iterable[str], reason: str = "", *,
                    backups: BackupAction = "keep") -> ChangeResult:
        """Notes or working-memory items purged, then the backups as ``backups`` says."""
        return purge_items(self.ws, self.actor, item_kind, ids, reason, backups=backups)

    def keep_forget_receipt(self, receipt: Any, reason: str = "") -> ChangeResult:
        """A forget check's receipt kept with the history (``memory.actions.forget``; a record, nothing to undo)."""
        return keep_receipt(self.ws, self.actor, receipt, reason)

    # -- history ---------------------------------------------------------------------------------
    def undo(self, history_id: int | None = None, reason: str = "") -> ChangeResult:
        if self.ws.desk_schema == 0:  # no history yet: nothing to undo, and nothing is added to the file
            raise MemoryDeskError("nothing to undo")

        def work(conn: Connection) -> ChangeResult:
            if history_id is None:  # the newest change, with the others made together with it
                return batches.undo_latest(self.ws, conn, self.actor, reason)
            return undo_entry(self.ws, conn, history_id, self.actor, reason)

        return with_retry(self.ws, work)

    def redo(self, reason: str = "") -> ChangeResult:
        if self.ws.desk_schema == 0:
            raise MemoryDeskError("nothing to redo")

        def work(conn: Connection) -> ChangeResult:
            return batches.redo_latest(self.ws, conn, self.actor, reason)

        return with_retry(self.ws, work)

    def history(self, entity: str | None = None, entity_id: str | None = None) -> list[dict]:
        return history.read_entries(self.ws, entity, entity_id)


def _domains(ws: Workspace, conn: Connection, fact_ids: list[str]) -> list[str]:
    """The domains of these facts (a change to them changes those domains' counts)."""
    facts = ws.layout.facts
    found: dict[str, None] = {}
    for start in range(0, len(fact_ids), 500):
        rows = conn.execute(select(facts.c.domain).where(facts.c.id.in_(fact_ids[start:start + 500])).distinct())
        found.update(dict.fromkeys(str(r[0]) for r in rows))
    return list(found)
