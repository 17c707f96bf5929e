"""What a workspace already holds from earlier MemoryOS imports (read inside the import's
transaction, or on a read-only connection for ``--dry-run``).

A table that does not exist yet (a workspace never imported into, or an older desk
schema read without migrating it) simply holds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Table, select

from memorydesk.lineage import receipt_store
from memorydesk.store import receipt_blocks
from memorydesk.store.layout import Layout
from memorydesk.store.ours import (
    DeskLane,
    DeskMemoryOSItem,
    DeskMemoryOSPage,
    DeskMemoryOSSession,
    DeskMemoryOSUser,
    DeskMemoryVersion,
    DeskPage,
    DeskSegment,
)

USERS, LEDGER = DeskMemoryOSUser.__table__, DeskMemoryOSItem.__table__
SESSIONS, PAGE_DETAILS = DeskMemoryOSSession.__table__, DeskMemoryOSPage.__table__
SEGMENTS, PAGES, VERSIONS = DeskSegment.__table__, DeskPage.__table__, DeskMemoryVersion.__table__
LANES = DeskLane.__table__
CHUNK = 500


@dataclass
class State:
    users: dict[str, tuple[str, str]] = field(default_factory=dict)  # user -> (assistant scope, timezone)
    ledger: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (kind, owner)
    registry: dict[str, tuple[str, str]] = field(default_factory=dict)  # QA item id -> (run id, version)
    receipt_ids: set[str] = field(default_factory=set)
    hot_items: set[str] = field(default_factory=set)  # ledger STM items still in the hot tier
    segments: dict[str, dict[str, Any]] = field(default_factory=dict)  # segment id -> stored values
    pages: dict[str, dict[str, Any]] = field(default_factory=dict)  # page row id -> stored values
    active_profiles: dict[str, str] = field(default_factory=dict)  # imported profile not superseded -> its text
    agent_ids: set[str] = field(default_factory=set)
    agent_names: set[str] = field(default_factory=set)
    lanes: set[tuple[str, str]] = field(default_factory=set)

    def owned(self, owner: str, *kinds: str) -> list[str]:
        return [i for i, (kind, who) in self.ledger.items() if who == owner and kind in kinds]


def _chunks(values: Iterable[str]) -> Iterator[list[str]]:
    values = list(values)
    for start in range(0, len(values), CHUNK):
        yield values[start:start + CHUNK]


def _rows(conn: Connection, query, column, values: Iterable[str]) -> list[Any]:
    return [row for chunk in _chunks(values) for row in conn.execute(query.where(column.in_(chunk))).all()]


def _values(row: Any, table: Table, skip: tuple[str, ...]) -> dict[str, Any]:
    return {c.name: getattr(row, c.name) for c in table.columns if c.name not in skip}


def load_state(conn: Connection | None, layout: Layout | None, users: list[str], assistants: list[str]) -> State:
    """Everything earlier imports left for these users and assistants (and the lanes the users were given)."""
    state = State()
    if conn is None or layout is None:
        return state
    tables = {name for (name,) in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type='table'")}
    agents = layout.agents
    for row in conn.execute(select(agents.c.id, agents.c.name)).all():
        state.agent_ids.add(row.id)
        state.agent_names.add(row.name)
    if tables & {receipt_blocks.BLOCKS, receipt_blocks.ROWS}:
        state.receipt_ids = receipt_store.receipt_ids_of(conn, users)
    if VERSIONS.name in tables:
        query = select(VERSIONS.c.item_id, VERSIONS.c.run_id, VERSIONS.c.version)
        state.registry = {r.item_id: (r.run_id, r.version) for r in _rows(conn, query, VERSIONS.c.user_scope, users)}
    if LANES.name in tables:
        query = select(LANES.c.user_scope, LANES.c.assistant_scope)
        state.lanes = {(r.user_scope, r.assistant_scope) for r in _rows(conn, query, LANES.c.user_scope, users)}
    if USERS.name not in tables:
        return state
    query = select(USERS)
    state.users = {r.user_scope: (r.assistant_scope, r.timezone) for r in _rows(conn, query, USERS.c.user_scope, users)}
    owners = set(users) | set(assistants) | {assistant for assistant, _zone in state.users.values()}
    state.ledger = {r.id: (r.kind, r.owner) for r in _rows(conn, select(LEDGER), LEDGER.c.owner, sorted(owners))}
    by_kind: dict[str, list[str]] = {}
    for item_id, (kind, _owner) in state.ledger.items():
        by_kind.setdefault(kind, []).append(item_id)
    items = layout.items
    state.hot_items = {r.id for r in _rows(conn, select(items.c.id), items.c.id, by_kind.get("stm", []))}
    query = select(SEGMENTS, SESSIONS).join(SESSIONS, SESSIONS.c.segment_id == SEGMENTS.c.id)
    for row in _rows(conn, query, SEGMENTS.c.id, by_kind.get("segment", [])):
        state.segments[row.id] = _values(row, SEGMENTS, ("id",)) | _values(row, SESSIONS, ("segment_id",))
    query = select(PAGES, PAGE_DETAILS).join(PAGE_DETAILS, PAGE_DETAILS.c.page_row_id == PAGES.c.id)
    for row in _rows(conn, query, PAGES.c.id, by_kind.get("page", [])):
        state.pages[row.id] = _values(row, PAGES, ("id",)) | _values(row, PAGE_DETAILS, ("page_row_id",))
    facts = layout.facts
    fact_ids = by_kind.get("profile", [])
    query = select(facts.c.id, facts.c.content).where(facts.c.superseded_by.is_(None))
    state.active_profiles = {row.id: row.content for row in _rows(conn, query, facts.c.id, fact_ids)}
    return state
