"""One action on several facts is one undo: Edit ▸ Undo takes every entry of a multi-fact
delete (or restore) back together, Redo does them again together; undoing one entry by its
id (the History tab) takes that one only."""

from __future__ import annotations

from pathlib import Path

import pytest

from memorydesk.browse.naming import undo_redo_names
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.rows import fact_row
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace


@pytest.fixture
def ws(tmp_path: Path):
    with open_workspace(tmp_path / "w.db", create=True) as ws:
        svc = MemoryService(ws, embedder=False)
        ws.ids = [svc.propose_fact(domain="ops", topic=f"t{n}", content=f"fact number {n}").fact_id  # type: ignore
                  for n in range(4)]
        yield ws


def _states(ws) -> list[str | None]:
    with ws.read() as conn:
        return [fact_row(conn, ws.layout, fid).superseded_by for fid in ws.ids]


def test_one_undo_brings_a_multi_fact_delete_back_and_one_redo_deletes_it_again(ws) -> None:
    r = Reviewer(ws, "ana")
    r.delete_facts([ws.ids[0]], "first, on its own")
    done = r.delete_facts(ws.ids[1:], "three stale ones")
    assert len(done.history_ids) == 3  # an entry per fact, for each fact's history
    assert undo_redo_names(ws)[0] == "Delete 3 facts"
    undone = r.undo()
    assert _states(ws) == ["human:deleted", None, None, None]  # all three back, the earlier delete kept
    assert len(undone.history_ids) == 3 and set(undone.ids) >= set(ws.ids[1:])
    assert undo_redo_names(ws)[1] == "Delete 3 facts"
    r.redo()
    assert _states(ws) == ["human:deleted"] * 4
    r.undo()
    r.undo()  # the delete made on its own is the next undo
    assert _states(ws) == [None] * 4


def test_undo_by_id_takes_one_entry_and_a_restore_of_several_is_one_undo(ws) -> None:
    r = Reviewer(ws, "ana")
    done = r.delete_facts(ws.ids, "all four")
    r.undo(done.history_ids[0], "only this one")  # as the History tab does
    assert _states(ws) == [None] + ["human:deleted"] * 3
    r.undo()  # Edit ▸ Undo: the three entries of the delete that are not undone yet
    assert _states(ws) == [None] * 4
    r.delete_facts(ws.ids, "again")
    r.restore_facts(ws.ids, "they were right")
    assert _states(ws) == [None] * 4
    r.undo()
    assert _states(ws) == ["human:deleted"] * 4
