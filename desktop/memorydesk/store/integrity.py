"""``memory-desk check``: find rows the product could not read or that point nowhere.

One ``Problem`` per offending row (docs/product-format.md, "What ``check`` reports"), and what SQLite itself finds
(``integrity_sqlite``: ``sqlite_corrupt``, ``text_not_utf8``). Everything here reads;
``repair`` rebuilds the derived indexes (FTS, vectors) and never touches memory (it removes
the rows a stopped canary run left, ``canary_leftover``, which are not memory). A
reading that fails on a damaged page becomes a ``sqlite_corrupt`` problem, so a damaged
file gets a report, not a crash.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass

from sqlalchemy import Connection

from memorydesk import testpoints
from memorydesk.store import canary_rows, files, integrity_sqlite
from memorydesk.store.errors import READ_FAILURES
from memorydesk.store.layout import table_names
from memorydesk.store.ours import EMBEDDING_DIM, VECTOR_TABLE
from memorydesk.store.schema_parts import missing_parts
from memorydesk.store.workspace import Workspace

#: Files up to this size always get SQLite's full ``integrity_check`` (about a second per
#: 50 MB); larger ones get ``quick_check`` unless ``thorough``.
THOROUGH_UP_TO = 64 * 2**20

KINDS = (
    "sqlite_corrupt", "fts_out_of_sync", "vector_out_of_sync", "embedding_malformed", "superseded_by_dangling",
    "supersession_cycle", "edge_dangling", "conflict_dangling", "policy_source_dangling",
    "belief_provenance_dangling", "json_malformed", "invalid_row", "grant_permission_unknown", "text_not_utf8",
    "schema_incomplete", "canary_leftover",
)
DERIVED_KINDS = frozenset({"fts_out_of_sync", "vector_out_of_sync"})
SENTINEL_PREFIXES = ("system:", "human:")
EMBEDDING_BYTES = EMBEDDING_DIM * 4


@dataclass(frozen=True)
class Problem:
    kind: str
    table: str
    id: str
    detail: str


@dataclass
class Report:
    problems: list[Problem]
    sqlite_check: str = ""  # which of SQLite's checks ran: integrity_check or quick_check

    @property
    def summary(self) -> dict[str, int]:
        counts = Counter(p.kind for p in self.problems)
        return {kind: counts[kind] for kind in KINDS if counts[kind]}

    def to_json(self) -> dict:
        return {"problems": [asdict(p) for p in self.problems], "summary": self.summary}


def check(ws: Workspace, *, thorough: bool = False, sqlite: bool = True) -> Report:
    """Every problem in the file. ``thorough``: SQLite's full ``integrity_check`` (also for
    large files) and FTS5's own comparison of the index with the facts. ``sqlite=False``
    skips SQLite's checks (a caller that just ran them)."""
    full = thorough or ws.path.stat().st_size <= THOROUGH_UP_TO
    problems: list[Problem] = []
    with ws.read() as conn:
        names = table_names(conn)
        problems += [Problem("schema_incomplete", part.split()[1].split(".")[0], "",
                             f"the file has no {part}; searches and lists need it; salvage copies the rows into a "
                             "complete workspace") for part in missing_parts(conn, ws.layout, names)]
        if sqlite:
            problems += _guarded(conn, ws, "SQLite's own check",
                                 lambda c, w: integrity_sqlite.corrupt_problems(c, w, thorough=full, make=Problem))
        for finder in (_fts, _vectors, _embeddings, _supersession, _cycles, _edges, _conflicts,
                       _json_lists, _invalid_rows, _grants, _text, _canary):
            problems += _guarded(conn, ws, finder.__doc__ or finder.__name__, finder)
    if sqlite and thorough:
        problems += integrity_sqlite.fts_content_problems(ws, Problem)
    return Report(problems, ("integrity_check" if full else "quick_check") if sqlite else "")


def _guarded(conn: Connection, ws: Workspace, what: str, finder) -> list[Problem]:
    """Run one finder; a read that fails on a damaged page is itself the finding."""
    try:
        return list(finder(conn, ws))
    except READ_FAILURES as exc:
        text = str(getattr(exc, "orig", None) or exc)
        if text.startswith(("no such table", "no such column")):  # said once as schema_incomplete
            return []
        return [Problem("sqlite_corrupt", "", "", f"reading failed while checking {what}: {text}")]


def repair(ws: Workspace) -> list[str]:
    """Rebuild the FTS index and the vector index from the fact table. Returns what was done."""
    done = []
    layout = ws.layout
    files.require_free(ws.path.parent, 2 * _index_bytes(ws), f"rebuilding the indexes of {ws.path.name}")
    with ws.write() as conn:
        conn.exec_driver_sql(f"INSERT INTO {layout.fts}({layout.fts}) VALUES('rebuild')")
        testpoints.reached("repair.fts-rebuilt")  # before the commit
        done.append("rebuilt the full-text index")
        if ws.has_vectors:
            conn.exec_driver_sql(f"DELETE FROM {VECTOR_TABLE}")
            conn.exec_driver_sql(
                f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) SELECT id, embedding FROM {layout.facts.name} "
                f"WHERE embedding IS NOT NULL AND length(embedding) = {EMBEDDING_BYTES}"
            )
            done.append("rebuilt the vector index")
    return done


def remove_canary_leftovers(ws: Workspace) -> list[str]:
    """``--repair``: remove the rows canary runs left when they were stopped (``store.canary_rows``)."""
    with ws.write() as conn:
        removed = canary_rows.remove_leftovers(conn, ws.layout)
    return [f"removed what canary run {left.canary_id} left: {left.summary()}" for left in removed]


def _canary(conn: Connection, ws: Workspace) -> list[Problem]:
    """rows a stopped canary run left"""
    if ws.desk_schema < 1:
        return []
    why = "which stopped before it removed its rows; `memory-desk canary` or `check --repair` removes them"
    out = []
    for left in canary_rows.leftovers(conn, ws.layout):
        out += [Problem("canary_leftover", table, row_id, f"written by canary run {left.canary_id}, {why}")
                for table, ids in left.rows.items() for row_id in ids]
        if left.receipts:  # receipts are stored in blocks: one problem for the run's
            out.append(Problem("canary_leftover", canary_rows.blocks.BLOCKS, left.canary_id,
                               f"{left.receipts:,} receipts of canary run {left.canary_id}, {why}"))
    return out


def _index_bytes(ws: Workspace) -> int:
    """What the full-text and vector indexes take now (a rebuild writes them anew, through the log)."""
    with ws.read() as conn:
        return int(conn.exec_driver_sql(
            "SELECT coalesce(sum(pgsize), 0) FROM dbstat('main', 1) WHERE name LIKE ? OR name LIKE ?",
            (f"{ws.layout.fts}%", f"{VECTOR_TABLE}%")).scalar())


def _rows(conn: Connection, sql: str):
    return conn.exec_driver_sql(sql).all()


def _fts(conn: Connection, ws: Workspace) -> list[Problem]:
    """full-text index entries"""
    facts, fts = ws.layout.facts.name, ws.layout.fts
    missing = _rows(conn, f"SELECT f.id, f.rowid FROM {facts} f WHERE f.rowid NOT IN "
                          f"(SELECT id FROM {fts}_docsize)")
    orphans = _rows(conn, f"SELECT d.id FROM {fts}_docsize d WHERE d.id NOT IN (SELECT rowid FROM {facts})")
    out = [Problem("fts_out_of_sync", facts, fid, f"fact (rowid {rowid}) has no full-text entry")
           for fid, rowid in missing]
    out += [Problem("fts_out_of_sync", fts, str(rowid), f"full-text entry for rowid {rowid} has no fact")
            for (rowid,) in orphans]
    return out


def _vectors(conn: Connection, ws: Workspace) -> list[Problem]:
    """the vector index"""
    if not ws.has_vectors:
        return []
    facts = ws.layout.facts.name
    sql = (
        f"SELECT f.id, 'missing from the vector index' FROM {facts} f WHERE length(f.embedding) = {EMBEDDING_BYTES} "
        f"AND f.id NOT IN (SELECT fact_id FROM {VECTOR_TABLE}) "
        f"UNION ALL SELECT v.fact_id, 'indexed vector has no embedding in the fact table' FROM {VECTOR_TABLE} v "
        f"LEFT JOIN {facts} f ON f.id = v.fact_id WHERE f.id IS NULL OR f.embedding IS NULL "
        f"OR length(f.embedding) != {EMBEDDING_BYTES} "
        f"UNION ALL SELECT v.fact_id, 'indexed vector differs from the embedding column' FROM {VECTOR_TABLE} v "
        f"JOIN {facts} f ON f.id = v.fact_id WHERE length(f.embedding) = {EMBEDDING_BYTES} "
        f"AND v.embedding != f.embedding"
    )
    return [Problem("vector_out_of_sync", VECTOR_TABLE, fid, detail) for fid, detail in _rows(conn, sql)]


def _embeddings(conn: Connection, ws: Workspace) -> list[Problem]:
    """embeddings"""
    facts = ws.layout.facts.name
    rows = _rows(conn, f"SELECT id, length(embedding) FROM {facts} WHERE embedding IS NOT NULL "
                       f"AND length(embedding) != {EMBEDDING_BYTES}")
    return [Problem("embedding_malformed", facts, fid, f"embedding is {n} bytes, not {EMBEDDING_BYTES}")
            for fid, n in rows]


def _supersession(conn: Connection, ws: Workspace) -> list[Problem]:
    """superseded_by links"""
    facts = ws.layout.facts.name
    rows = _rows(conn, f"SELECT f.id, f.superseded_by FROM {facts} f WHERE f.superseded_by IS NOT NULL "
                       f"AND f.superseded_by NOT LIKE 'system:%' AND f.superseded_by NOT LIKE 'human:%' "
                       f"AND NOT EXISTS (SELECT 1 FROM {facts} g WHERE g.id = f.superseded_by)")
    return [Problem("superseded_by_dangling", facts, fid, f"superseded by {target}, which is not a fact")
            for fid, target in rows]


def _cycles(conn: Connection, ws: Workspace) -> list[Problem]:
    """supersession chains"""
    facts = ws.layout.facts.name
    succ = dict(_rows(conn, f"SELECT id, superseded_by FROM {facts} WHERE superseded_by IS NOT NULL "
                            f"AND superseded_by NOT LIKE 'system:%' AND superseded_by NOT LIKE 'human:%'"))
    state: dict[str, int] = {}  # 1 = on the current walk, 2 = done
    on_cycle: list[str] = []
    for start in succ:
        walk, node = [], start
        while node in succ and node not in state:
            state[node] = 1
            walk.append(node)
            node = succ[node]
        if state.get(node) == 1:  # closed a loop within this walk
            on_cycle.extend(walk[walk.index(node):])
        for n in walk:
            state[n] = 2
    return [Problem("supersession_cycle", facts, fid, f"superseded_by chain returns to {fid}")
            for fid in sorted(on_cycle)]


def _edges(conn: Connection, ws: Workspace) -> list[Problem]:
    """episodic edges"""
    facts, edges = ws.layout.facts.name, ws.layout.edges.name
    rows = _rows(conn, f"SELECT e.id, e.source_fact_id, e.target_fact_id, "
                       f"EXISTS (SELECT 1 FROM {facts} WHERE id = e.source_fact_id), "
                       f"EXISTS (SELECT 1 FROM {facts} WHERE id = e.target_fact_id) FROM {edges} e")
    out = []
    for eid, src, dst, has_src, has_dst in rows:
        missing = [x for x, ok in ((src, has_src), (dst, has_dst)) if not ok]
        if missing:
            out.append(Problem("edge_dangling", edges, eid, "names missing fact " + ", ".join(missing)))
    return out


def _conflicts(conn: Connection, ws: Workspace) -> list[Problem]:
    """conflicts"""
    facts, conflicts = ws.layout.facts.name, ws.layout.conflicts.name
    ids = {r[0] for r in _rows(conn, f"SELECT id FROM {facts}")}
    out = []
    for cid, a, b, w in _rows(conn, f"SELECT id, fact_a_id, fact_b_id, winning_fact_id FROM {conflicts}"):
        missing = [x for x in (a, b, w) if x and x not in ids]
        if missing:
            out.append(Problem("conflict_dangling", conflicts, cid,
                               "names missing fact " + ", ".join(dict.fromkeys(missing))))
    return out


def _json_list(value: str | None) -> list[str] | None:
    """The product's reading of a JSON list column; None when it would throw."""
    if value is None or value == "":
        return []
    try:
        parsed = json.loads(value)
    except (ValueError, TypeError):
        return None
    if not isinstance(parsed, list):
        return []
    return parsed if all(isinstance(x, str) for x in parsed) else None


def _json_lists(conn: Connection, ws: Workspace) -> list[Problem]:
    """JSON list columns"""
    layout = ws.layout
    ids = {r[0] for r in _rows(conn, f"SELECT id FROM {layout.facts.name}")}
    columns = (
        (layout.facts.name, "source_observation_ids", None),
        (layout.facts.name, "temporal_tags", None),
        (layout.policies.name, "source_fact_ids", "policy_source_dangling"),
        (layout.beliefs.name, "provenance_fact_ids", "belief_provenance_dangling"),
        (layout.beliefs.name, "provenance_agent_ids", None),
    )
    out = []
    for table, column, dangling_kind in columns:
        for rid, value in _rows(conn, f"SELECT id, {column} FROM {table}"):
            parsed = _json_list(value)
            if parsed is None:
                out.append(Problem("json_malformed", table, rid, f"{column} is not a JSON list of strings"))
            elif dangling_kind:
                missing = [x for x in parsed if x not in ids]
                if missing:
                    out.append(Problem(dangling_kind, table, rid,
                                       f"{column} names missing fact " + ", ".join(missing)))
    return out


def _invalid_rows(conn: Connection, ws: Workspace) -> list[Problem]:
    """row invariants"""
    layout = ws.layout
    blank = "trim({0}) = ''"
    checks: list[tuple[str, str, str]] = [
        (layout.facts.name, blank.format("topic"), "empty topic"),
        (layout.facts.name, "confidence < 0 OR confidence > 1 OR typeof(confidence) NOT IN ('real', 'integer')",
         "confidence outside 0..1"),
        (layout.policies.name, blank.format("rule"), "empty rule"),
        (layout.domains.name, blank.format("name"), "empty domain name"),
        (layout.items.name, blank.format("agent_id"), "empty agent id"),
        (layout.notes.name, blank.format("agent_id"), "empty agent id"),
    ]
    for table in (layout.facts, layout.policies, layout.domains, layout.items, layout.notes,
                  layout.conflicts, layout.edges, layout.beliefs):
        checks.append((table.name, blank.format("workspace_id"), "empty workspace id"))
    out = []
    for table, condition, detail in checks:
        for (rid,) in _rows(conn, f"SELECT id FROM {table} WHERE {condition}"):
            out.append(Problem("invalid_row", table, rid, detail))
    return out


def _grants(conn: Connection, ws: Workspace) -> list[Problem]:
    """grants"""
    grants = ws.layout.grants.name
    rows = _rows(conn, f"SELECT agent_role, memory_domain, permission FROM {grants} "
                       f"WHERE lower(permission) NOT IN ('none', 'read', 'write')")
    return [Problem("grant_permission_unknown", grants, f"{role}/{domain}",
                    f"permission {perm!r} is not none/read/write (the product reads it as read)")
            for role, domain, perm in rows]


def _text(conn: Connection, ws: Workspace) -> list[Problem]:
    """text encodings"""
    return integrity_sqlite.text_problems(conn, ws, Problem)
