"""Grant edits from the desk: one grant change and one history row each, undo that puts the
stored bytes (and rowids) back, refusals when rows changed underneath or the domain does
not exist, and the check that asks before the last write of a domain with policies goes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlean

from fixtures.product_fixture import build
from memorydesk.browse.grants import Plan, matrix_json, read_matrix, write_loss
from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.core.product.grants import ROLES
from memorydesk.memory.history import record as history
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store import Workspace, open_workspace


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    workspace = open_workspace(build(tmp_path / "product.db"))
    yield workspace
    workspace.close()


@pytest.fixture
def rv(ws: Workspace) -> Reviewer:
    return Reviewer(ws, "maya", embedder=False)


def stored(ws: Workspace) -> set[tuple]:
    """Every grant row exactly as stored: rowid, and the bytes of each string."""
    with ws.read() as conn:
        return set(conn.exec_driver_sql(
            "SELECT rowid, hex(workspace_id), hex(agent_role), hex(memory_domain), hex(permission), "
            "typeof(permission) FROM memory_access_grants_table").all())


def history_count(ws: Workspace) -> int:
    if not ws.desk_schema:  # opening added nothing: no history table until the first change
        return 0
    with ws.read() as conn:
        return int(conn.exec_driver_sql("SELECT count(*) FROM memdesk_history").scalar())


def cell(ws: Workspace, role: str, domain: str) -> dict:
    cells = {d["domain"]: d["cells"] for d in matrix_json(read_matrix(ws))["domains"]}
    return cells[domain][role]


def grant_rows(ws: Workspace, domain: str) -> list[tuple[str, str]]:
    with ws.read() as conn:
        return sorted(conn.exec_driver_sql("SELECT agent_role, permission FROM memory_access_grants_table "
                                           "WHERE memory_domain = ?", (domain,)).all())


def test_setting_a_cell_changes_one_row_and_writes_one_history_row(ws: Workspace, rv: Reviewer) -> None:
    before, entries = stored(ws), history_count(ws)
    result = rv.set_grant("qa", "infrastructure", "read", reason="QA reads infra rules only")
    after = stored(ws)
    assert len(before - after) == 1 and len(after - before) == 1  # one row rewritten, in place
    assert {r[0] for r in before - after} == {r[0] for r in after - before}  # same rowid
    assert history_count(ws) == entries + 1 and len(result.history_ids) == 1
    assert cell(ws, "qa", "infrastructure") == {"permission": "read", "source": "exact"}
    row = rv.history("grant")[0]
    assert (row["action"], row["actor"], row["reason"], row["entity_id"]) == \
        ("set", "maya", "QA reads infra rules only", "qa/infrastructure")
    rv.undo()
    assert stored(ws) == before


def test_setting_an_ambiguous_cell_leaves_one_row_and_undo_restores_both(ws: Workspace, rv: Reviewer) -> None:
    before = stored(ws)
    assert cell(ws, "general", "codebase")["source"] == "ambiguous"
    rv.set_grant("general", "codebase", "write")
    assert grant_rows(ws, "codebase").count(("general", "write")) == 1
    assert ("Engineer", "none") not in grant_rows(ws, "codebase")
    assert cell(ws, "general", "codebase") == {"permission": "write", "source": "exact"}
    rv.undo()
    assert stored(ws) == before  # 'Engineer' is back, with its bytes and its rowid
    assert cell(ws, "general", "codebase") == {"permission": "none", "source": "ambiguous"}


def test_fixing_an_unknown_string_and_undo_restore_the_bytes(ws: Workspace, rv: Reviewer) -> None:
    before = stored(ws)
    rv.fix_grant_row("oncall", "pm", permission="write", reason="'admin' meant write")
    assert ("pm", "write") in grant_rows(ws, "oncall")
    assert cell(ws, "pm", "oncall") == {"permission": "write", "source": "exact"}
    rv.undo()
    assert stored(ws) == before and ("pm", "admin") in grant_rows(ws, "oncall")
    rv.redo()
    assert ("pm", "write") in grant_rows(ws, "oncall")
    rv.fix_grant_row("oncall", "intern", role="qa", permission="write")  # replaces the 'READ' row of qa
    assert grant_rows(ws, "oncall") == [("pm", "write"), ("qa", "write")]
    assert cell(ws, "general", "oncall")["source"] == "fail_open"
    rv.undo()
    rv.undo()
    assert stored(ws) == before


def test_removing_rows_falls_back_and_a_bulk_edit_is_one_undo(ws: Workspace, rv: Reviewer) -> None:
    before = stored(ws)
    rv.remove_grant("coder", "repo:acme-web/conventions")
    assert cell(ws, "coder", "repo:acme-web/conventions") == {"permission": "write", "source": "bare_name"}
    rv.remove_grant("ceo", "codebase")
    assert cell(ws, "ceo", "codebase") == {"permission": "read", "source": "fail_open"}
    entries = history_count(ws)
    rv.lock_down(["codebase", "conventions"], reason="freeze")
    assert history_count(ws) == entries + 1
    for domain in ("codebase", "conventions"):
        assert grant_rows(ws, domain) == sorted((r.value, "none") for r in ROLES)
    column = rv.set_grants([("designer", d.name) for d in read_matrix(ws).domains], "write")
    assert len(column.history_ids) == 1
    rv.undo()
    rv.undo()
    rv.undo()
    rv.undo()
    assert stored(ws) == before


def test_an_undo_is_refused_when_an_agent_changed_the_row(ws: Workspace, rv: Reviewer) -> None:
    rv.set_grant("qa", "infrastructure", "none")
    conn = sqlean.connect(str(ws.path))
    with conn:
        conn.execute("UPDATE memory_access_grants_table SET permission = 'write' "
                     "WHERE agent_role = 'qa' AND memory_domain = 'infrastructure'")
    conn.close()
    changed = stored(ws)
    with pytest.raises(StaleEdit, match="infrastructure"):
        rv.undo()
    assert stored(ws) == changed


def test_no_domain_is_created_and_bad_values_are_refused(ws: Workspace, rv: Reviewer) -> None:
    before = stored(ws)
    with pytest.raises(MemoryDeskError, match="creates no domains"):
        rv.set_grant("qa", "brand-new", "write")
    with pytest.raises(MemoryDeskError, match="role must be one of"):
        rv.set_grant("intern", "codebase", "write")
    with pytest.raises(MemoryDeskError, match="none, read or write"):
        rv.set_grant("qa", "codebase", "admin")
    with pytest.raises(MemoryDeskError, match="nothing to change"):
        rv.set_grant("qa", "codebase", "write")
    rv.set_grant("ceo", "pr-reviews", "write")  # a domain named by a fact only: fine
    assert stored(ws) - before and history_count(ws) == 1


def test_older_history_rows_still_undo(ws: Workspace, rv: Reviewer) -> None:
    with ws.write() as conn:
        conn.exec_driver_sql("UPDATE memory_access_grants_table SET permission = 'none' "
                             "WHERE agent_role = 'qa' AND memory_domain = 'codebase'")
        history.record(conn, key="grant.set", entity_id="qa/codebase", actor="old desk", reason="",
                       detail={"role": "qa", "domain": "codebase", "before": "write", "after": "none"})
    rv.undo()
    assert ("qa", "write") in grant_rows(ws, "codebase")


def test_asks_before_the_last_write_of_a_domain_with_active_policies(ws: Workspace, rv: Reviewer) -> None:
    # conventions: one active policy; all nine rows write
    assert write_loss(ws, Plan("set", tuple((r.value, "conventions") for r in ROLES), "none")) == [("conventions", 1)]
    assert write_loss(ws, Plan("set", (("qa", "conventions"),), "none")) == []  # others still write
    # codebase has only an inactive policy: nothing to ask
    assert write_loss(ws, Plan("set", tuple((r.value, "codebase") for r in ROLES), "read")) == []
    # the repo-scoped domain falls back to conventions for eight roles; coder reads: only bare rows give write
    with ws.write() as conn:
        conn.exec_driver_sql("INSERT INTO memory_policies_table VALUES ('p-9', (SELECT workspace_id FROM "
                             "workspace_meta), 'repo:acme-web/conventions', 'Lint', '[]', NULL, 1, 0, 0)")
    lost = write_loss(ws, Plan("remove", tuple((r.value, "conventions") for r in ROLES)))
    assert ("repo:acme-web/conventions", 1) in lost and ("conventions", 1) in lost
    assert write_loss(ws, Plan("fix", domain="infrastructure", agent_role="qa", permission="read")) == []
