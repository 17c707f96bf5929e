"""The product's grant rules, written out again for the tests from docs/product-format.md, "Vocabularies" and
docs/product-format.md, "The product's rules", over raw rows read with the stdlib ``sqlite3`` (no Memory Desk code),
so a test can compare the desk's matrix with an independent reading, cell by cell.

The product takes the first matching row in the order its query returns them; the
caller says which order that is for the file (``ORDER BY`` text), and the tests check
SQLite's plan for the product's query agrees.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import NamedTuple

NINE = ("ceo", "coder", "reviewer", "qa", "designer", "security", "devops", "pm", "general")
PERMS = ("none", "read", "write")
INDEX_ORDER = "agent_role, memory_domain"  # the primary-key index (workspace_id is one value)
WRITTEN_ORDER = "rowid"


class Raw(NamedTuple):
    role: str
    domain: str
    permission: str


def _connect(path: Path) -> closing[sqlite3.Connection]:
    return closing(sqlite3.connect(f"file:{path}?immutable=1", uri=True))


def _table(conn: sqlite3.Connection, base: str) -> str:
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return f"{base}_table" if f"{base}_table" in names else base


def workspace_id(conn: sqlite3.Connection) -> str:
    return conn.execute("SELECT workspace_id FROM workspace_meta ORDER BY id LIMIT 1").fetchone()[0]


def product_plan(path: Path) -> str:
    """SQLite's plan for the product's grant query on this file."""
    with _connect(path) as conn:
        table = _table(conn, "memory_access_grants")
        return " ".join(str(r[-1]) for r in conn.execute(
            f"EXPLAIN QUERY PLAN SELECT * FROM {table} WHERE workspace_id = ?", (workspace_id(conn),)))


def raw_rows(path: Path, order: str) -> list[Raw]:
    with _connect(path) as conn:
        table = _table(conn, "memory_access_grants")
        return [Raw(*r) for r in conn.execute(
            f"SELECT agent_role, memory_domain, permission FROM {table} WHERE workspace_id = ? ORDER BY {order}",
            (workspace_id(conn),))]


def domains(path: Path) -> list[str]:
    with _connect(path) as conn:
        ws = workspace_id(conn)
        names = {r[0] for r in conn.execute(f"SELECT name FROM {_table(conn, 'memory_domains')}")}
        names |= {r[0] for r in conn.execute(f"SELECT DISTINCT domain FROM {_table(conn, 'memory_facts')}")}
        names |= {r[0] for r in conn.execute(f"SELECT DISTINCT domain FROM {_table(conn, 'memory_policies')}")}
        names |= {r[0] for r in conn.execute(
            f"SELECT DISTINCT memory_domain FROM {_table(conn, 'memory_access_grants')} WHERE workspace_id = ?", (ws,))}
    return sorted(names)


def role_of(stored: str) -> str:
    return stored.lower() if stored.lower() in NINE else "general"


def bare(domain: str) -> str | None:
    if not domain.startswith("repo:"):
        return None
    rest = domain[len("repo:"):]
    cut = rest.find("/")
    return rest[cut + 1:] if 0 < cut < len(rest) - 1 else None


def cell(rows: list[Raw], role: str, domain: str) -> tuple[str, str]:
    matches = [r for r in rows if r.domain == domain and role_of(r.role) == role]
    fallback = bare(domain)
    from_bare = False
    if not matches and fallback is not None:
        matches = [r for r in rows if r.domain == fallback and role_of(r.role) == role]
        from_bare = True
    if not matches:
        return "read", "fail_open"
    first = matches[0]
    permission = first.permission.lower() if first.permission.lower() in PERMS else "read"
    if len(matches) > 1:
        return permission, "ambiguous"
    if first.role.lower() not in NINE or first.permission.lower() not in PERMS:
        return permission, "unknown_value"
    return permission, "bare_name" if from_bare else "exact"


def matrix(path: Path, order: str) -> dict:
    """The JSON the ``grants --json`` command must print for this file."""
    rows = raw_rows(path, order)
    return {"roles": list(NINE), "domains": [
        {"domain": d, "cells": {role: dict(zip(("permission", "source"), cell(rows, role, d))) for role in NINE}}
        for d in domains(path)]}
