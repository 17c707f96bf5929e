"""SQLAlchemy 2 typed models of the product's memory tables (docs/product-format.md, "The memory tables").

Names, types, nullability, defaults, keys and indexes follow the schema-13 layout
(the ``_table`` suffix). ``layout.Layout`` derives the same tables under the newer
names when a file uses them. Timestamps are INTEGER unix seconds, booleans 0/1,
JSON list columns TEXT; nothing here converts values, so a row reads and writes back
exactly as the product stored it.
"""

from __future__ import annotations

from sqlalchemy import REAL, CheckConstraint, ForeignKey, Index, Integer, LargeBinary, Text, text

from memorydesk.store.tables import Mapped, TableBase, mapped_column

NOW = text("CAST(strftime('%s', CURRENT_TIMESTAMP) AS INTEGER)")


class ProductBase(TableBase):
    """Tables the product owns. We read them, and write them only through the service."""


def _now() -> Mapped[int]:
    return mapped_column(Integer, nullable=False, server_default=NOW)


class Agent(ProductBase):
    __tablename__ = "agents_table"
    __table_args__ = (
        CheckConstraint('"strict_mode" IN (0, 1)'),
        Index("idx_agents_workspaceId", "workspace_id"),
        Index("idx_agents_workspace_name", "workspace_id", "name", unique=True),
    )

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    name: Mapped[str] = mapped_column(Text, nullable=False)
    title: Mapped[str] = mapped_column(Text, nullable=False)
    agent_md_path: Mapped[str] = mapped_column(Text, nullable=False)
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    reports_to: Mapped[str | None] = mapped_column(Text, ForeignKey("agents_table.id", ondelete="SET NULL"))
    skills: Mapped[str] = mapped_column(Text, nullable=False)
    persona: Mapped[str | None] = mapped_column(Text)
    system_prompt: Mapped[str | None] = mapped_column(Text)
    adapter_id: Mapped[str | None] = mapped_column(Text)
    model_id: Mapped[str | None] = mapped_column(Text)
    strict_mode: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    effort: Mapped[str | None] = mapped_column(Text)
    context_size: Mapped[int | None] = mapped_column(Integer)
    sandbox_capabilities_json: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("''"))
    command_policy_json: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("''"))
    role: Mapped[str | None] = mapped_column(Text)
    monthly_budget_cents: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    silence_timeout_minutes: Mapped[int | None] = mapped_column(Integer)
    max_concurrent_tasks: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("1"))
    visibility: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'workspace'"))
    lifecycle_status: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'active'"))
    budget_policy_id: Mapped[str | None] = mapped_column(Text)
    runtime_profile_id: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[int] = _now()


class AgentWorkingMemory(ProductBase):
    __tablename__ = "agent_working_memory_table"
    __table_args__ = (
        Index("idx_agent_working_memory_workspaceId", "workspace_id"),
        Index("idx_agent_working_memory_agentId", "agent_id"),
    )

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    agent_id: Mapped[str] = mapped_column(
        Text, ForeignKey("agents_table.id", ondelete="CASCADE"), nullable=False
    )
    content: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("''"))
    updated_at: Mapped[int] = _now()


class MemoryDomain(ProductBase):
    __tablename__ = "memory_domains_table"
    __table_args__ = (
        Index("idx_memory_domains_workspaceId", "workspace_id"),
        Index("idx_memory_domains_name", "workspace_id", "name", unique=True),
    )

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    name: Mapped[str] = mapped_column(Text, nullable=False)
    label: Mapped[str] = mapped_column(Text, nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[int] = _now()
    created_by_role: Mapped[str] = mapped_column(Text, nullable=False)


class MemoryFact(ProductBase):
    __tablename__ = "memory_facts_table"
    __table_args__ = (
        Index("idx_memory_facts_supersededBy", "superseded_by"),
        Index("idx_memory_facts_workspaceId", "workspace_id"),
        Index("idx_memory_facts_topic", "topic"),
        Index("idx_memory_facts_domain", "domain"),
    )

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    domain: Mapped[str] = mapped_column(Text, nullable=False)
    topic: Mapped[str] = mapped_column(Text, nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    source_observation_ids: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'[]'"))
    confidence: Mapped[float] = mapped_column(REAL, nullable=False, server_default=text("1.0"))
    superseded_by: Mapped[str | None] = mapped_column(Text)
    authored_by_agent_id: Mapped[str | None] = mapped_column(Text)
    authored_by_role: Mapped[str | None] = mapped_column(Text)
    memory_type: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'fact'"))
    veracity: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'stated'"))
    valid_until: Mapped[int | None] = mapped_column(Integer)
    recall_count: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    last_recalled_at: Mapped[int | None] = mapped_column(Integer)
    temporal_tags: Mapped[str | None] = mapped_column(Text)
    mention_count: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("1"))
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary)
    binary_embedding: Mapped[bytes | None] = mapped_column(LargeBinary)
    created_at: Mapped[int] = _now()
    updated_at: Mapped[int] = _now()


class MemoryPolicy(ProductBase):
    __tablename__ = "memory_policies_table"
    __table_args__ = (
        CheckConstraint('"active" IN (0, 1)'),
        Index("idx_memory_policies_workspaceId", "workspace_id"),
    )

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    domain: Mapped[str] = mapped_column(Text, nullable=False)
    rule: Mapped[str] = mapped_column(Text, nullable=False)
    source_fact_ids: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'[]'"))
    required_role: Mapped[str | None] = mapped_column(Text)
    active: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("1"))
    created_at: Mapped[int] = _now()
    updated_at: Mapped[int] = _now()


class MemoryAccessGrant(ProductBase):
    __tablename__ = "memory_access_grants_table"

    workspace_id: Mapped[str] = mapped_column(Text, primary_key=True)
    agent_role: Mapped[str] = mapped_column(Text, primary_key=True)
    memory_domain: Mapped[str] = mapped_column(Text, primary_key=True)
    permission: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'read'"))


class MemoryConflict(ProductBase):
    __tablename__ = "memory_conflicts_table"
    __table_args__ = (
        Index("idx_memory_conflicts_workspaceId", "workspace_id"),
        Index("idx_memory_conflicts_factA", "fact_a_id"),
    )

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    fact_a_id: Mapped[str] = mapped_column(Text, nullable=False)
    fact_b_id: Mapped[str] = mapped_column(Text, nullable=False)
    conflict_type: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'contradiction'"))
    resolution: Mapped[str | None] = mapped_column(Text)
    winning_fact_id: Mapped[str | None] = mapped_column(Text)
    resolved_at: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[int] = _now()


class EpisodicEdge(ProductBase):
    __tablename__ = "episodic_edges_table"
    __table_args__ = (
        Index("idx_episodic_edges_workspaceId", "workspace_id"),
        Index("idx_episodic_edges_source", "source_fact_id"),
        Index("idx_episodic_edges_target", "target_fact_id"),
        Index("uq_episodic_edges_triple", "workspace_id", "source_fact_id", "target_fact_id", "edge_type",
              unique=True),
    )

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    source_fact_id: Mapped[str] = mapped_column(Text, nullable=False)
    target_fact_id: Mapped[str] = mapped_column(Text, nullable=False)
    edge_type: Mapped[str] = mapped_column(Text, nullable=False)
    weight: Mapped[float] = mapped_column(REAL, nullable=False, server_default=text("1.0"))
    created_at: Mapped[int] = _now()


class WorkingMemoryItem(ProductBase):
    __tablename__ = "working_memory_items_table"
    __table_args__ = (
        Index("idx_working_memory_items_workspaceId", "workspace_id"),
        Index("idx_working_memory_items_agent", "agent_id"),
    )

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    agent_id: Mapped[str] = mapped_column(Text, nullable=False)
    session_id: Mapped[str | None] = mapped_column(Text)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    memory_type: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'observation'"))
    veracity: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'inferred'"))
    importance: Mapped[float] = mapped_column(REAL, nullable=False, server_default=text("0.5"))
    created_at: Mapped[int] = _now()
    expires_at: Mapped[int | None] = mapped_column(Integer)


class MemoryConsolidationLog(ProductBase):
    __tablename__ = "memory_consolidation_log_table"
    __table_args__ = (Index("idx_memory_consolidation_log_workspaceId", "workspace_id"),)

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    agent_id: Mapped[str | None] = mapped_column(Text)
    items_considered: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    facts_created: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    facts_updated: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    conflicts_detected: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    evicted: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    started_at: Mapped[int] = _now()
    finished_at: Mapped[int] = _now()


class MemoryBelief(ProductBase):
    __tablename__ = "memory_beliefs_table"
    __table_args__ = (Index("idx_memory_beliefs_workspaceId", "workspace_id"),)

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    topic: Mapped[str] = mapped_column(Text, nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    confidence: Mapped[float] = mapped_column(REAL, nullable=False, server_default=text("0.5"))
    harmony_score: Mapped[float] = mapped_column(REAL, nullable=False, server_default=text("0.0"))
    provenance_fact_ids: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'[]'"))
    provenance_agent_ids: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'[]'"))
    cluster_id: Mapped[str] = mapped_column(Text, nullable=False)
    action: Mapped[str] = mapped_column(Text, nullable=False, server_default=text("'create'"))
    created_at: Mapped[int] = _now()
    updated_at: Mapped[int] = _now()


class WorkspaceMeta(ProductBase):
    __tablename__ = "workspace_meta"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, server_default=text("0"))
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    install_id: Mapped[str] = mapped_column(Text, nullable=False)
    created_with_schema_version: Mapped[int] = mapped_column(Integer, nullable=False)
    created_at: Mapped[int] = _now()


PRODUCT_MODELS = (
    Agent, AgentWorkingMemory, MemoryDomain, MemoryFact, MemoryPolicy, MemoryAccessGrant,
    MemoryConflict, EpisodicEdge, WorkingMemoryItem, MemoryConsolidationLog, MemoryBelief, WorkspaceMeta,
)
