"""The fact list's read queries: what the Facts tab lists (no Qt, no writes).

Everything is done in SQL and in windows: a view asks for the rows of one window of a
filtered, sorted list (``fact_rows``), the count runs separately (``count_facts``) so
the UI can run it in the background, and nothing here ever loads every row of a
1,000,000-fact file. Every sort ends with ``rowid`` so a window is stable between
calls; ``position_of`` finds where a fact sits in the list (to keep a selection
across a refresh).

The default order, ``NATURAL``, is the order facts were written, newest first: the
product inserts facts as they happen, so this is newest first by time too, and SQLite
pages it by key without sorting anything (the first window of 1,000,000 facts comes
back in about a millisecond). Other sorts need every matching row sorted first; the
product's tables have no index for them and the desk may not add one, so the UI asks
for those (``fact_keys``) in the background.

One fact in full, policies and agents are in ``browse_detail``.
"""

from __future__ import annotations

import array
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    and_,
    case,
    false,
    func,
    literal,
    literal_column,
    or_,
    select,
)

from memorydesk.browse.history.as_of import Then, changed_since, desk_then, state_at, superseded_at_sql, where_at
from memorydesk.core.product.fts_query import is_keyword_reachable
from memorydesk.store.workspace import Workspace

DELETED = "human:deleted"
REPO_PREFIX = "repo:"

MEMORY_TYPES = (
    "fact", "preference", "decision", "commitment", "goal", "event", "instruction", "relationship",
    "context", "learning", "observation", "error", "artifact", "request", "unknown",
)
VERACITIES = ("stated", "inferred", "tool", "imported", "unknown")
STATES = ("all", "active", "expired", "superseded", "deleted")  # as of a time, also "unknown" (as_of.STATES)
#: the order facts were written (rowid); see the module docstring
NATURAL = "rowid"
#: the order of ``FactQuery.ids`` (a search's rank order: the product's own, best first when ascending)
RANK = "rank"

# the columns a list window carries (no embedding blobs: they are 1.5 KB each)
LIST_COLUMNS = (
    "key", "id", "domain", "topic", "content", "memory_type", "veracity", "confidence", "created_at",
    "updated_at", "recall_count", "mention_count", "superseded_by", "valid_until", "has_embedding",
)
SORTABLE = (
    NATURAL, RANK, "domain", "topic", "content", "memory_type", "veracity", "confidence", "created_at", "updated_at",
    "recall_count", "mention_count", "state", "valid_until",
)


@dataclass(frozen=True)
class FactQuery:
    """A filter and a sort over the facts of a workspace.

    ``domain``: an exact domain, ``repo:<slug>/*`` for every domain of one repo, or
    ``*/<name>`` for a bare name together with its repo-scoped forms.
    ``text``: a substring of topic or content (ASCII case-insensitive).
    ``ids``: restrict to these ids (search results), or None.
    ``sort``: a column of ``SORTABLE``; ``NATURAL`` (the default) is the order written;
    ``RANK`` the order of ``ids`` (a keyword search's hits in the product's rank order:
    ascending puts its best hit first).
    """

    domain: str | None = None
    memory_type: str | None = None
    veracity: str | None = None
    state: str = "all"
    min_confidence: float | None = None
    max_confidence: float | None = None
    created_from: int | None = None
    created_to: int | None = None
    has_embedding: bool | None = None
    text: str = ""
    ids: tuple[str, ...] | None = None
    sort: str = NATURAL
    descending: bool = True
    now: int | None = field(default=None, compare=False)
    as_of: int | None = None  # memory as it stood then (``browse.history.as_of``): facts created by then, states then

    def with_(self, **changes: Any) -> FactQuery:
        return replace(self, **changes)

    @property
    def is_filtered(self) -> bool:
        return self != FactQuery(sort=self.sort, descending=self.descending)

    @property
    def pages_by_key(self) -> bool:
        """Whether the first window comes back without sorting every matching row."""
        return self.sort == NATURAL


@dataclass(frozen=True)
class FactRow:
    """One fact as a list shows it (``key`` is its rowid in this file).

    ``keyword_reachable``: whether any keyword query of the product can match its text
    at all (``search.keyword.is_keyword_reachable``); a fact without a single
    ``[a-z0-9]`` term — pure Hebrew, say — is invisible to the agent's keyword search
    and to the dispatch preamble, however it is worded.
    """

    key: int
    id: str
    domain: str
    topic: str
    content: str
    memory_type: str
    veracity: str
    confidence: float
    created_at: int
    updated_at: int
    recall_count: int
    mention_count: int
    superseded_by: str | None
    valid_until: int | None
    has_embedding: bool
    keyword_reachable: bool = True
    superseded_at: int | None = None  # when its supersession happened (``browse.history.as_of``)
    then: Then | None = None  # read as of a time, and moved by the desk since: what it was then

    def state(self, now: int | None = None, as_of: int | None = None) -> str:
        if as_of is not None:
            if self.then is not None:
                return self.then.state(as_of)
            return state_at(self.superseded_by, self.superseded_at, self.valid_until, as_of)
        return fact_state(self.superseded_by, self.valid_until, now)

    def changed_since(self, as_of: int) -> bool:
        """Whether its row changed after ``as_of`` (written again, superseded, moved by the desk)."""
        if self.then is not None:
            return self.then.moved_since or changed_since(self.updated_at, self.then.superseded_at, as_of)
        return changed_since(self.updated_at, self.superseded_at, as_of) or self.state(as_of=as_of) == "unknown"


def fact_state(superseded_by: str | None, valid_until: int | None, now: int | None = None) -> str:
    """active / expired / deleted / superseded (sentinels and fact ids alike)."""
    if superseded_by is None:
        if valid_until is not None and valid_until < (now if now is not None else int(time.time())):
            return "expired"
        return "active"
    if superseded_by == DELETED:
        return "deleted"
    return "superseded"


# --- building the statement ------------------------------------------------------------


def _lowered(column: ColumnElement, value: str, known: Sequence[str], default: str) -> ColumnElement:
    """The product parses enums case-insensitively, unknown strings as the default."""
    value = value.lower()
    if value == default:
        return or_(func.lower(column) == value, func.lower(column).not_in(list(known)))
    return func.lower(column) == value


def _domain_clause(column: ColumnElement, domain: str) -> ColumnElement:
    if domain.startswith(REPO_PREFIX) and domain.endswith("/*"):
        prefix = domain[:-1]  # "repo:<slug>/"
        return func.substr(column, 1, len(prefix)) == prefix
    if domain.startswith("*/"):
        name = domain[2:]
        return or_(column == name, and_(func.substr(column, 1, len(REPO_PREFIX)) == REPO_PREFIX,
                                        func.substr(column, -len(name) - 1) == "/" + name))
    return column == domain


def _where(ws: Workspace, q: FactQuery) -> list[ColumnElement]:
    f = ws.layout.facts.c
    now = q.now if q.now is not None else int(time.time())
    clauses: list[ColumnElement] = []
    if q.domain:
        clauses.append(_domain_clause(f.domain, q.domain))
    if q.memory_type:
        clauses.append(_lowered(f.memory_type, q.memory_type, MEMORY_TYPES, "fact"))
    if q.veracity:
        clauses.append(_lowered(f.veracity, q.veracity, VERACITIES, "stated"))
    if q.as_of is not None:
        clauses += where_at(ws, q.state, q.as_of)
    elif q.state == "active":  # one definition everywhere: in force and not past its valid_until (fact_state)
        clauses += [f.superseded_by.is_(None), or_(f.valid_until.is_(None), f.valid_until >= now)]
    elif q.state == "expired":
        clauses += [f.superseded_by.is_(None), f.valid_until.is_not(None), f.valid_until < now]
    elif q.state == "deleted":
        clauses.append(f.superseded_by == DELETED)
    elif q.state == "superseded":
        clauses += [f.superseded_by.is_not(None), f.superseded_by != DELETED]
    elif q.state != "all":
        raise ValueError(f"unknown state {q.state!r}; expected one of {', '.join(STATES)}")
    if q.min_confidence is not None:
        clauses.append(f.confidence >= q.min_confidence)
    if q.max_confidence is not None:
        clauses.append(f.confidence <= q.max_confidence)
    if q.created_from is not None:
        clauses.append(f.created_at >= q.created_from)
    if q.created_to is not None:
        clauses.append(f.created_at <= q.created_to)
    if q.has_embedding is not None:
        clauses.append(f.embedding.is_not(None) if q.has_embedding else f.embedding.is_(None))
    if q.text.strip():
        needle = q.text.strip().lower()
        clauses.append(or_(func.instr(func.lower(f.topic), needle) > 0,
                           func.instr(func.lower(f.content), needle) > 0))
    if q.ids is not None:
        clauses.append(f.id.in_(list(q.ids)) if q.ids else false())
    return clauses


def _sort_key(ws: Workspace, q: FactQuery) -> ColumnElement:
    f = ws.layout.facts.c
    if q.sort == NATURAL:
        return literal_column("rowid")
    if q.sort == "state":
        return case((f.superseded_by.is_(None), 0), (f.superseded_by == DELETED, 2), else_=1)
    if q.sort == RANK:
        if not q.ids:
            return literal(0)  # a bound constant (a literal 0 would name a column): rowid decides
        return case({fid: i for i, fid in enumerate(q.ids)}, value=f.id, else_=len(q.ids))
    if q.sort not in SORTABLE:
        raise ValueError(f"cannot sort by {q.sort!r}")
    return f[q.sort]


def _order(ws: Workspace, q: FactQuery) -> list[ColumnElement]:
    key = _sort_key(ws, q)
    rowid = literal_column("rowid")
    if q.sort == NATURAL:
        return [rowid.desc() if q.descending else rowid.asc()]
    return [key.desc(), rowid.desc()] if q.descending else [key.asc(), rowid.asc()]


def _list_select(ws: Workspace) -> Select:
    f = ws.layout.facts.c
    cols = [f[name] for name in LIST_COLUMNS if name not in ("key", "has_embedding")]
    return select(literal_column("rowid").label("key"), *cols,
                  f.embedding.is_not(None).label("has_embedding"),
                  literal_column(superseded_at_sql(ws)).label("superseded_at")).select_from(ws.layout.facts)


def _row(r: Any) -> FactRow:
    m = r._mapping
    return FactRow(**{name: m[name] for name in LIST_COLUMNS if name != "has_embedding"},
                   has_embedding=bool(m["has_embedding"]), superseded_at=m["superseded_at"],
                   keyword_reachable=is_keyword_reachable(m["topic"], m["content"]))


def fact_keys(ws: Workspace, q: FactQuery) -> array.array:
    """The row keys (rowids) of every matching fact, in list order, as a compact array.

    This is the one query that touches every matching row (8 bytes each: about 0.7 s and
    8 MB for 1,000,000 facts); run it off the UI thread. Windows of rows are then read
    by key with ``rows_for_keys`` in a couple of milliseconds, wherever they are.
    """
    if q.sort == RANK:
        return _rank_keys(ws, q)
    stmt = select(literal_column("rowid")).select_from(ws.layout.facts).where(*_where(ws, q)) \
        .order_by(*_order(ws, q))
    with ws.read() as conn:
        compiled = stmt.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
        params = [compiled.params[name] for name in (compiled.positiontup or [])]
        cursor = conn.connection.driver_connection.execute(str(compiled), params)
        keys = array.array("q")
        while chunk := cursor.fetchmany(65536):
            keys.extend(r[0] for r in chunk)
        return keys


def _rank_keys(ws: Workspace, q: FactQuery) -> array.array:
    """``fact_keys`` in the order of ``q.ids`` (a search's hits, a few hundred at most): the
    matching rows read once and put in order here, as ``_order`` would (rowid breaks ties)."""
    place = {fid: i for i, fid in enumerate(q.ids or ())}
    f = ws.layout.facts
    with ws.read() as conn:
        rows = conn.execute(select(literal_column("rowid"), f.c.id).select_from(f).where(*_where(ws, q))).all()
    rows.sort(key=lambda r: (place.get(r[1], len(place)), r[0]), reverse=q.descending)
    return array.array("q", [int(r[0]) for r in rows])


def _then(ws: Workspace, rows: list[Any], as_of: int | None) -> list[Any]:
    """``rows`` as of a time: each fact the desk moved since carries what it was then."""
    if as_of is None:
        return rows
    then = desk_then(ws, as_of)
    return [r if r is None or r.id not in then else replace(r, then=then[r.id]) for r in rows]


def rows_for_keys(ws: Workspace, keys: Sequence[int], as_of: int | None = None) -> list[FactRow | None]:
    """List rows for these row keys, in the order given; None where a row is gone (``as_of``:
    each in its state then, ``FactRow.then``)."""
    if not len(keys):
        return []
    found: dict[int, FactRow] = {}
    wanted = list(keys)
    with ws.read() as conn:
        for start in range(0, len(wanted), 500):
            stmt = _list_select(ws).where(literal_column("rowid").in_(wanted[start:start + 500]))
            for r in conn.execute(stmt):
                row = _row(r)
                found[row.key] = row
    return _then(ws, [found.get(k) for k in wanted], as_of)


# --- the list ----------------------------------------------------------------------------


def fact_rows(ws: Workspace, q: FactQuery, offset: int, limit: int) -> list[FactRow]:
    """One window of the filtered, sorted list.

    In the ``NATURAL`` order the first window is immediate at any size; in any other
    order this sorts every matching row (seconds at 1,000,000): prefer ``fact_keys``.
    """
    stmt = _list_select(ws).where(*_where(ws, q)).order_by(*_order(ws, q)).offset(max(0, offset)).limit(limit)
    with ws.read() as conn:
        rows = [_row(r) for r in conn.execute(stmt)]
    return _then(ws, rows, q.as_of)


def fact_ids(ws: Workspace, q: FactQuery, offset: int = 0, limit: int = 1000) -> list[str]:
    """The ids of one window of the filtered, sorted list."""
    f = ws.layout.facts
    stmt = select(f.c.id).where(*_where(ws, q)).order_by(*_order(ws, q)).offset(max(0, offset)).limit(limit)
    with ws.read() as conn:
        return list(conn.execute(stmt).scalars())


def rows_for_ids(ws: Workspace, ids: Sequence[str]) -> list[FactRow]:
    """Full list rows for these ids, in the order given (missing ids are left out)."""
    if not ids:
        return []
    f = ws.layout.facts
    found: dict[str, FactRow] = {}
    with ws.read() as conn:
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            for r in conn.execute(_list_select(ws).where(f.c.id.in_(chunk))):
                row = _row(r)
                found[row.id] = row
    return [found[i] for i in ids if i in found]


def count_facts(ws: Workspace, q: FactQuery | None = None) -> int:
    """How many facts match (all facts when ``q`` is None). Slow on huge files: run it off the UI thread."""
    f = ws.layout.facts
    where = _where(ws, q) if q is not None else []
    with ws.read() as conn:
        return int(conn.execute(select(func.count()).select_from(f).where(*where)).scalar_one())


def position_of(ws: Workspace, q: FactQuery, fact_id: str) -> int | None:
    """Index of a fact in the filtered, sorted list, or None when it is not in it."""
    f = ws.layout.facts
    key = _sort_key(ws, q)
    rowid = literal_column("rowid")
    with ws.read() as conn:
        hit = conn.execute(select(key.label("k"), rowid.label("r")).select_from(f)
                           .where(f.c.id == fact_id, *_where(ws, q))).first()
        if hit is None:
            return None
        k, r = hit
        if k is None:
            before = or_(key.is_not(None), and_(key.is_(None), rowid > r)) if q.descending else \
                and_(key.is_(None), rowid < r)
        elif q.descending:
            before = or_(key > k, and_(key == k, rowid > r))
        else:
            before = or_(key.is_(None), key < k, and_(key == k, rowid < r))
        stmt = select(func.count()).select_from(f).where(before, *_where(ws, q))
        return int(conn.execute(stmt).scalar_one())


def placements(ws: Workspace, q: FactQuery, fact_ids: Sequence[str]) -> dict[str, tuple[int | None, int | None]]:
    """For each fact: (its row key, or None when it no longer exists; its place in the
    filtered, sorted list, or None when it is not listed) — what a list needs to patch
    itself after a change to a few facts."""
    f = ws.layout.facts
    out: dict[str, tuple[int | None, int | None]] = {}
    with ws.read() as conn:
        keys = dict(conn.execute(select(f.c.id, literal_column("rowid")).where(f.c.id.in_(list(fact_ids)))).all())
    for fid in fact_ids:
        key = keys.get(fid)
        out[fid] = (key, position_of(ws, q, fid) if key is not None else None)
    return out


# --- domains and totals (the filter bar, the status bar) -------------------------------


@dataclass(frozen=True)
class DomainCount:
    name: str
    count: int

    @property
    def repo(self) -> str | None:
        """The repo slug of a ``repo:<slug>/<name>`` domain, else None."""
        if self.name.startswith(REPO_PREFIX) and "/" in self.name:
            return self.name[len(REPO_PREFIX):].split("/", 1)[0]
        return None

    @property
    def bare(self) -> str:
        return self.name.split("/", 1)[1] if self.repo is not None else self.name


def domains(ws: Workspace) -> list[DomainCount]:
    """Every distinct fact domain with its fact count (uses the domain index)."""
    f = ws.layout.facts.c
    with ws.read() as conn:
        rows = conn.execute(select(f.domain, func.count()).group_by(f.domain).order_by(f.domain)).all()
    return [DomainCount(name, int(n)) for name, n in rows]


def repo_groups(items: Sequence[DomainCount]) -> dict[str, list[DomainCount]]:
    """Repo-scoped domains grouped by repo slug."""
    groups: dict[str, list[DomainCount]] = {}
    for item in items:
        if item.repo is not None:
            groups.setdefault(item.repo, []).append(item)
    return groups


def counts(ws: Workspace) -> dict[str, int]:
    """Totals for the status bar: facts, active facts, policies, active policies."""
    f, p = ws.layout.facts, ws.layout.policies
    with ws.read() as conn:
        facts_all = conn.execute(select(func.count()).select_from(f)).scalar_one()
        now = int(time.time())  # active as the Active filter and ``fact_state`` say: not expired either
        facts_active = conn.execute(select(func.count()).select_from(f).where(
            f.c.superseded_by.is_(None), or_(f.c.valid_until.is_(None), f.c.valid_until >= now))).scalar_one()
        pol = conn.execute(select(func.count(), func.coalesce(func.sum(p.c.active), 0))
                           .select_from(p)).one()
    return {"facts": int(facts_all), "active_facts": int(facts_active),
            "policies": int(pol[0]), "active_policies": int(pol[1])}


__all__ = [
    "DomainCount", "FactQuery", "FactRow", "LIST_COLUMNS", "MEMORY_TYPES", "NATURAL", "RANK", "SORTABLE", "STATES",
    "VERACITIES", "count_facts", "counts", "domains", "fact_ids", "fact_keys", "fact_rows", "fact_state",
    "placements", "position_of", "repo_groups", "rows_for_ids", "rows_for_keys",
]
