"""The reviewer's grant edits (``grant.set``, ``grant.remove``, ``grant.fix``), typed values
(``reviewer_action``) that share one detail format and one pair of steps.

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
are read as one edit of one row (``GrantEdit.from_detail``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Self

from sqlalchemy import Connection

from memorydesk.core.errors import StaleEdit
from memorydesk.memory.actions.base import ReviewerAction
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


@dataclass(frozen=True)
class GrantEdit(ReviewerAction):
    """Grant rows of some domains turned into others. Stores, per domain, the rows before (with
    their rowids) and after; undone by turning the rows after back into the rows before."""

    entity = "grant"
    edits: list[dict[str, Any]]

    @classmethod
    def from_detail(cls, detail: dict[str, Any]) -> Self:
        if "role" in detail and "edits" not in detail:  # the older one-row format
            detail = {"edits": _edits(detail)}
        return super().from_detail(detail)

    def forward(self, ws: Workspace, conn: Connection) -> None:
        for edit in self.edits:
            _move(ws, conn, edit["domain"], edit["before"], edit["after"])

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        for edit in reversed(self.edits):
            _move(ws, conn, edit["domain"], edit["after"], edit["before"])

    def touched(self) -> dict[str, list[str]]:
        """The domains whose grants it changed."""
        return {"domain": list(dict.fromkeys(e["domain"] for e in self.edits))}


@dataclass(frozen=True)
class SetGrants(GrantEdit):
    """Cells set to one permission, each with one exact row."""

    name = "set"


@dataclass(frozen=True)
class RemoveGrants(GrantEdit):
    """The rows behind cells (or one stored row) removed."""

    name = "remove"


@dataclass(frozen=True)
class FixGrantRow(GrantEdit):
    """One stored row rewritten with a known role or permission."""

    name = "fix"
