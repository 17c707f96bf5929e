"""The agent side of the memory service: what an agent (or the demo builder) calls.

Each method is one short write transaction on the workspace. Slow work (embedding
the text) happens before the transaction starts, so the write lock is held for
milliseconds; a product process holding the lock is waited out (busy timeout, then
a few retries) and never surfaces as "database is locked".
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.embedding.embedder import Embedder, fact_text, fact_vectors
from memorydesk.memory import facts, harmonize, policies, working
from memorydesk.store import Workspace
from memorydesk.store.retry import with_retry

log = logging.getLogger("memorydesk.memory")


class MemoryService:
    """Agent-facing operations on one open workspace.

    ``embedder``: an ``Embedder`` to compute fact vectors, ``None`` for the shared
    default when it is available, or ``False`` to write facts without vectors (as the
    product does when its model is not installed).
    """

    def __init__(self, ws: Workspace, embedder: Embedder | None | bool = None) -> None:
        self.ws = ws
        self._embedder = embedder

    # -- facts -----------------------------------------------------------------------------------
    def propose_fact(self, *, domain: str, topic: str, content: str, **kwargs: Any) -> facts.ProposeResult:
        vector = fact_vectors([fact_text(topic, content)], self._embedder)[0]
        if vector is not None:
            kwargs.setdefault("embedding", vector[0])
            kwargs.setdefault("binary_embedding", vector[1])
        role = kwargs.get("role")
        normalised = policies.domain_slug(domain)

        def work(conn: Connection) -> facts.ProposeResult:
            policies.ensure_domain(self.ws, conn, normalised, role, kwargs.get("now"))
            return facts.propose_fact(self.ws, conn, domain=normalised, topic=topic, content=content, **kwargs)

        return with_retry(self.ws, work)

    def supersede_fact(self, fact_id: str, superseded_by: str) -> bool:
        return with_retry(self.ws, lambda conn: facts.supersede_fact(self.ws, conn, fact_id, superseded_by))

    # -- policies and grants ---------------------------------------------------------------------
    def propose_policy(self, *, role: str, domain: str, rule: str, source_fact_ids: Sequence[str] = (),
                       now: int | None = None) -> str:
        return with_retry(self.ws, lambda conn: policies.propose_policy(
            self.ws, conn, role=role, domain=policies.domain_slug(domain), rule=rule,
            source_fact_ids=source_fact_ids, now=now))

    def supersede_policy(self, old_id: str, *, role: str, rule: str, domain: str | None = None,
                         now: int | None = None) -> str:
        return with_retry(self.ws, lambda conn: policies.supersede_policy(
            self.ws, conn, old_id, role=role, rule=rule, domain=domain, now=now))

    def carry_over_grants(self, rows: Sequence[tuple[str, str, str]]) -> int:
        """Write grant rows (role, domain, permission) exactly as given, insert-or-replace, as the
        product's batch upsert does when grants are copied in (by an older build, or from
        another workspace): no parsing, so unknown and case-variant strings arrive as they are."""
        grants = self.ws.layout.grants

        def work(conn: Connection) -> int:
            for role, domain, permission in rows:
                conn.execute(grants.insert().prefix_with("OR REPLACE").values(
                    workspace_id=self.ws.workspace_id, agent_role=role, memory_domain=domain, permission=permission))
            return len(rows)

        return with_retry(self.ws, work)

    def permission(self, role: str | None, domain: str) -> str:
        with self.ws.read() as conn:
            return policies.resolve_permission(self.ws, conn, role, domain).value

    # -- working memory --------------------------------------------------------------------------
    def update_my_notes(self, agent_id: str, content: str, now: int | None = None) -> str:
        return with_retry(self.ws, lambda conn: working.update_my_notes(self.ws, conn, agent_id, content, now))

    def record_observation(self, agent_id: str, observation: str, now: int | None = None) -> str:
        return with_retry(self.ws, lambda conn: working.record_observation(
            self.ws, conn, agent_id, observation, now))

    def remember(self, agent_id: str, content: str, **kwargs: Any) -> str:
        return with_retry(self.ws, lambda conn: working.remember(self.ws, conn, agent_id, content, **kwargs))

    def consolidate_memory(self, agent_id: str | None = None, now: int | None = None) -> working.ConsolidationResult:
        return with_retry(self.ws, lambda conn: working.consolidate(self.ws, conn, agent_id, now))

    def harmonize_memory(self, now: int | None = None) -> harmonize.HarmonizeResult:
        return with_retry(self.ws, lambda conn: harmonize.harmonize(self.ws, conn, now))

    def list_memory_conflicts(self, unresolved_only: bool = False) -> list[dict]:
        conflicts = self.ws.layout.conflicts
        query = select(conflicts).where(conflicts.c.workspace_id == self.ws.workspace_id)
        if unresolved_only:
            query = query.where(conflicts.c.resolution.is_(None))
        with self.ws.read() as conn:
            return [dict(r._mapping) for r in conn.execute(query.order_by(conflicts.c.created_at, conflicts.c.id))]
