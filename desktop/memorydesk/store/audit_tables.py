"""The desk's record of recall-audit runs (``memdesk_audit_runs``, ``memdesk_audit_facts``),
added by one migration of ``store.ours`` (``create_audit_runs``) like every table of ours:
only when the file is opened for writing. Readers check ``ws.desk_schema`` first
(``AUDIT_SCHEMA``): a file opened read-only without them has no runs.

A run: when, which file and workspace, the workspace's data stamp and schemas, the product
rules version, the sample (size and seed; the ids are the fact rows, in sample order), the
what-ifs and the summary the audit printed. A fact row: its stage and rank in that run, the
group it fell in and the few numbers that name a cause (decay factor, MMR's rival).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import Connection, Float, Index, Integer, Text

from memorydesk.store.tables import Mapped, TableBase, mapped_column

if TYPE_CHECKING:
    from memorydesk.store.layout import Layout


class AuditBase(TableBase):
    """The recall audit's tables inside a workspace file (prefix ``memdesk_``, like every table of ours)."""


class DeskAuditRun(AuditBase):
    __tablename__ = "memdesk_audit_runs"

    id: Mapped[str] = mapped_column(Text, primary_key=True)  # 8 hex digits, random: never reused by a copy
    workspace_id: Mapped[str] = mapped_column(Text, nullable=False)
    file: Mapped[str] = mapped_column(Text, nullable=False, default="")  # the file it was taken in (its path then)
    file_key: Mapped[str] = mapped_column(Text, nullable=False, default="")  # that file's device:inode (a copy differs)
    at: Mapped[float] = mapped_column(Float, nullable=False)  # the audit's clock (unix seconds)
    kind: Mapped[str] = mapped_column(Text, nullable=False)  # topics (each fact's own topic) | queries
    origin: Mapped[str] = mapped_column(Text, nullable=False, default="command")  # command | window
    data_stamp: Mapped[str] = mapped_column(Text, nullable=False, default="")
    product_schema: Mapped[str] = mapped_column(Text, nullable=False, default="")  # layout and user_version
    desk_schema: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    rules_version: Mapped[str] = mapped_column(Text, nullable=False, default="")
    sample: Mapped[int | None] = mapped_column(Integer)  # None: every active fact
    seed: Mapped[int | None] = mapped_column(Integer)
    what_if: Mapped[str] = mapped_column(Text, nullable=False, default="[]")  # JSON list of names
    complete: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    facts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    found: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    recall: Mapped[float | None] = mapped_column(Float)
    summary: Mapped[str] = mapped_column(Text, nullable=False, default="{}")  # JSON, as the audit printed it


class DeskAuditFact(AuditBase):
    __tablename__ = "memdesk_audit_facts"
    __table_args__ = (Index("idx_memdesk_audit_facts_fact", "fact_id"),)

    run_id: Mapped[str] = mapped_column(Text, primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)  # sample order
    fact_id: Mapped[str] = mapped_column(Text, nullable=False)
    query: Mapped[str] = mapped_column(Text, nullable=False, default="")
    stage: Mapped[str] = mapped_column(Text, nullable=False)
    rank: Mapped[int | None] = mapped_column(Integer)
    domain: Mapped[str] = mapped_column(Text, nullable=False, default="")
    memory_type: Mapped[str] = mapped_column(Text, nullable=False, default="")
    veracity: Mapped[str] = mapped_column(Text, nullable=False, default="")
    age_days: Mapped[float | None] = mapped_column(Float)
    decay_factor: Mapped[float | None] = mapped_column(Float)
    mmr_against: Mapped[str | None] = mapped_column(Text)
    mmr_similarity: Mapped[float | None] = mapped_column(Float)
    score_rank: Mapped[int | None] = mapped_column(Integer)
    undecayed_rank: Mapped[int | None] = mapped_column(Integer)
    what_if: Mapped[str | None] = mapped_column(Text)  # JSON {name: [stage, rank]}


def create_audit_runs(conn: Connection, layout: Layout) -> None:
    """Recall-audit runs, kept so two can be compared and a gate can hold a baseline."""
    for model in (DeskAuditRun, DeskAuditFact):
        model.__table__.create(conn, checkfirst=True)


RUNS, FACTS = DeskAuditRun.__table__, DeskAuditFact.__table__

__all__ = ["FACTS", "RUNS", "DeskAuditFact", "DeskAuditRun", "create_audit_runs"]
