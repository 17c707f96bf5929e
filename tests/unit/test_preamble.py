"""The dispatch preamble, byte for byte: on the sample workspace and on hand-built ones."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import sqlean

from helpers import sha256
from memorydesk.search.preamble import build_preamble, policy_section
from memorydesk.store import open_workspace

FOOTER = "_Search durable facts on demand with the `search_memory` tool._"
VERIFY = "_Verify load-bearing items with `search_memory`._"
FACTS_HEAD = "## Possibly relevant facts (keyword match for this task)"
T0 = 1_795_000_000
_ids = itertools.count(1)


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# --- hand-built workspaces --------------------------------------------------------------


def _ws(tmp_path: Path):
    return open_workspace(tmp_path / "x.db", create=True)


def add_fact(ws, topic: str, content: str, *, domain: str = "codebase", confidence: float = 0.9,
             superseded_by: str | None = None) -> str:
    fid = f"fact-{next(_ids):04d}"
    with ws.write() as conn:
        conn.execute(ws.layout.facts.insert().values(
            id=fid, workspace_id=ws.workspace_id, domain=domain, topic=topic, content=content,
            confidence=confidence, superseded_by=superseded_by, created_at=T0, updated_at=T0))
    return fid


def add_policy(ws, domain: str, rule: str, *, updated_at: int, active: bool = True) -> None:
    with ws.write() as conn:
        conn.execute(ws.layout.policies.insert().values(
            id=f"pol-{next(_ids)}", workspace_id=ws.workspace_id, domain=domain, rule=rule, active=active,
            created_at=T0, updated_at=updated_at))


def add_agent_note(ws, agent_id: str, note: str) -> None:
    with ws.write() as conn:
        conn.execute(ws.layout.agents.insert().values(
            id=agent_id, name=agent_id, title=agent_id, agent_md_path="", workspace_id=ws.workspace_id,
            skills="", created_at=T0))
        conn.execute(ws.layout.notes.insert().values(
            id=f"note-{agent_id}", workspace_id=ws.workspace_id, agent_id=agent_id, content=note, updated_at=T0))


def test_exact_text_with_all_three_sections(tmp_path: Path) -> None:
    with _ws(tmp_path) as ws:
        add_policy(ws, "conventions", "Squash-merge only.", updated_at=T0 + 1)
        add_policy(ws, "infrastructure", "No Friday deploys.\nAsk on-call.", updated_at=T0 + 5)
        add_policy(ws, "codebase", "Retired rule", updated_at=T0 + 9, active=False)
        add_agent_note(ws, "agent-1", "- prefers small PRs\n  ")
        add_fact(ws, "deploys", "  Argo CD syncs the apps directory.  ", domain="infrastructure", confidence=0.25)
        add_fact(ws, "old-deploys", "Deploys were manual.", superseded_by="system:cleanup")
        text = build_preamble(ws, "agent-1", "Please deploy the apps directory today")
    assert text == (
        "## Agent Memory\n\n"
        "## Active Policies\n"
        "- [infrastructure] No Friday deploys.\nAsk on-call.\n"
        "- [conventions] Squash-merge only.\n\n"
        "## My Notes\n- prefers small PRs\n  \n\n"
        f"{FACTS_HEAD}\n"
        "- [infrastructure/deploys] Argo CD syncs the apps directory. (confidence 0.3)\n"
        f"{VERIFY}\n\n"
        f"{FOOTER}"
    )


def test_empty_when_no_section_has_content(tmp_path: Path) -> None:
    with _ws(tmp_path) as ws:
        add_agent_note(ws, "agent-1", " \n\t ")
        add_fact(ws, "deploys", "Argo CD syncs the apps directory.")
        assert build_preamble(ws, "agent-1", "deploy") == ""
        assert build_preamble(ws, "nobody", "") == ""
        assert build_preamble(ws, "agent-1", "nothing in memory matches this long task") == ""
        assert policy_section(ws) == ""


def test_facts_only_when_the_trimmed_task_has_20_characters(tmp_path: Path) -> None:
    with _ws(tmp_path) as ws:
        add_fact(ws, "deploys", "Argo CD syncs the apps directory.")
        nineteen = "deploy apps quickly"  # 19 characters
        assert len(nineteen) == 19
        assert build_preamble(ws, "a", "      " + nineteen + "      ") == ""
        twenty = nineteen + "!"
        assert FACTS_HEAD in build_preamble(ws, "a", "  " + twenty + "  ")
        # Hebrew, long enough, but the product's keyword builder keeps no term of it
        assert build_preamble(ws, "a", "פריסה של השרתים החדשים בסביבת הייצור") == ""


def test_at_most_five_lines(tmp_path: Path) -> None:
    with _ws(tmp_path) as ws:
        for i in range(8):
            add_fact(ws, f"deploy-{i}", f"Deploy note number {i}.")
        text = build_preamble(ws, "a", "what do we know about deploy notes")
    lines = [ln for ln in text.split("\n") if ln.startswith("- [")]
    assert len(lines) == 5


@pytest.mark.parametrize("topic_pad, lines_expected", [("", 5), ("x", 4)])
def test_budget_of_1200_utf16_units_without_newlines(tmp_path: Path, topic_pad: str, lines_expected: int) -> None:
    with _ws(tmp_path) as ws:
        for i in range(6):
            # emoji: two UTF-16 units each, so the budget is counted the way the product counts it
            add_fact(ws, f"deploy-{i}{topic_pad}", "deploy " + "🚀" * 120, confidence=1.0)
        text = build_preamble(ws, "a", "which deploy rules apply to the release")
    lines = [ln for ln in text.split("\n") if ln.startswith("- [")]
    sizes = [_utf16(ln) for ln in lines]
    full_line = _utf16(f"- [codebase/deploy-0{topic_pad}] ") + 200 + 1 + _utf16(" (confidence 1.0)")
    assert full_line == 240 + len(topic_pad)  # five plain lines fill the 1,200 budget exactly
    assert all(size == full_line for size in sizes)
    assert len(lines) == lines_expected
    assert sum(sizes) <= 1200 < sum(sizes) + full_line


def test_snippet_cut_at_200_units_with_ellipsis_and_confidence_rounding(tmp_path: Path) -> None:
    with _ws(tmp_path) as ws:
        long = "rollback " + "x" * 400
        add_fact(ws, "rollback", long, confidence=0.25)
        add_fact(ws, "rollback-2", "rollback exactly", confidence=0.35)
        add_fact(ws, "rollback-3", "rollback again", confidence=0.45)
        text = build_preamble(ws, "a", "how do we rollback a release")
    assert f"- [codebase/rollback] {long[:200]}… (confidence 0.3)" in text
    assert "- [codebase/rollback-2] rollback exactly (confidence 0.3)" in text  # 0.35 lies below the tie
    assert "- [codebase/rollback-3] rollback again (confidence 0.5)" in text


# --- the sample workspace ----------------------------------------------------------------


def _raw(path: Path):
    return sqlean.connect(f"file:{path}?immutable=1", uri=True)


@pytest.mark.shared
def test_sample_policies_match_a_direct_read(sample_db: Path, expected: dict) -> None:
    with _raw(sample_db) as conn:
        rows = conn.execute("SELECT domain, rule, updated_at FROM memory_policies_table WHERE active = 1").fetchall()
    rows.sort(key=lambda r: -r[2])
    assert len(rows) == expected["counts"]["policies_active"]
    want = "## Active Policies\n" + "\n".join(f"- [{d}] {r}" for d, r, _ in rows)
    with open_workspace(sample_db, read_only=True) as ws:
        assert policy_section(ws) == want
        # every agent gets every active policy, whoever it is
        for agent in ("nobody", "ec7ac8ad-1b2b-406b-aae1-2c972399d29d"):
            assert build_preamble(ws, agent, "").startswith("## Agent Memory\n\n" + want)


@pytest.mark.shared
def test_sample_notes_verbatim_and_blank_notes_left_out(sample_db: Path) -> None:
    with _raw(sample_db) as conn:
        notes = conn.execute("SELECT agent_id, content FROM agent_working_memory_table").fetchall()
    before = sha256(sample_db)
    with open_workspace(sample_db, read_only=True) as ws:
        policies = policy_section(ws)
        for agent_id, content in notes:
            text = build_preamble(ws, agent_id, "")
            if content.strip():
                assert text == f"## Agent Memory\n\n{policies}\n\n## My Notes\n{content}\n\n{FOOTER}"
            else:
                assert "## My Notes" not in text
    assert any(len(c) > 5000 for _, c in notes)
    assert sha256(sample_db) == before


@pytest.mark.shared
def test_sample_fact_lines_follow_keyword_search(sample_db: Path, expected: dict) -> None:
    task = "Raise the sentry quota before the launch and check invoice rounding"
    with open_workspace(sample_db, read_only=True) as ws:
        text = build_preamble(ws, "nobody", task)
        from memorydesk.search.agent import keyword_search

        hits = keyword_search(ws, task).hits
    section = text.split(FACTS_HEAD + "\n", 1)[1].split("\n" + VERIFY, 1)[0]
    lines = section.split("\n")
    assert 1 <= len(lines) <= 5
    for line, hit in zip(lines, hits):
        assert line.startswith(f"- [{hit.domain}/{hit.topic}] ")
    assert hits[0].id == "28f723fa-d466-46a9-9b03-3ef0dd6acdc0"


@pytest.mark.shared
def test_sample_long_fact_is_cut(sample_db: Path, expected: dict) -> None:
    adr = next(f for f in expected["specific_facts"] if f["key"] == "long_20kb")
    with _raw(sample_db) as conn:
        content = conn.execute("SELECT content FROM memory_facts_table WHERE id = ?", (adr["id"],)).fetchone()[0]
    with open_workspace(sample_db, read_only=True) as ws:
        text = build_preamble(ws, "nobody", "ADR-0007 event outbox idempotent consumers")
    cut = content.strip()[:200]
    assert f"- [{adr['domain']}/{adr['topic']}] {cut}…" in text
