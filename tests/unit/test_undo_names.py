"""The memory job's finding 13: Edit ▸ Undo says whose change it takes back when someone else made it
(a demo's seeded decision is not the person's own); an edge delete is named by its two ends;
a history query for an entry number (“#8”) finds that entry only, never “PR #883”."""

from __future__ import annotations

from pathlib import Path

import pytest

from memorydesk.browse.history.entries import HistoryQuery, history_page
from memorydesk.browse.naming import undo_redo_names
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace


@pytest.fixture
def ws(tmp_path: Path):
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        svc = MemoryService(ws, embedder=False)
        a = svc.propose_fact(domain="ops", topic="deploy", content="Deploys go out after PR #883 is approved.")
        b = svc.propose_fact(domain="ops", topic="rollback", content="Roll back with the previous image.")
        with ws.write() as conn:
            conn.execute(ws.layout.edges.insert().values(
                id="e1", source_fact_id=a.fact_id, target_fact_id=b.fact_id, edge_type="related", weight=0.5,
                created_at=1_700_000_000, workspace_id=ws.workspace_id))
        yield ws


def test_undo_says_whose_change_it_is_when_it_is_not_the_persons(ws) -> None:
    Reviewer(ws, "Maya Okafor").delete_edges(["e1"], "not related")
    undo, _redo, note = undo_redo_names(ws, "rita")
    assert undo == "Delete edge “deploy” → “rollback” (related)"
    assert note == "Maya Okafor's change"
    assert undo_redo_names(ws, "Maya Okafor")[2] == ""  # her own: no note


def test_an_entry_number_query_matches_entry_numbers_only(ws) -> None:
    Reviewer(ws, "rita").delete_edges(["e1"], "not related")  # entry 1; there is no entry 8
    found = history_page(ws, HistoryQuery(text="#8")).events
    assert found == []  # not the fact that says “PR #883”
    assert any("PR #883" in e.summary for e in history_page(ws, HistoryQuery(text="883")).events)
    assert [e.history_id for e in history_page(ws, HistoryQuery(text="#1")).events] == [1]

