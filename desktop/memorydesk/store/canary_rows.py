"""The canary's rows, found by their mark wherever a run left them (docs/cli.md, ``canary``).

Every row a canary run writes carries its id, ``canary-`` and twelve hex digits, at the start
of a scope: the lanes, versions and mid-term segments of our tier tables (``user_scope``), the
hot tier's items (``session_id``), the long-term facts (domain ``working-memory``, topic = the
scope), and its receipts (``userScope``); its facts' links and conflicts name those facts. A
run records itself in ``memdesk_meta`` (``canary_run:ID`` = its process id) before it writes
anything and removes that record once it removed its rows. Rows of a run that is not running
any more — killed mid-way, or from before runs recorded themselves — are *leftovers*: the
next canary removes them first and says what it removed, ``check`` lists them
(``canary_leftover``) and ``check --repair`` removes them, and ``review`` says they are there.
A run still running (its process alive) is never touched. The receipts of a finished run
kept with ``--keep-receipts`` are not leftovers: its memory rows are gone, and only those
make a run's rows leftovers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import Connection, select

from memorydesk.store import receipt_blocks as blocks
from memorydesk.store.files import process_alive
from memorydesk.store.layout import Layout
from memorydesk.store.ours import LPM_DOMAIN, DeskLane, DeskMemoryVersion, DeskPage, DeskSegment

MARK = re.compile(r"canary-[0-9a-f]{12}")
RUN_KEY = "canary_run:"
LANES, VERSIONS = DeskLane.__table__, DeskMemoryVersion.__table__
SEGMENTS, PAGES = DeskSegment.__table__, DeskPage.__table__


def new_id() -> str:
    import secrets

    return "canary-" + secrets.token_hex(6)


def begin(conn: Connection, canary_id: str, pid: int) -> None:
    """Record a run before it writes: while its process lives, its rows are not leftovers."""
    conn.exec_driver_sql("INSERT OR REPLACE INTO memdesk_meta (key, value) VALUES (?, ?)",
                         (RUN_KEY + canary_id, str(pid)))


def end(conn: Connection, canary_id: str) -> None:
    conn.exec_driver_sql("DELETE FROM memdesk_meta WHERE key = ?", (RUN_KEY + canary_id,))


def _running(conn: Connection) -> dict[str, int]:
    rows = conn.exec_driver_sql("SELECT key, value FROM memdesk_meta WHERE key LIKE ?", (RUN_KEY + "%",)).all()
    return {key.removeprefix(RUN_KEY): int(value) for key, value in rows if str(value).isdigit()}


@dataclass
class Leftover:
    """What one canary run left: row ids per table, and how many receipts."""

    canary_id: str
    rows: dict[str, list[str]] = field(default_factory=dict)
    receipts: int = 0

    def summary(self) -> str:
        parts = [f"{len(ids):,} {table}" for table, ids in self.rows.items() if ids]
        if self.receipts:
            parts.append(f"{self.receipts:,} receipts")
        return ", ".join(parts)


def _ids_in(conn: Connection, layout: Layout) -> set[str]:
    """Every canary id some row starts with (by the mark, checked in full)."""
    found: set[str] = set()
    for column in (LANES.c.user_scope, VERSIONS.c.user_scope, SEGMENTS.c.user_scope, layout.items.c.session_id):
        found |= {str(v).split("/", 1)[0] for v in conn.execute(
            select(column).where(column.like("canary-%/%")).distinct()).scalars()}
    facts = layout.facts
    found |= {str(v).split("/", 1)[0] for v in conn.execute(
        select(facts.c.topic).where(facts.c.domain == LPM_DOMAIN, facts.c.topic.like("canary-%/%")).distinct()
    ).scalars()}
    return {i for i in found if MARK.fullmatch(i)}


def _rows_of(conn: Connection, layout: Layout, canary_id: str) -> dict[str, list[str]]:
    like = f"{canary_id}/%"
    facts, items, edges, conflicts = layout.facts, layout.items, layout.edges, layout.conflicts
    fact_ids = list(conn.execute(select(facts.c.id).where(facts.c.domain == LPM_DOMAIN,
                                                          facts.c.topic.like(like))).scalars())
    segment_ids = list(conn.execute(select(SEGMENTS.c.id).where(SEGMENTS.c.user_scope.like(like))).scalars())
    return {
        facts.name: fact_ids,
        edges.name: [str(i) for i in conn.execute(select(edges.c.id).where(
            edges.c.source_fact_id.in_(fact_ids) | edges.c.target_fact_id.in_(fact_ids))).scalars()],
        conflicts.name: [str(i) for i in conn.execute(select(conflicts.c.id).where(
            conflicts.c.fact_a_id.in_(fact_ids) | conflicts.c.fact_b_id.in_(fact_ids))).scalars()],
        items.name: list(conn.execute(select(items.c.id).where(items.c.session_id.like(like))).scalars()),
        PAGES.name: list(conn.execute(select(PAGES.c.id).where(PAGES.c.segment_id.in_(segment_ids))).scalars()),
        SEGMENTS.name: segment_ids,
        VERSIONS.name: list(conn.execute(select(VERSIONS.c.item_id).where(VERSIONS.c.user_scope.like(like)))
                            .scalars()),
        LANES.name: [f"{u}|{a}" for u, a in conn.execute(select(LANES.c.user_scope, LANES.c.assistant_scope)
                                                          .where(LANES.c.user_scope.like(like))).all()],
    }


def _receipt_codes(raw, canary_id: str) -> np.ndarray:
    if not blocks.has_blocks(raw):
        return np.zeros(0, np.int64)
    return np.asarray([c for (c,) in raw.execute(f"SELECT code FROM {blocks.NAMES} WHERE name LIKE ?",
                                                 (f"{canary_id}/%",))], np.int64)


def leftovers(conn: Connection, layout: Layout, *, besides: Iterable[str] = ()) -> list[Leftover]:
    """The rows of every canary run that is not running (nor one of ``besides``), run by run."""
    running = {i for i, pid in _running(conn).items() if process_alive(pid)} | set(besides)
    raw = conn.connection.driver_connection
    out = []
    for canary_id in sorted(_ids_in(conn, layout) - running):
        left = Leftover(canary_id, {t: ids for t, ids in _rows_of(conn, layout, canary_id).items() if ids})
        if not left.rows:
            continue
        codes = _receipt_codes(raw, canary_id)
        if len(codes) and not blocks.has_rows(raw):
            rec, _text = blocks.stored(raw)
            left.receipts = int(np.isin(rec["user"], codes).sum())
        out.append(left)
    return out


def stale_runs(conn: Connection) -> list[str]:
    """Runs recorded as running whose process is gone (a killed gate)."""
    return sorted(i for i, pid in _running(conn).items() if not process_alive(pid))


def remove(conn: Connection, layout: Layout, canary_id: str, *, receipts: bool = True) -> None:
    """Remove a run's rows from every tier (and its receipts unless ``receipts`` is False)."""
    if not MARK.fullmatch(canary_id):
        raise ValueError(f"not a canary id: {canary_id!r}")
    rows = _rows_of(conn, layout, canary_id)
    facts, items, edges, conflicts = layout.facts, layout.items, layout.edges, layout.conflicts
    like = f"{canary_id}/%"
    fact_ids = rows[facts.name]
    conn.execute(edges.delete().where(edges.c.source_fact_id.in_(fact_ids) | edges.c.target_fact_id.in_(fact_ids)))
    conn.execute(conflicts.delete().where(conflicts.c.fact_a_id.in_(fact_ids) | conflicts.c.fact_b_id.in_(fact_ids)))
    conn.execute(facts.delete().where(facts.c.id.in_(fact_ids)))
    conn.execute(items.delete().where(items.c.session_id.like(like)))
    conn.execute(PAGES.delete().where(PAGES.c.segment_id.in_(rows[SEGMENTS.name])))
    conn.execute(SEGMENTS.delete().where(SEGMENTS.c.user_scope.like(like)))
    conn.execute(VERSIONS.delete().where(VERSIONS.c.user_scope.like(like)))
    conn.execute(LANES.delete().where(LANES.c.user_scope.like(like)))
    if receipts:
        codes = _receipt_codes(conn.connection.driver_connection, canary_id)
        if len(codes):
            blocks.remove(conn, lambda rec, _text: np.isin(rec["user"], codes))
    end(conn, canary_id)


def remove_leftovers(conn: Connection, layout: Layout, *, besides: Iterable[str] = ()) -> list[Leftover]:
    """Remove every leftover (``leftovers``) and the records of runs whose process is gone; what was removed."""
    found = leftovers(conn, layout, besides=besides)
    for left in found:
        remove(conn, layout, left.canary_id)
    for canary_id in stale_runs(conn):
        if canary_id not in set(besides):
            end(conn, canary_id)
    return found
