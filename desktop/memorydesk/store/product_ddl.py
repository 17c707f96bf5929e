"""The product's own DDL for the memory tables, statement for statement.

A workspace we create must look to the product like one it wrote, so new files get
exactly these statements (docs/product-format.md), in the product's order, followed by
``PRAGMA user_version = 13``. The SQLAlchemy models in ``models`` describe the same
tables for reading and writing; a test compares the two against a product file.
"""

from __future__ import annotations

PRODUCT_USER_VERSION = 13

_NOW = "(CAST(strftime('%s', CURRENT_TIMESTAMP) AS INTEGER))"

TABLES: tuple[str, ...] = (
    'CREATE TABLE IF NOT EXISTS "agents_table" ("id" TEXT NOT NULL, "name" TEXT NOT NULL, '
    '"title" TEXT NOT NULL, "agent_md_path" TEXT NOT NULL, "workspace_id" TEXT NOT NULL, '
    '"reports_to" TEXT NULL REFERENCES agents_table (id) ON DELETE SET NULL, "skills" TEXT NOT NULL, '
    '"persona" TEXT NULL, "system_prompt" TEXT NULL, "adapter_id" TEXT NULL, "model_id" TEXT NULL, '
    '"strict_mode" INTEGER NOT NULL DEFAULT 0 CHECK ("strict_mode" IN (0, 1)), "effort" TEXT NULL, '
    '"context_size" INTEGER NULL, "sandbox_capabilities_json" TEXT NOT NULL DEFAULT \'\', '
    '"command_policy_json" TEXT NOT NULL DEFAULT \'\', "role" TEXT NULL, '
    '"monthly_budget_cents" INTEGER NOT NULL DEFAULT 0, "silence_timeout_minutes" INTEGER NULL, '
    '"max_concurrent_tasks" INTEGER NOT NULL DEFAULT 1, "visibility" TEXT NOT NULL DEFAULT \'workspace\', '
    '"lifecycle_status" TEXT NOT NULL DEFAULT \'active\', "budget_policy_id" TEXT NULL, '
    f'"runtime_profile_id" TEXT NULL, "created_at" INTEGER NOT NULL DEFAULT {_NOW}, PRIMARY KEY ("id"))',
    'CREATE TABLE IF NOT EXISTS "agent_working_memory_table" ("id" TEXT NOT NULL, "workspace_id" TEXT NOT NULL, '
    '"agent_id" TEXT NOT NULL REFERENCES agents_table (id) ON DELETE CASCADE, "content" TEXT NOT NULL DEFAULT \'\', '
    f'"updated_at" INTEGER NOT NULL DEFAULT {_NOW}, PRIMARY KEY ("id"))',
    'CREATE TABLE IF NOT EXISTS "memory_domains_table" ("id" TEXT NOT NULL, "workspace_id" TEXT NOT NULL, '
    '"name" TEXT NOT NULL, "label" TEXT NOT NULL, "description" TEXT NULL, '
    f'"created_at" INTEGER NOT NULL DEFAULT {_NOW}, "created_by_role" TEXT NOT NULL, PRIMARY KEY ("id"))',
    'CREATE TABLE IF NOT EXISTS "memory_facts_table" ("id" TEXT NOT NULL, "workspace_id" TEXT NOT NULL, '
    '"domain" TEXT NOT NULL, "topic" TEXT NOT NULL, "content" TEXT NOT NULL, '
    '"source_observation_ids" TEXT NOT NULL DEFAULT \'[]\', "confidence" REAL NOT NULL DEFAULT 1.0, '
    '"superseded_by" TEXT NULL, "authored_by_agent_id" TEXT NULL, "authored_by_role" TEXT NULL, '
    '"memory_type" TEXT NOT NULL DEFAULT \'fact\', "veracity" TEXT NOT NULL DEFAULT \'stated\', '
    '"valid_until" INTEGER NULL, "recall_count" INTEGER NOT NULL DEFAULT 0, "last_recalled_at" INTEGER NULL, '
    '"temporal_tags" TEXT NULL, "mention_count" INTEGER NOT NULL DEFAULT 1, "embedding" BLOB NULL, '
    f'"binary_embedding" BLOB NULL, "created_at" INTEGER NOT NULL DEFAULT {_NOW}, '
    f'"updated_at" INTEGER NOT NULL DEFAULT {_NOW}, PRIMARY KEY ("id"))',
    'CREATE TABLE IF NOT EXISTS "memory_policies_table" ("id" TEXT NOT NULL, "workspace_id" TEXT NOT NULL, '
    '"domain" TEXT NOT NULL, "rule" TEXT NOT NULL, "source_fact_ids" TEXT NOT NULL DEFAULT \'[]\', '
    '"required_role" TEXT NULL, "active" INTEGER NOT NULL DEFAULT 1 CHECK ("active" IN (0, 1)), '
    f'"created_at" INTEGER NOT NULL DEFAULT {_NOW}, "updated_at" INTEGER NOT NULL DEFAULT {_NOW}, '
    'PRIMARY KEY ("id"))',
    'CREATE TABLE IF NOT EXISTS "memory_access_grants_table" ("workspace_id" TEXT NOT NULL, '
    '"agent_role" TEXT NOT NULL, "memory_domain" TEXT NOT NULL, "permission" TEXT NOT NULL DEFAULT \'read\', '
    'PRIMARY KEY ("workspace_id", "agent_role", "memory_domain"))',
    'CREATE TABLE IF NOT EXISTS "memory_conflicts_table" ("id" TEXT NOT NULL, "workspace_id" TEXT NOT NULL, '
    '"fact_a_id" TEXT NOT NULL, "fact_b_id" TEXT NOT NULL, "conflict_type" TEXT NOT NULL DEFAULT \'contradiction\', '
    '"resolution" TEXT NULL, "winning_fact_id" TEXT NULL, "resolved_at" INTEGER NULL, '
    f'"created_at" INTEGER NOT NULL DEFAULT {_NOW}, PRIMARY KEY ("id"))',
    'CREATE TABLE IF NOT EXISTS "episodic_edges_table" ("id" TEXT NOT NULL, "workspace_id" TEXT NOT NULL, '
    '"source_fact_id" TEXT NOT NULL, "target_fact_id" TEXT NOT NULL, "edge_type" TEXT NOT NULL, '
    f'"weight" REAL NOT NULL DEFAULT 1.0, "created_at" INTEGER NOT NULL DEFAULT {_NOW}, PRIMARY KEY ("id"))',
    'CREATE TABLE IF NOT EXISTS "working_memory_items_table" ("id" TEXT NOT NULL, "workspace_id" TEXT NOT NULL, '
    '"agent_id" TEXT NOT NULL, "session_id" TEXT NULL, "content" TEXT NOT NULL, '
    '"memory_type" TEXT NOT NULL DEFAULT \'observation\', "veracity" TEXT NOT NULL DEFAULT \'inferred\', '
    f'"importance" REAL NOT NULL DEFAULT 0.5, "created_at" INTEGER NOT NULL DEFAULT {_NOW}, '
    '"expires_at" INTEGER NULL, PRIMARY KEY ("id"))',
    'CREATE TABLE IF NOT EXISTS "memory_consolidation_log_table" ("id" TEXT NOT NULL, '
    '"workspace_id" TEXT NOT NULL, "agent_id" TEXT NULL, "items_considered" INTEGER NOT NULL DEFAULT 0, '
    '"facts_created" INTEGER NOT NULL DEFAULT 0, "facts_updated" INTEGER NOT NULL DEFAULT 0, '
    '"conflicts_detected" INTEGER NOT NULL DEFAULT 0, "evicted" INTEGER NOT NULL DEFAULT 0, '
    f'"started_at" INTEGER NOT NULL DEFAULT {_NOW}, "finished_at" INTEGER NOT NULL DEFAULT {_NOW}, '
    'PRIMARY KEY ("id"))',
    'CREATE TABLE IF NOT EXISTS "memory_beliefs_table" ("id" TEXT NOT NULL, "workspace_id" TEXT NOT NULL, '
    '"topic" TEXT NOT NULL, "content" TEXT NOT NULL, "confidence" REAL NOT NULL DEFAULT 0.5, '
    '"harmony_score" REAL NOT NULL DEFAULT 0.0, "provenance_fact_ids" TEXT NOT NULL DEFAULT \'[]\', '
    '"provenance_agent_ids" TEXT NOT NULL DEFAULT \'[]\', "cluster_id" TEXT NOT NULL, '
    f'"action" TEXT NOT NULL DEFAULT \'create\', "created_at" INTEGER NOT NULL DEFAULT {_NOW}, '
    f'"updated_at" INTEGER NOT NULL DEFAULT {_NOW}, PRIMARY KEY ("id"))',
    'CREATE TABLE IF NOT EXISTS "workspace_meta" ("id" INTEGER NOT NULL DEFAULT 0, '
    '"workspace_id" TEXT NOT NULL, "install_id" TEXT NOT NULL, "created_with_schema_version" INTEGER NOT NULL, '
    f'"created_at" INTEGER NOT NULL DEFAULT {_NOW}, PRIMARY KEY ("id"))',
)

INDEXES: tuple[str, ...] = (
    "CREATE INDEX IF NOT EXISTS idx_agents_workspaceId ON agents_table (workspace_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_agents_workspace_name ON agents_table (workspace_id, name)",
    "CREATE INDEX IF NOT EXISTS idx_agent_working_memory_workspaceId ON agent_working_memory_table (workspace_id)",
    "CREATE INDEX IF NOT EXISTS idx_agent_working_memory_agentId ON agent_working_memory_table (agent_id)",
    "CREATE INDEX IF NOT EXISTS idx_memory_domains_workspaceId ON memory_domains_table (workspace_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_memory_domains_name ON memory_domains_table (workspace_id, name)",
    "CREATE INDEX IF NOT EXISTS idx_memory_facts_supersededBy ON memory_facts_table (superseded_by)",
    "CREATE INDEX IF NOT EXISTS idx_memory_facts_workspaceId ON memory_facts_table (workspace_id)",
    "CREATE INDEX IF NOT EXISTS idx_memory_facts_topic ON memory_facts_table (topic)",
    "CREATE INDEX IF NOT EXISTS idx_memory_facts_domain ON memory_facts_table (domain)",
    "CREATE INDEX IF NOT EXISTS idx_memory_policies_workspaceId ON memory_policies_table (workspace_id)",
    "CREATE INDEX IF NOT EXISTS idx_memory_conflicts_workspaceId ON memory_conflicts_table (workspace_id)",
    "CREATE INDEX IF NOT EXISTS idx_memory_conflicts_factA ON memory_conflicts_table (fact_a_id)",
    "CREATE INDEX IF NOT EXISTS idx_episodic_edges_workspaceId ON episodic_edges_table (workspace_id)",
    "CREATE INDEX IF NOT EXISTS idx_episodic_edges_source ON episodic_edges_table (source_fact_id)",
    "CREATE INDEX IF NOT EXISTS idx_episodic_edges_target ON episodic_edges_table (target_fact_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS uq_episodic_edges_triple ON episodic_edges_table "
    "(workspace_id, source_fact_id, target_fact_id, edge_type)",
    "CREATE INDEX IF NOT EXISTS idx_working_memory_items_workspaceId ON working_memory_items_table (workspace_id)",
    "CREATE INDEX IF NOT EXISTS idx_working_memory_items_agent ON working_memory_items_table (agent_id)",
    "CREATE INDEX IF NOT EXISTS idx_memory_consolidation_log_workspaceId "
    "ON memory_consolidation_log_table (workspace_id)",
    "CREATE INDEX IF NOT EXISTS idx_memory_beliefs_workspaceId ON memory_beliefs_table (workspace_id)",
)


def fts_statements(facts_table: str = "memory_facts_table") -> tuple[str, ...]:
    """The FTS5 external-content index over the fact table and its three sync triggers."""
    return (
        "CREATE VIRTUAL TABLE IF NOT EXISTS memory_facts_fts\n"
        f"      USING fts5(topic, content, workspace_id, content={facts_table}, content_rowid=rowid)",
        f"CREATE TRIGGER IF NOT EXISTS memory_facts_ai AFTER INSERT ON {facts_table} BEGIN\n"
        "        INSERT INTO memory_facts_fts(rowid, topic, content, workspace_id)\n"
        "        VALUES (new.rowid, new.topic, new.content, new.workspace_id);\n"
        "      END",
        f"CREATE TRIGGER IF NOT EXISTS memory_facts_ad AFTER DELETE ON {facts_table} BEGIN\n"
        "        INSERT INTO memory_facts_fts(memory_facts_fts, rowid, topic, content, workspace_id)\n"
        "        VALUES ('delete', old.rowid, old.topic, old.content, old.workspace_id);\n"
        "      END",
        f"CREATE TRIGGER IF NOT EXISTS memory_facts_au AFTER UPDATE ON {facts_table} BEGIN\n"
        "        INSERT INTO memory_facts_fts(memory_facts_fts, rowid, topic, content, workspace_id)\n"
        "        VALUES ('delete', old.rowid, old.topic, old.content, old.workspace_id);\n"
        "        INSERT INTO memory_facts_fts(rowid, topic, content, workspace_id)\n"
        "        VALUES (new.rowid, new.topic, new.content, new.workspace_id);\n"
        "      END",
    )


def product_schema_statements() -> tuple[str, ...]:
    """Everything ``onCreate`` runs for the memory subset, in order (schema-13 layout)."""
    return TABLES + INDEXES + fts_statements()
