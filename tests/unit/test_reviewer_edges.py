"""Deleting an edge from the desk: one history row, and undo puts the row back byte for byte."""

from __future__ import annotations

import pytest

from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store.ours import DeskHistory


def stored(ws) -> list[tuple]:
    """Every edge row exactly as stored: rowid, then each column quoted with its storage class."""
    edges = ws.layout.edges.name
    with ws.read() as conn:
        cols = [r[1] for r in conn.exec_driver_sql(f"PRAGMA table_info({edges})")]
        parts = ", ".join(f'quote("{c}"), typeof("{c}")' for c in cols)
        return [tuple(r) for r in conn.exec_driver_sql(f"SELECT rowid, {parts} FROM {edges} ORDER BY rowid")]


def history_rows(ws) -> int:
    with ws.read() as conn:
        return len(conn.execute(DeskHistory.__table__.select()).all())


@pytest.fixture
def linked(ws):
    with ws.write() as conn:
        for n in range(3):
            conn.execute(ws.layout.facts.insert().values(id=f"f{n}", workspace_id=ws.workspace_id, domain="d",
                                                         topic="t", content=f"c{n}"))
        # odd values on purpose: a weight with many digits, a weight stored as text, a blob id column value
        conn.exec_driver_sql(
            f"INSERT INTO {ws.layout.edges.name} (id, workspace_id, source_fact_id, target_fact_id, edge_type, "
            "weight, created_at) VALUES ('e1', ?, 'f0', 'f1', 'related_to', 0.1234567890123456789, 1790000000), "
            "('e2', ?, 'f1', 'gone', 'references', '0.5x', 1790000001), "
            "('e3', ?, 'f2', 'f0', 'contextual', 1.0, 1790000002)",
            (ws.workspace_id, ws.workspace_id, ws.workspace_id))
    return ws


def test_delete_and_undo_restore_the_row_byte_for_byte(linked) -> None:
    before = stored(linked)
    n = history_rows(linked)
    reviewer = Reviewer(linked, "Dana")
    result = reviewer.delete_edges(["e1"], reason="wrong link")
    assert result.entity == "edge" and result.ids == ["e1"] and len(result.history_ids) == 1
    assert "edge" in result.kinds
    assert history_rows(linked) == n + 1
    assert [r[0] for r in stored(linked)] == [before[1][0], before[2][0]]
    row = reviewer.history("edge", "e1")[0]
    assert (row["actor"], row["reason"], row["action"]) == ("Dana", "wrong link", "delete")
    undo = reviewer.undo()
    assert undo.entity == "edge" and "e1" in undo.ids
    assert stored(linked) == before  # same rowid, same values, same storage classes
    reviewer.redo()
    assert len(stored(linked)) == 2


def test_a_dangling_edge_and_several_at_once(linked) -> None:
    before = stored(linked)
    reviewer = Reviewer(linked, "Dana")
    n = history_rows(linked)
    reviewer.delete_edges(["e2", "e3"], reason="names a deleted fact")
    assert history_rows(linked) == n + 1 and len(stored(linked)) == 1
    reviewer.undo()
    assert stored(linked) == before


def test_undo_refuses_when_the_link_was_written_again(linked) -> None:
    reviewer = Reviewer(linked, "Dana")
    reviewer.delete_edges(["e1"])
    with linked.write() as conn:  # an agent links the same two facts again
        conn.exec_driver_sql(f"INSERT INTO {linked.layout.edges.name} (id, workspace_id, source_fact_id, "
                             "target_fact_id, edge_type, weight) VALUES ('e9', ?, 'f0', 'f1', 'related_to', 0.4)",
                             (linked.workspace_id,))
    with pytest.raises(StaleEdit):
        reviewer.undo()
    assert len(stored(linked)) == 3


def test_unknown_edges_change_nothing(linked) -> None:
    before = stored(linked)
    reviewer = Reviewer(linked, "Dana")
    with pytest.raises(StaleEdit):
        reviewer.delete_edges(["e1", "nope"])
    with pytest.raises(MemoryDeskError):
        reviewer.delete_edges([])
    assert stored(linked) == before
