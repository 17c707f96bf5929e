"""Index missing vectors: batches, progress, cancel and resume, the index kept in step."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select

from memorydesk.core.errors import ReadOnlyWorkspace
from memorydesk.embedding.embedder import fact_text, from_blob, get_embedder
from memorydesk.memory.service import MemoryService
from memorydesk.memory.vector_index import index_missing_vectors, missing_count
from memorydesk.store import integrity, open_workspace

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
    result = index_missing_vectors(ws, batch=4, progress=lambda p: seen.append((p.done, p.total)))
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
    first = index_missing_vectors(ws, batch=2, cancelled=lambda: next(calls, True))
    assert first.cancelled and first.done == 2 and missing_count(ws) == 4
    second = index_missing_vectors(ws, batch=2)
    assert not second.cancelled and second.done == 4 and missing_count(ws) == 0


def test_read_only_never_writes(ws) -> None:
    path = ws.path
    ws.close()
    with open_workspace(path, read_only=True) as ro:
        with pytest.raises(ReadOnlyWorkspace):
            index_missing_vectors(ro)
