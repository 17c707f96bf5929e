"""The conflict list: every row of the product's conflict table, newest first, with the
repeats of one open pair folded into one line (no Qt, no writes).

The product inserts a fresh ``cross_agent`` row for the same open pair on every
harmonize pass; a *line* here is one contradiction row, or every ``cross_agent`` row of
one pair of facts (in either order), shown with its count and first/last time. A line's
key is the rowid of its newest row, so the list pages by key like the fact list: the
product writes rows as things happen, so rowid order is time order.

Reading is split so the first rows show at once on a 1,000,000-fact file (hundreds of
thousands of rows): ``first_lines`` folds from the newest row until a window is full
(the prefix of the folded list is the fold of a prefix of the rows), ``line_keys`` folds
the whole filtered table into an array of keys (ints only; run it off the UI thread),
and ``lines_for_keys`` reads one window of lines with the two facts' first words.

Rows whose facts no longer exist are listed and marked (``FactBrief.exists``). A
person's decisions come from our ``memdesk_conflict_reviews`` table when the file has it.
"""

from __future__ import annotations

import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from sqlalchemy import ColumnElement, Connection, and_, case, exists, func, literal_column, or_, select

from memorydesk.browse.conflicts.index import fact_columns, fact_mask, fold, row_mask
from memorydesk.browse.conflicts.rows import (
    CONTRADICTION,
    CROSS,
    REVIEWS,
    ROWID,
    SETTLING,
    ConflictLine,
    FactBrief,
    Reviews,
    has_reviews,
    head,
    pair_key,
    read_reviews,
)
from memorydesk.browse.history.as_of import desk_then
from memorydesk.store.workspace import Workspace

TYPES = (CONTRADICTION, CROSS)
STATES = ("all", "open", "resolved", "reviewed", "dangling")


@dataclass(frozen=True)
class ConflictQuery:
    """A filter over the conflict lines (all optional).

    ``state``: ``open`` (no resolution, not settled by a person), ``resolved`` (the rest),
    ``reviewed`` (a person decided or confirmed it), ``dangling`` (a fact is missing).
    ``domain`` / ``agent`` (an agent id) / ``text`` (a case-insensitive substring of
    topic or content) match either fact; ``fact``: lines naming this fact id.
    ``since`` / ``until``: unix seconds, on the rows' ``created_at``.
    """

    type: str | None = None
    state: str = "all"
    domain: str | None = None
    agent: str | None = None
    since: int | None = None
    until: int | None = None
    text: str = ""
    fact: str | None = None

    def with_(self, **changes: Any) -> ConflictQuery:
        return replace(self, **changes)

    @property
    def is_filtered(self) -> bool:
        return self != ConflictQuery()


@dataclass
class Listing:
    """Every line's key, in list order, and the number of rows they fold."""

    keys: array.array
    rows: int
    windows: dict[int, list[ConflictLine | None]] = field(default_factory=dict)


# --- the filter -----------------------------------------------------------------------------


def _fact_conditions(ws: Workspace, q: ConflictQuery) -> list[ColumnElement]:
    """The filters on facts (domain, agent, text); a row matches each through either fact."""
    f = ws.layout.facts.c
    out: list[ColumnElement] = []
    if q.domain:
        out.append(f.domain == q.domain)
    if q.agent:
        out.append(f.authored_by_agent_id == q.agent)
    if q.text.strip():
        needle = q.text.strip().lower()
        out.append(or_(func.instr(func.lower(f.topic), needle) > 0, func.instr(func.lower(f.content), needle) > 0))
    return out


def _where(ws: Workspace, conn: Connection, q: ConflictQuery) -> list[ColumnElement]:
    """The filter as SQL, but for the filters on facts (see ``_matching``)."""
    c, f = ws.layout.conflicts.c, ws.layout.facts
    clauses: list[ColumnElement] = []
    if q.type:
        clauses.append(c.conflict_type == q.type)
    if q.since is not None:
        clauses.append(c.created_at >= q.since)
    if q.until is not None:
        clauses.append(c.created_at <= q.until)
    if q.fact:
        clauses.append(or_(c.fact_a_id == q.fact, c.fact_b_id == q.fact))

    if q.state == "dangling":
        clauses.append(or_(~exists().where(f.c.id == c.fact_a_id), ~exists().where(f.c.id == c.fact_b_id)))
    elif q.state in ("open", "resolved", "reviewed"):
        cross = c.conflict_type == CROSS
        if has_reviews(conn):
            r = REVIEWS.c
            same_pair = or_(and_(r.fact_a_id == c.fact_a_id, r.fact_b_id == c.fact_b_id),
                            and_(r.fact_a_id == c.fact_b_id, r.fact_b_id == c.fact_a_id))
            pair_reviewed = exists().where(same_pair)
            pair_settled = exists().where(same_pair, r.decision.in_(SETTLING))
            row_reviewed = exists().where(r.conflict_id == c.id)
            reviewed = or_(and_(cross, pair_reviewed), and_(~cross, row_reviewed))
            settled = or_(and_(cross, pair_settled), and_(~cross, row_reviewed))
        else:
            reviewed = settled = literal_column("0") == 1
        is_open = and_(c.resolution.is_(None), ~settled)
        clauses.append({"open": is_open, "resolved": ~is_open, "reviewed": reviewed}[q.state])
    elif q.state != "all":
        raise ValueError(f"unknown state {q.state!r}; expected one of {', '.join(STATES)}")
    return clauses


def _raw_rows(ws: Workspace, conn: Connection, q: ConflictQuery, *, with_facts: bool = False) -> Any:
    """A cursor over (rowid, pair-or-NULL[, fact_a, fact_b]) of the matching rows, newest
    first; the pair (``lo|hi``) only for ``cross_agent`` rows, so a contradiction costs an int."""
    c = ws.layout.conflicts.c
    lo, hi = func.min(c.fact_a_id, c.fact_b_id), func.max(c.fact_a_id, c.fact_b_id)
    pair = case((c.conflict_type == CROSS, lo + "|" + hi), else_=None)
    columns = [ROWID, pair, c.fact_a_id, c.fact_b_id] if with_facts else [ROWID, pair]
    stmt = select(*columns).select_from(ws.layout.conflicts).where(*_where(ws, conn, q)) \
        .order_by(ROWID.desc())
    return _run(conn, stmt)


def _run(conn: Connection, stmt: Any) -> Any:
    """A cursor of the driver over ``stmt`` (no row objects made on the way)."""
    compiled = stmt.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
    params = [compiled.params[name] for name in (compiled.positiontup or [])]
    return conn.connection.driver_connection.execute(str(compiled), params)


def _chunks(cursor: Any, size: int) -> Iterator[list[Any]]:
    while chunk := cursor.fetchmany(size):
        yield chunk


def _fold(chunks: Iterable[list[Any]], limit: int | None = None) -> tuple[array.array, int]:
    """Line keys from (rowid, pair) rows newest first: a pair's line sits at its newest row."""
    keys = array.array("q")
    seen: set[str] = set()
    rows = 0
    for chunk in chunks:
        for key, pair in chunk:
            rows += 1
            if pair is not None:
                if pair in seen:
                    continue
                seen.add(pair)
            keys.append(key)
            if limit is not None and len(keys) >= limit:
                return keys, rows
    return keys, rows


def _by_index(ws: Workspace, conn: Connection, q: ConflictQuery) -> tuple[array.array, int] | None:
    """A filter on the facts answered from arrays kept per file version (``conflict_index``): the
    line keys and the row count, or None when the arrays cannot answer it (the SQL path does)."""
    cols = fact_columns(ws, conn)
    masks = fact_mask(cols, domain=q.domain, agent=q.agent, text=q.text) if cols is not None else None
    if cols is None or masks is None:
        return None
    index = cols.index
    keep = row_mask(index, masks)
    clauses = _where(ws, conn, q)
    if clauses:  # type, state, time, fact: SQL says which rows
        stmt = select(ROWID).select_from(ws.layout.conflicts).where(*clauses)
        chosen = np.fromiter((r[0] for r in _run(conn, stmt)), dtype=np.int64)
        keep &= np.isin(index.rowid, chosen)
    keys, rows = fold(index, keep)
    return array.array("q", keys.astype(np.int64).tobytes()), rows


def _matching(ws: Workspace, conn: Connection, q: ConflictQuery, chunk: int) -> Iterator[list[Any]]:
    """Chunks of (rowid, pair) of the matching rows, newest first.

    A filter on the facts (domain, agent, text) first reads the ids of the facts it
    matches (the domain index, or one pass over the facts), then keeps the rows naming
    one of them: asking the fact table about every row instead takes tens of seconds on
    600,000 rows, and more when few match."""
    conditions = _fact_conditions(ws, q)
    if not conditions:
        yield from _chunks(_raw_rows(ws, conn, q), chunk)
        return
    f = ws.layout.facts
    matching = [set(conn.execute(select(f.c.id).where(cond)).scalars()) for cond in conditions]
    for rows in _chunks(_raw_rows(ws, conn, q, with_facts=True), chunk):
        yield [(key, pair) for key, pair, a, b in rows if all(a in ids or b in ids for ids in matching)]


def reads_facts(q: ConflictQuery) -> bool:
    """Whether the filter needs the facts (a read of seconds on a 1,000,000-fact file)."""
    return bool(q.domain or q.agent or q.text.strip())


def line_keys(ws: Workspace, q: ConflictQuery) -> Listing:
    """Every matching line's key, newest first, and how many rows they fold.

    One pass over the matching rows (ints, plus the pair of each cross-agent row): a
    second or two for 600,000 rows; a filter on the facts adds a read of the facts it
    matches. Run it off the UI thread."""
    with ws.read() as conn:
        fast = _by_index(ws, conn, q) if reads_facts(q) else None
        keys, rows = fast if fast is not None else _fold(_matching(ws, conn, q, 65536))
    return Listing(keys, rows)


def first_lines(ws: Workspace, q: ConflictQuery, limit: int, as_of: int | None = None) -> list[ConflictLine]:
    """The first ``limit`` lines, read from the newest rows only (immediate at any size
    without filters on the facts); ``as_of``: as ``lines_for_keys``."""
    with ws.read() as conn:
        fast = _by_index(ws, conn, q) if reads_facts(q) else None
        if fast is not None:
            return [line for line in lines_for_keys(ws, fast[0][:limit], as_of) if line is not None]
        rows = _matching(ws, conn, q, 256)
        try:
            keys, _rows = _fold(rows, limit)
        finally:
            rows.close()  # the rest of the table is not read
    return [line for line in lines_for_keys(ws, keys, as_of) if line is not None]


# --- one window of lines ----------------------------------------------------------------------


def _fact_columns(alias: Any, prefix: str) -> list[Any]:
    cols = alias.c
    return [cols.id.label(f"{prefix}id"), literal_column(f"{alias.name}.rowid").label(f"{prefix}key"),
            cols.domain.label(f"{prefix}domain"), cols.topic.label(f"{prefix}topic"),
            func.substr(cols.content, 1, 400).label(f"{prefix}content"),
            cols.confidence.label(f"{prefix}confidence"), cols.veracity.label(f"{prefix}veracity"),
            cols.created_at.label(f"{prefix}created_at"), cols.superseded_by.label(f"{prefix}superseded_by"),
            cols.valid_until.label(f"{prefix}valid_until"), cols.authored_by_agent_id.label(f"{prefix}agent"),
            cols.authored_by_role.label(f"{prefix}role")]


def _brief(m: Any, prefix: str, fact_id: str, agents: dict[str, str]) -> FactBrief:
    if m[f"{prefix}id"] is None:
        return FactBrief(fact_id, False)
    agent = m[f"{prefix}agent"]
    return FactBrief(fact_id, True, int(m[f"{prefix}key"]), m[f"{prefix}domain"], m[f"{prefix}topic"],
                     head(m[f"{prefix}content"]), float(m[f"{prefix}confidence"]), m[f"{prefix}veracity"],
                     int(m[f"{prefix}created_at"]), m[f"{prefix}superseded_by"], m[f"{prefix}valid_until"],
                     agent, agents.get(agent) if agent else None, m[f"{prefix}role"])


def agent_names(ws: Workspace, conn: Connection) -> dict[str, str]:
    a = ws.layout.agents.c
    return dict(conn.execute(select(a.id, a.name)).all())


def _pair_rows(ws: Workspace, conn: Connection, pairs: set[tuple[str, str]]) -> dict[tuple[str, str], list[Any]]:
    """Every cross-agent row of these pairs (found through the fact_a index), newest first."""
    c = ws.layout.conflicts
    ids = sorted({x for p in pairs for x in p})
    found: dict[tuple[str, str], list[Any]] = {}
    for start in range(0, len(ids), 400):
        stmt = select(ROWID.label("key"), c.c.id, c.c.fact_a_id, c.c.fact_b_id, c.c.created_at) \
            .where(c.c.fact_a_id.in_(ids[start:start + 400]), c.c.conflict_type == CROSS)
        for r in conn.execute(stmt):
            p = pair_key(r.fact_a_id, r.fact_b_id)
            if p in pairs:
                found.setdefault(p, []).append(r)
    for rows in found.values():
        rows.sort(key=lambda r: r.key, reverse=True)
    return found


def lines_for_keys(ws: Workspace, keys: Sequence[int], as_of: int | None = None) -> list[ConflictLine | None]:
    """The lines of these keys, in the order given; None where a row is gone. ``as_of`` (the
    window's *as of*): people's decisions made after it are left out, and each fact the desk
    moved since is in its state then (``browse.history.as_of.desk_then``)."""
    wanted = list(keys)
    if not wanted:
        return []
    c = ws.layout.conflicts
    fa, fb = ws.layout.facts.alias("fa"), ws.layout.facts.alias("fb")
    found: dict[int, Any] = {}
    with ws.read() as conn:
        agents = agent_names(ws, conn)
        reviews = Reviews([r for r in read_reviews(conn) if as_of is None or r.at <= as_of])
        for start in range(0, len(wanted), 400):
            stmt = select(literal_column(f"{c.name}.rowid").label("key"), c, *_fact_columns(fa, "a_"),
                          *_fact_columns(fb, "b_")) \
                .select_from(c.outerjoin(fa, fa.c.id == c.c.fact_a_id).outerjoin(fb, fb.c.id == c.c.fact_b_id)) \
                .where(literal_column(f"{c.name}.rowid").in_(wanted[start:start + 400]))
            for r in conn.execute(stmt):
                found[int(r.key)] = r
        pairs = {pair_key(r.fact_a_id, r.fact_b_id) for r in found.values() if r.conflict_type == CROSS}
        folded = _pair_rows(ws, conn, pairs) if pairs else {}
    then = desk_then(ws, as_of) if as_of is not None else {}

    def brief(m: Any, prefix: str, fact_id: str) -> FactBrief:
        made = _brief(m, prefix, fact_id, agents)
        moved = then.get(fact_id)
        return made if moved is None or not made.exists else replace(made, superseded_by=moved.superseded_by)

    out: list[ConflictLine | None] = []
    for key in wanted:
        r = found.get(key)
        if r is None:
            out.append(None)
            continue
        m = r._mapping
        group = folded.get(pair_key(r.fact_a_id, r.fact_b_id)) if r.conflict_type == CROSS else None
        ids = tuple(g.id for g in group) if group else (r.id,)
        times = [g.created_at for g in group] if group else [r.created_at]
        mine = reviews.of(r.conflict_type, r.id, r.fact_a_id, r.fact_b_id)
        winner = r.winning_fact_id if r.winning_fact_id is not None else (
            r.fact_b_id if r.resolution is not None else None)
        out.append(ConflictLine(key, ids, r.conflict_type, r.resolution, r.fact_a_id, r.fact_b_id, winner,
                                min(times), max(times), brief(m, "a_", r.fact_a_id), brief(m, "b_", r.fact_b_id),
                                mine[-1] if mine else None, len(mine)))
    return out


def iter_lines(ws: Workspace, q: ConflictQuery, batch: int = 2000) -> Iterator[ConflictLine]:
    """Every matching line, newest first (the command line's listing)."""
    listing = line_keys(ws, q)
    for start in range(0, len(listing.keys), batch):
        for line in lines_for_keys(ws, listing.keys[start:start + batch]):
            if line is not None:
                yield line


def line_key_of(ws: Workspace, conflict_id: str) -> int | None:
    """The key of the line a conflict row belongs to (its pair's newest row), or None."""
    c = ws.layout.conflicts
    with ws.read() as conn:
        row = conn.execute(select(ROWID.label("key"), c.c.conflict_type, c.c.fact_a_id, c.c.fact_b_id)
                           .where(c.c.id == conflict_id)).first()
        if row is None:
            return None
        if row.conflict_type != CROSS:
            return int(row.key)
        rows = _pair_rows(ws, conn, {pair_key(row.fact_a_id, row.fact_b_id)})
    group = rows.get(pair_key(row.fact_a_id, row.fact_b_id))
    return int(group[0].key) if group else int(row.key)


def newest_reviewed(ws: Workspace) -> str | None:
    """The newest resolved conflict a person decided on whose two facts still exist, or None."""
    c, f = ws.layout.conflicts, ws.layout.facts
    with ws.read() as conn:
        if not has_reviews(conn):
            return None
        for conflict_id in conn.execute(select(REVIEWS.c.conflict_id).order_by(REVIEWS.c.at.desc(),
                                                                               ROWID.desc())).scalars():
            row = conn.execute(select(c.c.fact_a_id, c.c.fact_b_id).where(
                c.c.id == conflict_id, c.c.resolution.is_not(None))).first()
            if row is not None and conn.execute(select(func.count()).select_from(f).where(
                    f.c.id.in_([row.fact_a_id, row.fact_b_id]))).scalar_one() == 2:
                return conflict_id
    return None


__all__ = ["CONTRADICTION", "CROSS", "STATES", "TYPES", "ConflictLine", "ConflictQuery", "FactBrief", "Listing",
           "Reviews", "agent_names", "first_lines", "has_reviews", "head", "iter_lines", "line_key_of", "line_keys",
           "lines_for_keys", "newest_reviewed", "pair_key", "read_reviews", "reads_facts"]
