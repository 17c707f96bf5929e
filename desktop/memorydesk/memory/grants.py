"""Reading grant rows as the product reads them, and the domains grants may name.

The product loads a workspace's grants with one query and no ``ORDER BY``
(``SELECT * FROM <grants> WHERE workspace_id = ?``), then takes the first matching
row (``core.product.grants``). Which row comes first is therefore whatever order SQLite
returns for that query on this file: the primary-key index order (role, domain) on a
file without planner statistics, the table's insertion (rowid) order once ``ANALYZE``
has shown the index useless. ``read_raw`` asks SQLite exactly that query, so the
desk sees the order the product's SQLite sees.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlalchemy import Connection, select

from memorydesk.core.product.grants import GrantRow
from memorydesk.store import Workspace

CHUNK = 500


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_raw(ws: Workspace, conn: Connection) -> list[tuple[str, str, str, int]]:
    """Every grant row of the workspace as ``(agent_role, memory_domain, permission, rowid)``
    tuples, in the order the product's own query returns them (one ``fetchall`` through the
    driver's cursor: 45,000 rows in milliseconds; ``GrantIndex`` takes them as they are)."""
    table = _quoted(ws.layout.grants.name)
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        return cursor.execute(
            f"SELECT CAST(agent_role AS TEXT), CAST(memory_domain AS TEXT), CAST(permission AS TEXT), rowid "
            f"FROM {table} WHERE workspace_id = ?", (ws.workspace_id,)).fetchall()
    finally:
        cursor.close()


def product_order(ws: Workspace, conn: Connection) -> str | None:
    """How SQLite orders the product's grant query on this file: ``"index"`` (the primary-key
    index: role string, then domain), ``"rowid"`` (a table scan: the order rows were written),
    or None for any other plan."""
    table = ws.layout.grants.name
    plan = " ".join(str(r[-1]) for r in conn.exec_driver_sql(
        f"EXPLAIN QUERY PLAN SELECT * FROM {_quoted(table)} WHERE workspace_id = ?", (ws.workspace_id,)))
    if f"sqlite_autoindex_{table}_1" in plan:
        return "index"
    if plan.startswith("SCAN") and "INDEX" not in plan:
        return "rowid"
    return None


def grant_domains(ws: Workspace, conn: Connection) -> set[str]:
    """The domains grant rows name (one pass in SQLite, a few thousand strings back)."""
    return _column(conn, f"SELECT DISTINCT CAST(memory_domain AS TEXT) FROM {_quoted(ws.layout.grants.name)} "
                         "WHERE workspace_id = ?", (ws.workspace_id,))


def read_raw_of(ws: Workspace, conn: Connection, domains: Iterable[str], order: str) -> list[tuple[str, str, str, int]]:
    """The rows of some domains only, in the order the product's query would return them
    (``order`` from ``product_order``): a first screen without reading every row."""
    table = _quoted(ws.layout.grants.name)
    wanted = list(dict.fromkeys(domains))
    rows: list[tuple[str, str, str, int]] = []
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        for i in range(0, len(wanted), CHUNK):
            chunk = wanted[i:i + CHUNK]
            marks = ", ".join("?" for _ in chunk)
            rows += cursor.execute(
                f"SELECT CAST(agent_role AS TEXT), CAST(memory_domain AS TEXT), CAST(permission AS TEXT), rowid "
                f"FROM {table} WHERE workspace_id = ? AND memory_domain IN ({marks})",
                (ws.workspace_id, *chunk)).fetchall()
    finally:
        cursor.close()
    # SQLite compares text byte by byte (UTF-8), which is code point order: Python's order
    rows.sort(key=(lambda r: r[3]) if order == "rowid" else (lambda r: (r[0], r[1])))
    return rows


def rows_of(ws: Workspace, conn: Connection, domain: str) -> list[GrantRow]:
    """The rows stored for exactly one domain (with their rowids), in the product's read order.

    No index leads with the domain (the key is workspace, role, domain), so this reads
    the table; for many domains at once use ``rows_by_domain``."""
    table = _quoted(ws.layout.grants.name)
    result = conn.exec_driver_sql(
        f"SELECT rowid, agent_role, memory_domain, permission FROM {table} "
        "WHERE workspace_id = ? AND memory_domain = ?", (ws.workspace_id, domain))
    return [GrantRow(str(r), str(d), str(p), int(i)) for i, r, d, p in result]


def rows_by_domain(ws: Workspace, conn: Connection, domains: Iterable[str]) -> dict[str, list[GrantRow]]:
    """The stored rows of each domain: one query per domain for a few, one pass over the table for many."""
    wanted = list(dict.fromkeys(domains))
    if len(wanted) <= 4:
        return {d: rows_of(ws, conn, d) for d in wanted}
    out: dict[str, list[GrantRow]] = {d: [] for d in wanted}
    for row in read_raw(ws, conn):
        if row[1] in out:
            out[row[1]].append(GrantRow._make(row))
    return out


@dataclass
class DomainNames:
    """Every domain the workspace knows: its domain rows and the names memory uses."""

    rows: set[str] = field(default_factory=set)  # memory_domains_table names
    facts: set[str] = field(default_factory=set)
    policies: set[str] = field(default_factory=set)
    grants: set[str] = field(default_factory=set)

    def all(self) -> list[str]:
        return sorted(self.rows | self.facts | self.policies | self.grants)

    def named_by(self, domain: str) -> tuple[str, ...]:
        """Which kinds of memory name ``domain`` (fact, policy, grant)."""
        return tuple(kind for kind, names in (("fact", self.facts), ("policy", self.policies),
                                              ("grant", self.grants)) if domain in names)


def _column(conn: Connection, sql: str, params: tuple = ()) -> set[str]:
    """One text column of a query, through the driver's cursor (thousands of values, no row objects)."""
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        return {str(v) for (v,) in cursor.execute(sql, params).fetchall() if v is not None}
    finally:
        cursor.close()


def _distinct(conn: Connection, table: str, column: str) -> set[str]:
    """Distinct values of an indexed column by skipping along the index (one seek per value),
    so a million facts over a few thousand domains cost a few thousand seeks, not a scan."""
    t, c = _quoted(table), _quoted(column)
    return _column(conn, f"WITH RECURSIVE d(v) AS (SELECT (SELECT min({c}) FROM {t}) "
                         f"UNION ALL SELECT (SELECT min({c}) FROM {t} WHERE {c} > d.v) FROM d WHERE d.v IS NOT NULL) "
                         "SELECT v FROM d WHERE v IS NOT NULL")


def domain_names(ws: Workspace, conn: Connection, grant_domains: Iterable[str] = ()) -> DomainNames:
    """The domains of the workspace (``grant_domains``: those the grant rows already read name)."""
    layout = ws.layout
    names = DomainNames()
    names.rows = _column(conn, f"SELECT name FROM {_quoted(layout.domains.name)} WHERE workspace_id = ?",
                         (ws.workspace_id,))
    names.facts = _distinct(conn, layout.facts.name, "domain")
    names.policies = _column(conn, f"SELECT DISTINCT domain FROM {_quoted(layout.policies.name)}")
    names.grants = set(grant_domains)
    return names


def known_domains(ws: Workspace, conn: Connection, candidates: Iterable[str]) -> set[str]:
    """Which of ``candidates`` the workspace knows: a domain row, or named by a fact, a
    policy or a grant row. The desk creates no domain; grants only for these."""
    wanted = list(dict.fromkeys(candidates))
    layout = ws.layout
    found: set[str] = set()
    columns = ((layout.domains, layout.domains.c.name), (layout.facts, layout.facts.c.domain),
               (layout.policies, layout.policies.c.domain), (layout.grants, layout.grants.c.memory_domain))
    for table, column in columns:
        rest = [w for w in wanted if w not in found]
        for i in range(0, len(rest), CHUNK):
            chunk = rest[i:i + CHUNK]
            found.update(str(v) for v in conn.execute(select(column).where(column.in_(chunk)).distinct()).scalars())
        if len(found) == len(wanted):
            break
    return found
