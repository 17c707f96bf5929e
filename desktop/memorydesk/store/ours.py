"""Memory Desk's own tables (prefix ``memdesk_``) and their migrations.

They are added only when a file is first opened for writing, after a backup copy.
``MIGRATIONS[i]`` takes the schema from version ``i`` to ``i + 1``; a new file and an
adopted product file run all of them, an older Memory Desk file runs the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Float, Index, Integer, LargeBinary, Text

from memorydesk.store.audit_tables import create_audit_runs
from memorydesk.store.tables import Mapped, TableBase, mapped_column

if TYPE_CHECKING:
    from memorydesk.store.layout import Layout

VECTOR_TABLE = "memdesk_fact_vectors"
EMBEDDING_DIM = 384


class DeskBase(TableBase):
    """Tables Memory Desk owns inside a workspace file."""


class DeskMeta(DeskBase):
    """Key/value facts about the file: schema_version, workspace_id, workspace_name."""

    __tablename__ = "memdesk_meta"

    key: Mapped[str] = mapped_column(Text, primary_key=True)
    value: Mapped[str] = mapped_column(Text, nullable=False)


class DeskHistory(DeskBase):
    """One row per change a person or the desk made; the audit trail and the undo stack.

    ``detail`` holds, as JSON, what an undo needs (it may quote memory text; purge
    scrubs it). ``undo_of`` marks an undo entry; ``undone_by`` the entry that undid this.
    """

    __tablename__ = "memdesk_history"
    __table_args__ = (Index("idx_memdesk_history_entity", "entity", "entity_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    entity: Mapped[str] = mapped_column(Text, nullable=False)
    entity_id: Mapped[str] = mapped_column(Text, nullable=False)
    before_id: Mapped[str | None] = mapped_column(Text)
    after_id: Mapped[str | None] = mapped_column(Text)
    action: Mapped[str] = mapped_column(Text, nullable=False)
    actor: Mapped[str] = mapped_column(Text, nullable=False)
    reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    at: Mapped[int] = mapped_column(Integer, nullable=False)
    detail: Mapped[str] = mapped_column(Text, nullable=False, default="{}")
    undo_of: Mapped[int | None] = mapped_column(Integer)
    undone_by: Mapped[int | None] = mapped_column(Integer)


class DeskReceipt(DeskBase):
    """A lineage receipt as a row of text: the layout before receipt blocks (store/receipt_blocks.py).

    New files create it and drop it in the same migration chain; a file of that layout opened
    read-only is read from it."""

    __tablename__ = "memdesk_receipts"
    __table_args__ = (Index("idx_memdesk_receipts_run", "run_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    receipt_id: Mapped[str | None] = mapped_column(Text)
    run_id: Mapped[str] = mapped_column(Text, nullable=False)
    user_scope: Mapped[str] = mapped_column(Text, nullable=False)
    assistant_scope: Mapped[str] = mapped_column(Text, nullable=False)
    tier: Mapped[str] = mapped_column(Text, nullable=False)
    status: Mapped[str] = mapped_column(Text, nullable=False)
    version: Mapped[str] = mapped_column(Text, nullable=False)
    source_version: Mapped[str | None] = mapped_column(Text)
    at_utc: Mapped[str] = mapped_column(Text, nullable=False)
    source_present: Mapped[int | None] = mapped_column(Integer)
    waiting_until: Mapped[str | None] = mapped_column(Text)
    expected_version: Mapped[str | None] = mapped_column(Text)
    depends_on_version: Mapped[str | None] = mapped_column(Text)
    outcome_receipt: Mapped[str | None] = mapped_column(Text)
    canary: Mapped[int | None] = mapped_column(Integer)
    line: Mapped[int | None] = mapped_column(Integer)  # where it was read from (JSON Lines), for reasons


class DeskReceiptName(DeskBase):
    """The strings receipt blocks refer to by code (store/receipt_blocks.py creates it)."""

    __tablename__ = "memdesk_receipt_names"

    code: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text, nullable=False, unique=True)


#: The domain of the long-term facts the tier engine writes (topic = the user scope).
LPM_DOMAIN = "working-memory"


class DeskLane(DeskBase):
    """One memory lane (user scope × assistant scope) and its version counter."""

    __tablename__ = "memdesk_lanes"

    user_scope: Mapped[str] = mapped_column(Text, primary_key=True)
    assistant_scope: Mapped[str] = mapped_column(Text, primary_key=True)
    last_version: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class DeskMemoryVersion(DeskBase):
    """The run, lane and version of a tiered memory, kept for its whole life (STM id as key)."""

    __tablename__ = "memdesk_memory_versions"

    item_id: Mapped[str] = mapped_column(Text, primary_key=True)
    run_id: Mapped[str] = mapped_column(Text, nullable=False)
    user_scope: Mapped[str] = mapped_column(Text, nullable=False)
    assistant_scope: Mapped[str] = mapped_column(Text, nullable=False)
    version: Mapped[str] = mapped_column(Text, nullable=False)


class DeskSegment(DeskBase):
    """A mid-term segment: pages on one theme, with the heat that decides promotion."""

    __tablename__ = "memdesk_mtm_segments"
    __table_args__ = (Index("idx_memdesk_segments_lane", "user_scope", "assistant_scope"),)

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    user_scope: Mapped[str] = mapped_column(Text, nullable=False)
    assistant_scope: Mapped[str] = mapped_column(Text, nullable=False)
    summary: Mapped[str] = mapped_column(Text, nullable=False, default="")
    keywords: Mapped[str] = mapped_column(Text, nullable=False, default="[]")
    n_visit: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    l_interaction: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    last_visit_at: Mapped[int] = mapped_column(Integer, nullable=False)
    created_at: Mapped[int] = mapped_column(Integer, nullable=False)


class DeskPage(DeskBase):
    """A mid-term page: one short-term item moved into a segment."""

    __tablename__ = "memdesk_mtm_pages"
    __table_args__ = (Index("idx_memdesk_pages_segment", "segment_id"),)

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    segment_id: Mapped[str] = mapped_column(Text, nullable=False)
    item_id: Mapped[str] = mapped_column(Text, nullable=False)
    run_id: Mapped[str] = mapped_column(Text, nullable=False)
    version: Mapped[str] = mapped_column(Text, nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    memory_type: Mapped[str] = mapped_column(Text, nullable=False)
    veracity: Mapped[str] = mapped_column(Text, nullable=False)
    importance: Mapped[float] = mapped_column(Float, nullable=False)
    created_at: Mapped[int] = mapped_column(Integer, nullable=False)


class DeskMemoryOSUser(DeskBase):
    """A MemoryOS user imported into this workspace: the lane it was given and the zone its times were read in."""

    __tablename__ = "memdesk_memoryos_users"

    user_scope: Mapped[str] = mapped_column(Text, primary_key=True)
    assistant_scope: Mapped[str] = mapped_column(Text, nullable=False)
    timezone: Mapped[str] = mapped_column(Text, nullable=False)


class DeskMemoryOSItem(DeskBase):
    """The import ledger: every row a MemoryOS import wrote (hot item, segment, page, fact, agent), by id.

    A re-import adds only ids that are not here, so what a reviewer or the tier engine has
    since removed does not come back.
    """

    __tablename__ = "memdesk_memoryos_items"
    __table_args__ = (Index("idx_memdesk_memoryos_items_owner", "owner", "kind"),)

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    kind: Mapped[str] = mapped_column(Text, nullable=False)  # stm, segment, page, profile, knowledge, agent
    owner: Mapped[str] = mapped_column(Text, nullable=False)  # the user scope (assistant id for its knowledge)


class DeskMemoryOSSession(DeskBase):
    """What MemoryOS keeps about a mid-term session beyond our segment row (same id)."""

    __tablename__ = "memdesk_memoryos_sessions"

    segment_id: Mapped[str] = mapped_column(Text, primary_key=True)
    session_id: Mapped[str] = mapped_column(Text, nullable=False)
    r_recency: Mapped[float | None] = mapped_column(Float)
    h_segment: Mapped[float | None] = mapped_column(Float)
    access_count_lfu: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    access_frequency: Mapped[int | None] = mapped_column(Integer)
    created_local: Mapped[str] = mapped_column(Text, nullable=False)
    last_visit_local: Mapped[str] = mapped_column(Text, nullable=False)
    summary_embedding: Mapped[bytes | None] = mapped_column(LargeBinary)


class DeskMemoryOSPage(DeskBase):
    """What MemoryOS keeps about a mid-term page beyond our page row (same id)."""

    __tablename__ = "memdesk_memoryos_pages"

    page_row_id: Mapped[str] = mapped_column(Text, primary_key=True)
    page_id: Mapped[str] = mapped_column(Text, nullable=False)
    pre_page: Mapped[str | None] = mapped_column(Text)
    next_page: Mapped[str | None] = mapped_column(Text)
    meta_info: Mapped[str | None] = mapped_column(Text)
    keywords: Mapped[str] = mapped_column(Text, nullable=False, default="[]")
    analyzed: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    preloaded: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    timestamp_local: Mapped[str] = mapped_column(Text, nullable=False)
    page_embedding: Mapped[bytes | None] = mapped_column(LargeBinary)


class DeskConflictReview(DeskBase):
    """A person's decision on a conflict, kept in our tables so the product's rows stay untouched.

    ``decision``: ``confirmed``, ``restored`` (the loser), ``kept_a`` / ``kept_b`` (one fact of
    an open cross-agent pair superseded by the other) or ``kept_both``. ``conflict_id`` is
    the row acted on; ``fact_a_id``/``fact_b_id`` name the pair, so a decision on an open
    cross-agent pair covers every row the product wrote for it, later passes included.
    One row per action; undo deletes it.
    """

    __tablename__ = "memdesk_conflict_reviews"
    __table_args__ = (Index("idx_memdesk_conflict_reviews_conflict", "conflict_id"),
                      Index("idx_memdesk_conflict_reviews_pair", "fact_a_id", "fact_b_id"))

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    conflict_id: Mapped[str] = mapped_column(Text, nullable=False)
    fact_a_id: Mapped[str] = mapped_column(Text, nullable=False)
    fact_b_id: Mapped[str] = mapped_column(Text, nullable=False)
    decision: Mapped[str] = mapped_column(Text, nullable=False)
    actor: Mapped[str] = mapped_column(Text, nullable=False)
    reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    at: Mapped[int] = mapped_column(Integer, nullable=False)


class DeskReviewDecision(DeskBase):
    """A person's decision on a review finding: ``dismissed``, ``reviewed`` (a losing correction judged
    fine) or ``quarantined``. It holds while the item's ``fingerprint`` is the one decided on; undo
    deletes the row."""

    __tablename__ = "memdesk_review_decisions"
    __table_args__ = (Index("idx_memdesk_review_decisions_item", "item_kind", "item_id"),)

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    finding_key: Mapped[str] = mapped_column(Text, nullable=False)
    kind: Mapped[str] = mapped_column(Text, nullable=False)
    item_kind: Mapped[str] = mapped_column(Text, nullable=False)
    item_id: Mapped[str] = mapped_column(Text, nullable=False)
    fingerprint: Mapped[str] = mapped_column(Text, nullable=False, default="")
    decision: Mapped[str] = mapped_column(Text, nullable=False)
    actor: Mapped[str] = mapped_column(Text, nullable=False)
    reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    at: Mapped[int] = mapped_column(Integer, nullable=False)


class DeskReviewState(DeskBase):
    """The last review scan a window kept: key/value (``stamp``, ``scanned_at``, settings, notes)."""

    __tablename__ = "memdesk_review_state"

    key: Mapped[str] = mapped_column(Text, primary_key=True)
    value: Mapped[str] = mapped_column(Text, nullable=False)


class DeskReviewItem(DeskBase):
    """One scanned item's fingerprint and its findings (JSON list) as of the last kept scan."""

    __tablename__ = "memdesk_review_items"

    item_kind: Mapped[str] = mapped_column(Text, primary_key=True)
    item_id: Mapped[str] = mapped_column(Text, primary_key=True)
    fingerprint: Mapped[str] = mapped_column(Text, nullable=False)
    findings: Mapped[str] = mapped_column(Text, nullable=False, default="[]")


class DeskReviewPair(DeskBase):
    """Two active facts close by cosine, as of the last kept scan (ids sorted)."""

    __tablename__ = "memdesk_review_pairs"

    fact_a: Mapped[str] = mapped_column(Text, primary_key=True)
    fact_b: Mapped[str] = mapped_column(Text, primary_key=True)
    cosine: Mapped[float] = mapped_column(Float, nullable=False)


class DeskReviewSet(DeskBase):
    """A finding over several facts (a duplicate cluster, a losing correction) by its members' signature;
    ``finding`` empty for a correction candidate that was checked and does not lose."""

    __tablename__ = "memdesk_review_sets"

    signature: Mapped[str] = mapped_column(Text, primary_key=True)
    finding: Mapped[str] = mapped_column(Text, nullable=False, default="")


def _create_base(conn: Connection, layout: Layout) -> None:
    for model in (DeskMeta, DeskHistory, DeskReceipt):
        model.__table__.create(conn, checkfirst=True)


def vector_table_ddl() -> str:
    return (
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VECTOR_TABLE} "
        f"USING vec0(fact_id TEXT PRIMARY KEY, embedding float[{EMBEDDING_DIM}])"
    )


def _create_vectors(conn: Connection, layout: Layout) -> None:
    """The sqlite-vec index of fact embeddings, filled from the embedding column."""
    conn.exec_driver_sql(vector_table_ddl())
    conn.exec_driver_sql(
        f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) SELECT id, embedding FROM {layout.facts.name} "
        f"WHERE embedding IS NOT NULL AND length(embedding) = {EMBEDDING_DIM * 4}"
    )


def _create_tiers(conn: Connection, layout: Layout) -> None:
    """Lanes, short-term lineage and the mid-term tier (docs/receipts.md)."""
    for model in (DeskLane, DeskMemoryVersion, DeskSegment, DeskPage):
        model.__table__.create(conn, checkfirst=True)


def _create_memoryos(conn: Connection, layout: Layout) -> None:
    """What a MemoryOS import records: its users, its ledger and MemoryOS's own session/page fields."""
    for model in (DeskMemoryOSUser, DeskMemoryOSItem, DeskMemoryOSSession, DeskMemoryOSPage):
        model.__table__.create(conn, checkfirst=True)


def _create_conflict_reviews(conn: Connection, layout: Layout) -> None:
    """People's decisions on conflicts (keep both, keep one, confirm, restore)."""
    DeskConflictReview.__table__.create(conn, checkfirst=True)


def _receipt_lines(conn: Connection, layout: Layout) -> None:
    """Receipts keep the line they were read from, so a workspace names them as their file does."""
    table = DeskReceipt.__table__.name
    columns = {row[1] for row in conn.exec_driver_sql(f"PRAGMA table_info({table})")}
    if "line" not in columns:
        conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN line INTEGER")


def _create_review(conn: Connection, layout: Layout) -> None:
    """The review queue: people's decisions on findings, and the last scan a window kept."""
    for model in (DeskReviewDecision, DeskReviewState, DeskReviewItem, DeskReviewPair, DeskReviewSet):
        model.__table__.create(conn, checkfirst=True)


def _receipt_columns(conn: Connection, layout: Layout) -> None:
    """Receipts also as typed columns in blocks (store/receipt_blocks.py); the next step fills them."""
    from memorydesk.store import receipt_blocks

    receipt_blocks.create(conn)


def _receipts_in_blocks(conn: Connection, layout: Layout) -> None:
    """Receipts stored only as blocks: every row moved into them (ids kept), the row table dropped."""
    from memorydesk.store import receipt_blocks

    raw = conn.connection.driver_connection
    if receipt_blocks.has_rows(raw):
        receipt_blocks.move_rows(raw)


MIGRATIONS: tuple[Callable[[Connection, Layout], None], ...] = (
    _create_base, _create_vectors, _create_tiers, _create_memoryos, _create_conflict_reviews, _receipt_lines,
    _create_review, create_audit_runs, _receipt_columns, _receipts_in_blocks)
SCHEMA_VERSION = len(MIGRATIONS)
RECEIPT_LINES_SCHEMA = MIGRATIONS.index(_receipt_lines) + 1  # from this schema on, receipts keep their line
AUDIT_SCHEMA = MIGRATIONS.index(create_audit_runs) + 1  # from this schema on, recall-audit runs are kept
RECEIPT_COLUMNS_SCHEMA = MIGRATIONS.index(_receipt_columns) + 1  # from this schema on, receipts have blocks
#: from this schema on, receipts are stored only as blocks (no ``memdesk_receipts`` rows)
RECEIPT_BLOCKS_ONLY_SCHEMA = MIGRATIONS.index(_receipts_in_blocks) + 1
