"""Index missing vectors: batches, progress, cancel and resume, the index kept in step; a change
like any other — history rows with the reason, one undo clearing every vector it wrote and
their index rows (the file as it was), redo writing them again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select

from memorydesk.core.errors import ReadOnlyWorkspace, StaleEdit
from memorydesk.embedding.embedder import fact_text, from_blob, get_embedder
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.memory.vector_index import index_missing_vectors, missing_count
from memorydesk.store import integrity, open_workspace
from memorydesk.store.vectors import VECTOR_TABLE

TEXTS = [("deploy", "We deploy the API with ArgoCD"), ("billing", "Invoices round half-even"),
         ("lint", "ESLint strict preset everywhere"), ("oncall", "Pager rotation changes on Monday"),
         ("db", "Postgres 16 with logical replication"), ("ui", "Dialogs trap focus")]


@pytest.fixture
def ws(tmp_path: Path):
    if not get_embedder().status()[0]:
        pytest.skip(get_embedder().status()[1])
    workspace = open_workspace(tmp_path / "ws.db", create=True)
    svc = MemoryService(workspace, embedder=False)  # written as by a product without its model
    for topic, content in TEXTS:
        svc.propose_fact(domain="d", topic=topic, content=content)
    yield workspace
    workspace.close()


def test_fills_every_missing_vector_in_batches(ws) -> None:
    seen = []
    result = index_missing_vectors(ws, actor="ann", reason="r", batch=4,
                                   progress=lambda p: seen.append((p.done, p.total)))
    assert seen == [(4, 6), (6, 6)] and result.done == 6 and missing_count(ws) == 0
    facts = ws.layout.facts
    with ws.read() as conn:
        rows = conn.execute(select(facts.c.topic, facts.c.content, facts.c.embedding)).all()
    expected = get_embedder().embed([fact_text(r.topic, r.content) for r in rows])
    for row, want in zip(rows, expected, strict=True):
        assert float(np.dot(from_blob(row.embedding), want)) > 0.9999
    assert [p for p in integrity.check(ws).problems if p.kind == "vector_out_of_sync"] == []


def test_cancel_then_resume(ws) -> None:
    calls = iter([False, True])
    first = index_missing_vectors(ws, actor="ann", reason="r", batch=2, cancelled=lambda: next(calls, True))
    assert first.cancelled and first.done == 2 and missing_count(ws) == 4
    second = index_missing_vectors(ws, actor="ann", reason="r", batch=2)
    assert not second.cancelled and second.done == 4 and missing_count(ws) == 0


def test_read_only_never_writes(ws) -> None:
    path = ws.path
    ws.close()
    with open_workspace(path, read_only=True) as ro:
        with pytest.raises(ReadOnlyWorkspace):
            index_missing_vectors(ro, actor="ann", reason="r")


def _vectors(ws) -> tuple[list, list]:
    facts = ws.layout.facts
    with ws.read() as conn:
        rows = conn.execute(select(facts.c.id, facts.c.embedding, facts.c.binary_embedding).order_by(facts.c.id)).all()
        index = conn.exec_driver_sql(f"SELECT fact_id FROM {VECTOR_TABLE} ORDER BY fact_id").all()
    return [tuple(r) for r in rows], [r[0] for r in index]


def test_it_is_a_change_with_a_reason_history_and_one_undo(ws) -> None:
    before = _vectors(ws)
    result = Reviewer(ws, "ann").index_missing_vectors("recall could not see them", batch=4)
    assert result.done == 6 and len(result.history_ids) == 2  # one row per batch written
    entries = [e for e in Reviewer(ws, "ann").history() if e["action"] == "embed"]
    assert len(entries) == 2 and {e["reason"] for e in entries} == {"recall could not see them"}
    assert {e["actor"] for e in entries} == {"ann"}
    filled = _vectors(ws)
    assert all(r[1] is not None for r in filled[0]) and len(filled[1]) == 6
    undone = Reviewer(ws, "ann").undo()  # Edit ▸ Undo: the whole run
    assert undone.message == "Undone: 2 changes made together"
    assert _vectors(ws) == before and missing_count(ws) == 6  # the embeddings and the index rows cleared
    Reviewer(ws, "ann").redo()
    again = _vectors(ws)
    assert len(again[1]) == 6
    for (_i, blob, _b), (_j, first, _c) in zip(again[0], filled[0], strict=True):
        assert float(np.dot(from_blob(blob), from_blob(first))) > 0.9999  # the same texts, embedded again


def test_undo_refuses_when_an_agent_wrote_a_vector_since(ws) -> None:
    Reviewer(ws, "ann").index_missing_vectors("r", batch=10)
    facts = ws.layout.facts
    with ws.write() as conn:
        conn.execute(facts.update().where(facts.c.topic == "db").values(embedding=b"\0" * 1536))
    with pytest.raises(StaleEdit):
        Reviewer(ws, "ann").undo()
    assert missing_count(ws) == 0  # nothing was changed
