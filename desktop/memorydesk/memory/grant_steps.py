"""The forward and inverse steps of grant edits (``grant.set``, ``grant.remove``, ``grant.fix``).

A grant edit's history detail is ``{"edits": [{"domain", "before", "after"}, …]}``:
for each domain, the rows that were there (``[rowid, agent_role, permission]``,
strings exactly as stored) and the rows that replaced them (``[rowid, agent_role,
permission]``; the rowid is filled in when the row is first written). A step first
checks that the rows of those role strings are exactly the ones it expects (else
``StaleEdit``, nothing changed), then deletes, updates in place (a role string on both
sides keeps its row and rowid) and inserts. Undo puts the old rows back with their
strings byte for byte and, where it is free, their old rowid — so the product reads
them in the same order as before.

History rows written before this format (``{"role", "domain", "before", "after"}``)
are read as one edit of one row.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from memorydesk.core.errors import StaleEdit
from memorydesk.memory.history import action
from memorydesk.store import Workspace

Row = list[Any]  # [rowid | None, agent_role, permission]


def _table(ws: Workspace) -> str:
    return '"' + ws.layout.grants.name.replace('"', '""') + '"'


def _edits(d: dict[str, Any]) -> list[dict[str, Any]]:
    if "edits" in d:
        return d["edits"]
    role = d["role"]  # the older one-row format
    return [{"domain": d["domain"],
             "before": [[None, role, d["before"]]] if d.get("before") is not None else [],
             "after": [[None, role, d["after"]]] if d.get("after") is not None else []}]


def _current(ws: Workspace, conn: Connection, domain: str, roles: set[str]) -> dict[str, tuple[int, str]]:
    if not roles:
        return {}
    marks = ", ".join("?" for _ in roles)
    rows = conn.exec_driver_sql(
        f"SELECT rowid, agent_role, permission FROM {_table(ws)} "
        f"WHERE workspace_id = ? AND memory_domain = ? AND agent_role IN ({marks})",
        (ws.workspace_id, domain, *sorted(roles))).all()
    return {str(role): (int(rowid), str(perm)) for rowid, role, perm in rows}


def _describe(rows: dict[str, str]) -> str:
    return ", ".join(f"{r!r} → {p!r}" for r, p in sorted(rows.items())) or "no row"


def _move(ws: Workspace, conn: Connection, domain: str, expect: list[Row], want: list[Row]) -> None:
    """Turn the domain's rows ``expect`` into ``want`` (rowids of ``want`` filled in)."""
    roles = {r[1] for r in expect} | {r[1] for r in want}
    current = _current(ws, conn, domain, roles)
    seen = {role: perm for role, (_rowid, perm) in current.items()}
    expected = {r[1]: r[2] for r in expect}
    if seen != expected:
        raise StaleEdit(f"the grant rows of {domain!r} changed since (now {_describe(seen)}, "
                        f"expected {_describe(expected)}); nothing was changed")
    table = _table(ws)
    wanted = {r[1] for r in want}
    for role, (rowid, _perm) in current.items():
        if role not in wanted:
            conn.exec_driver_sql(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
    for row in want:
        rowid, role, perm = row
        if role in current:
            row[0] = current[role][0]
            conn.exec_driver_sql(f"UPDATE {table} SET permission = ? WHERE rowid = ?", (perm, current[role][0]))
            continue
        free = rowid is not None and conn.exec_driver_sql(
            f"SELECT 1 FROM {table} WHERE rowid = ?", (rowid,)).first() is None
        if free:
            conn.exec_driver_sql(f"INSERT INTO {table} (rowid, workspace_id, agent_role, memory_domain, permission) "
                                 "VALUES (?, ?, ?, ?, ?)", (rowid, ws.workspace_id, role, domain, perm))
        else:
            result = conn.exec_driver_sql(f"INSERT INTO {table} (workspace_id, agent_role, memory_domain, permission) "
                                          "VALUES (?, ?, ?, ?)", (ws.workspace_id, role, domain, perm))
            row[0] = result.lastrowid


def _forward(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    for edit in _edits(d):
        _move(ws, conn, edit["domain"], edit["before"], edit["after"])


def _inverse(ws: Workspace, conn: Connection, d: dict[str, Any]) -> None:
    for edit in reversed(_edits(d)):
        _move(ws, conn, edit["domain"], edit["after"], edit["before"])


def touched(d: dict[str, Any]) -> dict[str, list[str]]:
    """The domains whose grants an edit changed."""
    return {"domain": list(dict.fromkeys(e["domain"] for e in _edits(d)))}


for _name in ("set", "remove", "fix"):
    action("grant", _name, inverse_of=_inverse, touched=touched)(_forward)
