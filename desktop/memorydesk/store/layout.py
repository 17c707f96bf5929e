"""Which of the product's two physical layouts a file uses (docs/product-format.md, "The file").

Schema 13 names the memory tables with a ``_table`` suffix; the newer revision drops
it (and re-counts ``user_version``, so only ``sqlite_master`` tells them apart). A
``Layout`` carries the Core ``Table`` objects under the names this file uses, so the
rest of the code writes one query for both.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, MetaData, Table

from memorydesk.store import models

SUFFIXED = "suffixed"
UNSUFFIXED = "unsuffixed"

_MODEL_BY_ROLE = {
    "agents": models.Agent,
    "notes": models.AgentWorkingMemory,
    "domains": models.MemoryDomain,
    "facts": models.MemoryFact,
    "policies": models.MemoryPolicy,
    "grants": models.MemoryAccessGrant,
    "conflicts": models.MemoryConflict,
    "edges": models.EpisodicEdge,
    "items": models.WorkingMemoryItem,
    "consolidation_log": models.MemoryConsolidationLog,
    "beliefs": models.MemoryBelief,
}


def _newer_name(name: str) -> str:
    return name.removesuffix("_table")


@dataclass(frozen=True)
class Layout:
    kind: str
    agents: Table
    notes: Table
    domains: Table
    facts: Table
    policies: Table
    grants: Table
    conflicts: Table
    edges: Table
    items: Table
    consolidation_log: Table
    beliefs: Table

    @property
    def fts(self) -> str:
        return "memory_facts_fts"


def _build(kind: str) -> Layout:
    if kind == SUFFIXED:
        tables = {role: model.__table__ for role, model in _MODEL_BY_ROLE.items()}
    else:
        metadata = MetaData()
        tables = {}
        # agents first: other tables' foreign keys name it
        for role, model in _MODEL_BY_ROLE.items():
            source: Table = model.__table__  # type: ignore[assignment]
            tables[role] = source.to_metadata(metadata, name=_newer_name(source.name))
    return Layout(kind=kind, **tables)


LAYOUTS = {SUFFIXED: _build(SUFFIXED), UNSUFFIXED: _build(UNSUFFIXED)}


def table_names(conn: Connection) -> set[str]:
    rows = conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
    return {r[0] for r in rows}


def detect(names: set[str]) -> Layout | None:
    """The layout of a file from its table names, or None when it holds no memory tables."""
    if "memory_facts_table" in names:
        return LAYOUTS[SUFFIXED]
    if "memory_facts" in names:
        return LAYOUTS[UNSUFFIXED]
    return None
