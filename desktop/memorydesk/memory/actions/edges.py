"""Deleting episodic edges from the desk (a wrong ``related_to`` link, an edge that names
a missing fact), with the undo that puts each row back exactly as it was.

There is deliberately no way to create an edge: links are written by agents. The
history row keeps every column of every deleted row with its SQLite storage class and
its ``rowid`` (the graph voice orders equal weights by table order, so the rowid is part
of what an agent gets), and undo re-inserts them byte for byte. Each step checks that
the rows are as the previous step left them, and refuses (``StaleEdit``) otherwise.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection
from sqlalchemy import exc as sa_exc

from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.history.record import ChangeResult, perform
from memorydesk.store import Workspace
from memorydesk.store.retry import with_retry

Stored = list[Any]  # [column, storage class, value] (a blob as base64 text)


def _columns(ws: Workspace, conn: Connection) -> list[str]:
    return [r[1] for r in conn.exec_driver_sql(f"PRAGMA table_info({ws.layout.edges.name})")]


def _encode(kind: str, value: Any) -> Any:
    return base64.b64encode(value).decode("ascii") if kind == "blob" else value


def _decode(kind: str, value: Any) -> Any:
    if kind == "blob":
        return base64.b64decode(value)
    if kind == "integer":
        return int(value)
    if kind == "real":
        return float(value)
    return value


def capture(ws: Workspace, conn: Connection, edge_id: str) -> dict[str, Any] | None:
    """The row of edge ``edge_id`` as stored: ``{"rowid": n, "columns": [[name, class, value], ...]}``."""
    cols = _columns(ws, conn)
    parts = ", ".join(f'"{c}", typeof("{c}")' for c in cols)
    row = conn.exec_driver_sql(f"SELECT rowid, {parts} FROM {ws.layout.edges.name} WHERE id = ?",
                               (edge_id,)).first()
    if row is None:
        return None
    stored = [[c, row[2 + 2 * i], _encode(row[2 + 2 * i], row[1 + 2 * i])] for i, c in enumerate(cols)]
    return {"rowid": int(row[0]), "columns": stored}


def _id_of(row: dict[str, Any]) -> str:
    return next(str(v) for name, _kind, v in row["columns"] if name == "id")


@dataclass(frozen=True)
class DeleteEdges(ReviewerAction):
    """Episodic edges deleted. Stores every column of every row with its storage class and its
    rowid (``capture``); undone by inserting them again byte for byte."""

    entity, name = "edge", "delete"
    ids: list[str]
    rows: list[dict[str, Any]]

    def forward(self, ws: Workspace, conn: Connection) -> None:
        edges = ws.layout.edges.name
        for row in self.rows:
            edge_id = _id_of(row)
            now = capture(ws, conn, edge_id)
            if now != row:
                what = "no longer exists" if now is None else "changed since"
                raise StaleEdit(f"edge {edge_id} {what}; nothing was changed")
            conn.exec_driver_sql(f"DELETE FROM {edges} WHERE rowid = ?", (row["rowid"],))

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        edges = ws.layout.edges.name
        for row in self.rows:
            names = ["rowid"] + [f'"{name}"' for name, _kind, _v in row["columns"]]
            values = [row["rowid"]] + [_decode(kind, v) for _name, kind, v in row["columns"]]
            taken = conn.exec_driver_sql(f"SELECT 1 FROM {edges} WHERE rowid = ? OR id = ?",
                                         (row["rowid"], _id_of(row))).first()
            if taken is not None:
                raise StaleEdit(f"edge {_id_of(row)} (or its place in the table) was written again since; "
                                "nothing was changed")
            try:
                conn.exec_driver_sql(f"INSERT INTO {edges} ({', '.join(names)}) "
                                     f"VALUES ({', '.join('?' * len(names))})", tuple(values))
            except sa_exc.IntegrityError as exc:
                raise StaleEdit(f"an agent linked the same two facts again since (edge {_id_of(row)}); "
                                "nothing was changed") from exc


def delete_edges(ws: Workspace, actor: str, edge_ids: Iterable[str], reason: str = "") -> ChangeResult:
    """Delete episodic edges (one transaction, one history row, undoable)."""
    ids = list(dict.fromkeys(edge_ids))
    if not ids:
        raise MemoryDeskError("no edge to delete")

    def work(conn: Connection) -> ChangeResult:
        rows = []
        for edge_id in ids:
            row = capture(ws, conn, edge_id)
            if row is None:
                raise StaleEdit(f"edge {edge_id} no longer exists; nothing was changed")
            rows.append(row)
        hid = perform(ws, conn, DeleteEdges(ids, rows), entity_id=ids[0], actor=actor, reason=reason)
        return ChangeResult("edge", ids, [hid], f"{len(ids)} edge(s) deleted" if len(ids) > 1 else "edge deleted")

    return with_retry(ws, work)
