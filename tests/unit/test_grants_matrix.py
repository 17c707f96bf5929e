"""The effective grant matrix agrees with the product's rules cell by cell (computed again,
independently, from raw rows), and so does the resolution ``propose_policy`` uses."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlean

import grant_oracle as oracle
from fixtures.product_fixture import GRANT_SITUATIONS, build
from memorydesk.browse.grants import matrix_json, read_first_screen, read_matrix
from memorydesk.core.errors import InsufficientMemoryPermission
from memorydesk.core.product.grants import GrantIndex, GrantRow, Source
from memorydesk.core.product.vocab import AgentRole, Permission
from memorydesk.memory import policies
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace


def desk_json(path: Path) -> dict:
    with open_workspace(path, read_only=True) as ws:
        return matrix_json(read_matrix(ws))


def sources(payload: dict) -> set[str]:
    return {c["source"] for d in payload["domains"] for c in d["cells"].values()}


@pytest.mark.shared
def test_shared_sample_matches_the_rules_cell_by_cell(sample_db: Path) -> None:
    assert "INDEX" in oracle.product_plan(sample_db)  # no planner statistics: the product reads index order
    expected = oracle.matrix(sample_db, oracle.INDEX_ORDER)
    got = desk_json(sample_db)
    assert got == expected
    cells = {d["domain"]: d["cells"] for d in got["domains"]}
    assert cells["pr-reviews"]["pm"] == {"permission": "read", "source": "unknown_value"}  # 'admin'
    assert cells["working-memory"]["qa"] == {"permission": "read", "source": "exact"}  # 'READ'
    assert cells["codebase"]["general"]["source"] == "ambiguous"  # 'engineer' and 'general'
    assert cells["Release Notes"]["devops"] == {"permission": "write", "source": "exact"}
    assert {"oncall", "security", "Release Notes"} <= set(cells)  # domains without a domain row
    assert cells["repo:acme-lumen-web/conventions"]["security"]["source"] == "fail_open"  # bare name has no row


@pytest.mark.parametrize("layout", ["suffixed", "unsuffixed"])
def test_project_fixture_shows_every_source_kind(tmp_path: Path, layout: str) -> None:
    path = build(tmp_path / "product.db", layout)
    assert "INDEX" in oracle.product_plan(path)
    got = desk_json(path)
    assert got == oracle.matrix(path, oracle.INDEX_ORDER)
    assert sources(got) == {s.value for s in Source}
    with open_workspace(path, read_only=True) as ws:
        lazy = read_matrix(ws, complete=False)  # as the tab reads it: cells resolved when first shown
        assert not lazy.is_complete and matrix_json(lazy) == got and lazy.is_complete
    cells = {d["domain"]: d["cells"] for d in got["domains"]}
    for (role, domain), (permission, source) in GRANT_SITUATIONS.items():
        assert cells[domain][role] == {"permission": permission, "source": source}, (role, domain)


def test_the_order_follows_sqlites_plan_for_the_products_query(tmp_path: Path) -> None:
    """With planner statistics SQLite scans the table for the product's query: the row
    written first decides an ambiguous cell, not the one whose role sorts first."""
    path = build(tmp_path / "product.db")
    conn = sqlean.connect(str(path))
    with conn:
        conn.execute("INSERT INTO memory_access_grants_table VALUES "
                     "((SELECT workspace_id FROM workspace_meta), 'CODER', 'infrastructure', 'none')")
        conn.execute("ANALYZE")
    conn.close()
    assert "SCAN" in oracle.product_plan(path) and "INDEX" not in oracle.product_plan(path)
    got = desk_json(path)
    assert got == oracle.matrix(path, oracle.WRITTEN_ORDER)
    assert got != oracle.matrix(path, oracle.INDEX_ORDER)
    coder = {d["domain"]: d["cells"] for d in got["domains"]}["infrastructure"]["coder"]
    assert coder == {"permission": "write", "source": "ambiguous"}  # 'coder' was written before 'CODER'


@pytest.mark.parametrize("analyzed", [False, True])
def test_a_first_screen_agrees_with_the_whole_matrix(tmp_path: Path, analyzed: bool) -> None:
    """The tab's first screen reads only its domains' rows and orders them as SQLite would
    return the product's query: by the primary-key index, or (after ANALYZE) as written."""
    path = build(tmp_path / "product.db")
    conn = sqlean.connect(str(path))
    with conn:
        conn.executemany("INSERT INTO memory_access_grants_table VALUES ((SELECT workspace_id FROM workspace_meta), "
                         "?, ?, ?)", [("CODER", "codebase", "none"), ("Qa", "conventions", "none")])
        if analyzed:
            conn.execute("ANALYZE")
    conn.close()
    with open_workspace(path, read_only=True) as ws:
        whole = read_matrix(ws)
        first = read_first_screen(ws, first=3)
    assert [d.name for d in first.domains] == [d.name for d in whole.domains]
    assert first.is_first_screen and not first.is_complete
    assert [d.name for d in first.domains if d.name in first.first] == ["codebase", "conventions", "infrastructure"]
    for i, entry in enumerate(whole.domains):
        if entry.name in first.first:
            assert [first.code(i, j) for j in range(9)] == [whole.code(i, j) for j in range(9)], entry.name
        else:
            assert not first.known(i)
    coder = whole.code(whole.row_of("codebase"), 1)
    assert coder == ((Permission.WRITE if analyzed else Permission.NONE), Source.AMBIGUOUS)  # written vs sorted


def test_propose_policy_resolves_as_the_matrix_shows(tmp_path: Path) -> None:
    path = build(tmp_path / "product.db")
    shutil.copyfile(path, tmp_path / "copy.db")
    got = {d["domain"]: d["cells"] for d in desk_json(path)["domains"]}
    with open_workspace(tmp_path / "copy.db") as ws:
        with ws.read() as conn:
            for domain, cells in got.items():
                for role, c in cells.items():
                    assert policies.resolve_permission(ws, conn, role, domain).value == c["permission"], (role, domain)
        svc = MemoryService(ws, embedder=False)
        # 'Engineer' → none is read before 'general' → write: the product refuses general here
        with pytest.raises(InsufficientMemoryPermission):
            svc.propose_policy(role="general", domain="codebase", rule="Use tabs")
        assert svc.propose_policy(role="intern-bot", domain="oncall", rule="Page twice")  # unknown role acts as general
        assert svc.propose_policy(role="qa", domain="repo:acme-web/conventions", rule="Lint first")  # bare name


def test_index_rules_on_hand_made_rows() -> None:
    rows = [GrantRow("Reviewer", "docs", "WRITE"), GrantRow("reviewer", "docs", "none"),
            GrantRow("qa", "x", "admin"), GrantRow("pm", "x", "none"), GrantRow("devops", "repo:a/x", "read"),
            GrantRow("ops", "repo:a/x", "write")]
    index = GrantIndex(rows)
    docs = index.cell(AgentRole.REVIEWER, "docs")
    assert (docs.permission, docs.source, docs.decided_by) == (Permission.WRITE, Source.AMBIGUOUS, rows[0])
    assert index.cell(AgentRole.QA, "x").source is Source.UNKNOWN_VALUE
    assert index.cell(AgentRole.QA, "repo:a/x").source is Source.UNKNOWN_VALUE  # via the bare name 'x'
    assert index.cell(AgentRole.PM, "repo:a/x").source is Source.BARE_NAME
    assert index.cell(AgentRole.DEVOPS, "repo:a/x").source is Source.EXACT
    general = index.cell(AgentRole.GENERAL, "repo:a/x")
    assert (general.permission, general.source) == (Permission.WRITE, Source.UNKNOWN_VALUE)  # 'ops' counts as general
    assert index.cell(AgentRole.CEO, "repo:a/x").source is Source.FAIL_OPEN
    assert index.cell(AgentRole.CEO, "repo:x").source is Source.FAIL_OPEN  # malformed: no bare-name fallback
