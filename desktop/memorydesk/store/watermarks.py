"""Public watermarks of a workspace's data: what tells that something changed, read from the
rows themselves (counts, highest rowids, newest ``updated_at``), never from SQLite's files.

``data_stamp`` is one string over the facts, policies, notes and working-memory items: it
changes when any of them changes. The review keeps it with its results (unchanged since:
the kept scan is current) and a recall-audit run with its report (two runs on the same data).
"""

from __future__ import annotations

from memorydesk.store.workspace import Workspace


def data_stamp(ws: Workspace) -> str:
    """A mark of the workspace's data: it changes when facts, policies, notes or items change."""
    facts, pol, notes, items = (ws.layout.facts.name, ws.layout.policies.name, ws.layout.notes.name,
                                ws.layout.items.name)
    with ws.read() as conn:
        row = conn.exec_driver_sql(
            f"SELECT (SELECT count(*) || '.' || ifnull(max(rowid), 0) || '.' || ifnull(max(updated_at), 0) || '.' || "
            f"(SELECT count(*) FROM {facts} WHERE superseded_by IS NULL) FROM {facts}), "
            f"(SELECT count(*) || '.' || ifnull(max(updated_at), 0) || '.' || ifnull(sum(active), 0) FROM {pol}), "
            f"(SELECT count(*) || '.' || ifnull(max(updated_at), 0) || '.' || ifnull(sum(length(content)), 0) "
            f"FROM {notes}), "
            f"(SELECT count(*) || '.' || ifnull(max(rowid), 0) FROM {items})").first()
    return "/".join(str(x) for x in row)
