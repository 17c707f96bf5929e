"""Another program's commits told apart by the tables' public watermarks (``store.watermarks``):
each write reports the kinds of entity it changed and nothing else; our own commits report
nothing; a fact written in place (a recall recorded) is seen by the slow marks, read at most as
often as their cost allows."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.product_fixture import build
from fixtures.receipts import complete_lineage
from memorydesk.core.changes import Kind
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage import receipt_store
from memorydesk.memory.facts import record_recall
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store import open_workspace
from memorydesk.store.engine import raw_connect
from memorydesk.store.watermarks import Follower


class Clock:
    """A clock that moves a second each time it is read (so a read of the slow marks "takes" one)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return build(tmp_path / "ws.db")


def another_program(path: Path, sql: str, *params) -> None:
    con = raw_connect(path, read_only=False)
    try:
        con.execute(sql, params)
        con.commit()
    finally:
        con.close()


def test_each_write_reports_the_kinds_it_changed(path: Path) -> None:
    ws = open_workspace(path)
    other = open_workspace(path)  # another desk (or another program) on the same file
    try:
        follower = Follower(ws, slow_share=1.0)
        assert follower.poll() is None  # where the file stands
        assert follower.poll() is None  # nothing happened
        another_program(path, "INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, "
                              "updated_at) SELECT 'f-new', workspace_id, 'codebase', 't', 'c', 1, 1 "
                              "FROM memory_facts_table LIMIT 1")
        assert follower.poll() == ({Kind.FACT, Kind.DOMAIN}, False)
        another_program(path, "UPDATE memory_policies_table SET active = 1 - active WHERE id = 'p-1'")
        assert follower.poll() == ({Kind.POLICY, Kind.DOMAIN}, False)
        another_program(path, "UPDATE memory_access_grants_table SET permission = 'none' WHERE rowid = "
                              "(SELECT min(rowid) FROM memory_access_grants_table WHERE permission = 'read')")
        assert follower.poll() == ({Kind.GRANT, Kind.DOMAIN}, False)  # read → none: the same length, still seen
        receipt_store.ingest(other, [receipt_from_json(r) for r in complete_lineage("from-another-program")])
        assert follower.poll() == ({Kind.RECEIPT}, False)
        Reviewer(other, "bob", embedder=False).delete_facts(["f-03"], "another desk")
        assert follower.poll() == ({Kind.FACT, Kind.DOMAIN}, True)  # its history row too
        another_program(path, "UPDATE agent_working_memory_table SET content = content || ' more'")
        assert follower.poll() == ({Kind.NOTE}, False)
    finally:
        other.close()
        ws.close()


def test_our_own_commits_report_nothing(path: Path) -> None:
    ws = open_workspace(path)
    try:
        follower = Follower(ws, slow_share=1.0)
        follower.poll()
        with ws.own_commits():
            Reviewer(ws, "ana", embedder=False).delete_facts(["f-03"], "ours")
            record_recall(ws, ["f-01"], 1999999999)  # in place: only the slow marks see it
        assert follower.poll() is None
        another_program(path, "UPDATE agent_working_memory_table SET content = content || ' more'")
        assert follower.poll() == ({Kind.NOTE}, False)  # not the facts and history we changed ourselves
    finally:
        ws.close()


def test_a_fact_written_in_place_is_seen_by_the_slow_marks_within_their_share_of_time(path: Path) -> None:
    ws = open_workspace(path)
    try:
        clock = Clock()
        follower = Follower(ws, slow_share=0.25, clock=clock)
        follower.poll()
        another_program(path, "UPDATE memory_policies_table SET active = 1 - active WHERE id = 'p-1'")
        assert follower.poll() == ({Kind.POLICY, Kind.DOMAIN}, False)  # the slow marks read now: nothing in place
        # an agent's search records a recall: no row added, no length changed; only last_recalled_at moves
        another_program(path, "UPDATE memory_facts_table SET recall_count = recall_count + 1, "
                              "last_recalled_at = 1999999999 WHERE id = 'f-01'")
        polls = [follower.poll() for _ in range(3)]
        assert polls == [None, None, None]  # the last slow read "took" a second: not again for four
        while (found := follower.poll()) is None:
            assert clock.now < 20
        assert found == ({Kind.FACT, Kind.DOMAIN}, False)
    finally:
        ws.close()
