"""What people do from the desk: edit, delete, restore, purge, policies, grants, conflicts, undo."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlean
from sqlalchemy import select

from memorydesk.core.errors import MemoryDeskError, ReadOnlyWorkspace, StaleEdit
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace

T = 1_790_000_000


@pytest.fixture
def rv(ws):
    return Reviewer(ws, "alice", embedder=False)


def superseded(ws, fact_id):
    facts = ws.layout.facts
    with ws.read() as conn:
        return conn.execute(select(facts.c.superseded_by).where(facts.c.id == fact_id)).one()[0]


def history_rows(ws):
    with ws.read() as conn:
        return conn.exec_driver_sql("SELECT id, entity, entity_id, action, actor, reason, undo_of, undone_by "
                                    "FROM memdesk_history ORDER BY id").all()


def test_edit_supersedes_and_names_the_person(ws, svc, rv) -> None:
    f = svc.propose_fact(domain="codebase", topic="build", content="npm", confidence=0.5, agent_id="a",
                         role="coder", veracity="tool", now=T)
    result = rv.edit_fact(f.fact_id, domain="codebase", topic="build", content="pnpm", confidence=0.9,
                          reason="outdated")
    new_id = result.ids[1]
    assert superseded(ws, f.fact_id) == new_id
    facts = ws.layout.facts
    with ws.read() as conn:
        new = conn.execute(select(facts).where(facts.c.id == new_id)).one()
    assert (new.content, new.confidence, new.veracity, new.authored_by_agent_id, new.authored_by_role) == (
        "pnpm", 0.9, "stated", None, None)
    (h,) = history_rows(ws)
    assert (h.entity, h.action, h.actor, h.reason, h.entity_id) == ("fact", "edit", "alice", "outdated", f.fact_id)


def test_edit_of_a_fact_an_agent_changed_is_refused(ws, svc, rv) -> None:
    f = svc.propose_fact(domain="d", topic="t", content="alpha beta gamma", confidence=0.5, now=T)
    opened_at = T  # the dialog saw updated_at = T
    svc.propose_fact(domain="d", topic="t", content="alpha beta gamma", now=T + 5)  # re-mention bumps it
    with pytest.raises(StaleEdit, match="changed"):
        rv.edit_fact(f.fact_id, domain="d", topic="t", content="new", confidence=0.5, expected_updated_at=opened_at)
    winner = svc.propose_fact(domain="d", topic="t", content="alpha beta delta", confidence=1.0, now=T + 9)
    with pytest.raises(StaleEdit, match="superseded"):
        rv.edit_fact(f.fact_id, domain="d", topic="t", content="new", confidence=0.5)
    assert superseded(ws, f.fact_id) == winner.fact_id  # no fork: the chain is untouched
    assert history_rows(ws) == []


def test_delete_restore_and_undo_redo(ws, svc, rv) -> None:
    f = svc.propose_fact(domain="d", topic="t", content="x", now=T)
    rv.delete_facts([f.fact_id], reason="wrong")
    assert superseded(ws, f.fact_id) == "human:deleted"
    rv.restore_facts([f.fact_id])
    assert superseded(ws, f.fact_id) is None
    rv.undo()  # undo the restore
    assert superseded(ws, f.fact_id) == "human:deleted"
    rv.undo()  # undo the delete
    assert superseded(ws, f.fact_id) is None
    rv.redo()  # redo the delete
    assert superseded(ws, f.fact_id) == "human:deleted"
    rv.redo()  # redo the restore
    assert superseded(ws, f.fact_id) is None
    with pytest.raises(MemoryDeskError, match="nothing to redo"):
        rv.redo()
    actions = [(h.action, h.undo_of is not None) for h in history_rows(ws)]
    assert actions == [("delete", False), ("restore", False), ("undo", True), ("undo", True), ("redo", True),
                       ("redo", True)]


def test_undo_of_an_edit_restores_the_old_version(ws, svc, rv) -> None:
    f = svc.propose_fact(domain="d", topic="t", content="old text", now=T)
    new_id = rv.edit_fact(f.fact_id, domain="d", topic="t", content="new text", confidence=1.0).ids[1]
    undo = rv.undo()
    facts = ws.layout.facts
    with ws.read() as conn:  # the new version is gone: the file is as it was
        assert conn.execute(select(facts.c.id).where(facts.c.id == new_id)).first() is None
    assert superseded(ws, f.fact_id) is None
    assert undo.message == f"Undone: edit of fact {f.fact_id[:8]}…"  # a sentence, no internal word
    rv.redo()
    assert superseded(ws, f.fact_id) == new_id and superseded(ws, new_id) is None


def test_undo_refuses_when_an_agent_moved_on(ws, svc, rv) -> None:
    f = svc.propose_fact(domain="d", topic="t", content="alpha beta gamma", confidence=0.4, now=T)
    rv.delete_facts([f.fact_id])
    rv.restore_facts([f.fact_id])
    svc.propose_fact(domain="d", topic="t", content="alpha beta delta", confidence=1.0, now=T + 1)  # supersedes f
    with pytest.raises(StaleEdit):
        rv.undo()  # undoing the restore would overwrite the agent's supersession
    assert superseded(ws, f.fact_id) != "human:deleted"


def test_policy_edit_delete_activate_and_undo(ws, svc, rv) -> None:
    pid = svc.propose_policy(role="pm", domain="product", rule="Ship on Tuesdays", now=T)
    new = rv.edit_policy(pid, domain="product", rule="Ship on Wednesdays", required_role="pm").ids[1]
    policies = ws.layout.policies

    def active():
        with ws.read() as conn:
            return dict(conn.execute(select(policies.c.id, policies.c.active)).all())

    assert active() == {pid: 0, new: 1}
    rv.set_policy_active(new, False)
    assert active() == {pid: 0, new: 0}
    rv.undo()
    assert active() == {pid: 0, new: 1}
    rv.delete_policy(new)
    assert new not in active()
    rv.undo()
    assert active()[new] == 1


def test_grants_set_remove_undo(ws, svc, rv) -> None:
    svc.propose_fact(domain="infra", topic="t", content="x", now=T)  # seeds write for all roles
    rv.set_grant("designer", "infra", "none")
    assert svc.permission("designer", "infra") == "none"
    rv.remove_grant("designer", "infra")
    assert svc.permission("designer", "infra") == "read"  # no row: fail-open
    rv.undo()
    assert svc.permission("designer", "infra") == "none"
    rv.undo()
    assert svc.permission("designer", "infra") == "write"
    with pytest.raises(MemoryDeskError, match="none, read or write"):
        rv.set_grant("qa", "infra", "admin")


def test_conflict_restore_loser_and_undo(ws, svc, rv) -> None:
    old = svc.propose_fact(domain="d", topic="t", content="alpha beta gamma", confidence=0.5, now=T)
    new = svc.propose_fact(domain="d", topic="t", content="alpha beta delta", confidence=0.9, now=T + 1)
    (conflict,) = svc.list_memory_conflicts()
    rv.restore_loser(conflict["id"], reason="the old one was right")
    assert superseded(ws, old.fact_id) is None and superseded(ws, new.fact_id) == old.fact_id
    rv.undo()
    assert superseded(ws, old.fact_id) == new.fact_id and superseded(ws, new.fact_id) is None
    rv.confirm_conflict(conflict["id"])
    assert history_rows(ws)[-1].action == "confirm"


def test_purge_leaves_no_trace_of_the_text_in_the_file(ws, svc, rv) -> None:
    secret = "Zebra-7781 passphrase for the staging vault"
    v1 = svc.propose_fact(domain="ops", topic="vault", content=secret + " (v1)", confidence=0.4, now=T)
    v2 = svc.propose_fact(domain="ops", topic="vault", content=secret + " (v2)", confidence=0.9, now=T + 1)
    other = svc.propose_fact(domain="ops", topic="other", content="Zebra-7781 keeps the rota", now=T + 2)
    edited = rv.edit_fact(v2.fact_id, domain="ops", topic="vault", content=secret + " (v3)", confidence=1.0)
    v3 = edited.ids[1]
    copy = svc.propose_fact(domain="ops2", topic="vault", content=secret + " (v3)", now=T + 3)
    assert svc.harmonize_memory().beliefs == 1  # a belief now quotes the text too
    result = rv.purge_facts([v3, copy.fact_id], reason="leaked credential")
    assert set(result.ids) == {v1.fact_id, v2.fact_id, v3, copy.fact_id}
    with pytest.raises(MemoryDeskError, match="cannot be undone"):
        rv.undo(result.history_ids[0])
    ws.close()
    data = b"".join(Path(str(ws.path) + s).read_bytes() for s in ("", "-wal") if Path(str(ws.path) + s).exists())
    assert b"passphrase" not in data and b"staging vault" not in data
    assert b"Zebra-7781 keeps the rota" in data  # unrelated memory is untouched
    conn = sqlean.connect(str(ws.path))
    remaining = conn.execute("SELECT id FROM memory_facts_table").fetchall()
    purge_rows = conn.execute("SELECT actor, reason, detail FROM memdesk_history WHERE action = 'purge'").fetchall()
    conn.close()
    assert other.fact_id in {r[0] for r in remaining}
    assert purge_rows[0][:2] == ("alice", "leaked credential")


def test_read_only_workspace_refuses_every_change(tmp_path: Path) -> None:
    path = tmp_path / "ro.db"
    with open_workspace(path, create=True) as ws:
        fid = MemoryService(ws, embedder=False).propose_fact(domain="d", topic="t", content="x").fact_id
    with open_workspace(path, read_only=True) as ro:
        rv = Reviewer(ro, "alice", embedder=False)
        for call in (lambda: rv.delete_facts([fid]), lambda: rv.set_grant("qa", "d", "none"),
                     lambda: rv.edit_fact(fid, domain="d", topic="t", content="y", confidence=1.0)):
            with pytest.raises(ReadOnlyWorkspace):
                call()
