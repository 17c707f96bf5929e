"""Policies, grants, notes, the hot tier, consolidation and harmonize."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from memorydesk.core.errors import InsufficientMemoryPermission, MemoryDeskError
from memorydesk.memory.service import MemoryService
from memorydesk.memory.working import KEEP_PER_AGENT

T = 1_790_000_000


def put_grant(svc: MemoryService, role: str, domain: str, permission: str | None) -> None:
    grants = svc.ws.layout.grants
    with svc.ws.write() as conn:
        conn.execute(grants.delete().where((grants.c.agent_role == role) & (grants.c.memory_domain == domain)))
        if permission is not None:
            conn.execute(grants.insert().values(workspace_id=svc.ws.workspace_id, agent_role=role,
                                                memory_domain=domain, permission=permission))


def test_grant_fallback_chain(svc: MemoryService) -> None:
    assert svc.permission("coder", "never-seen") == "read"  # no row: fail-open read
    put_grant(svc, "coder", "conventions", "WRITE")
    assert svc.permission("CODER", "conventions") == "write"  # case-insensitive both ways
    assert svc.permission("coder", "repo:acme-web/conventions") == "write"  # bare-name fallback
    put_grant(svc, "coder", "repo:acme-web/conventions", "none")
    assert svc.permission("coder", "repo:acme-web/conventions") == "none"  # the exact row first
    assert svc.permission("coder", "repo:scratch") == "read"  # malformed repo name: no fallback
    put_grant(svc, "qa", "conventions", "admin")
    assert svc.permission("qa", "conventions") == "read"  # unknown permission reads as read


def test_propose_policy_needs_write(svc: MemoryService) -> None:
    pid = svc.propose_policy(role="reviewer", domain="Conventions", rule="Squash before merge", now=T)
    policies = svc.ws.layout.policies
    with svc.ws.read() as conn:
        row = conn.execute(select(policies).where(policies.c.id == pid)).one()
    assert (row.domain, row.required_role, row.active, row.source_fact_ids) == ("conventions", "reviewer", 1, "[]")
    put_grant(svc, "designer", "conventions", "read")
    with pytest.raises(InsufficientMemoryPermission, match="designer"):
        svc.propose_policy(role="designer", domain="conventions", rule="Use Figma tokens")
    put_grant(svc, "designer", "conventions", "none")
    with pytest.raises(InsufficientMemoryPermission):
        svc.propose_policy(role="designer", domain="conventions", rule="Use Figma tokens")


def test_supersede_policy_retires_the_old_one(svc: MemoryService) -> None:
    old = svc.propose_policy(role="pm", domain="product", rule="Ship on Tuesdays", now=T)
    new = svc.supersede_policy(old, role="pm", rule="Ship on Wednesdays")
    policies = svc.ws.layout.policies
    with svc.ws.read() as conn:
        active = dict(conn.execute(select(policies.c.id, policies.c.active)).all())
    assert active == {old: 0, new: 1}


def test_notes_replace_and_observations_append(svc: MemoryService) -> None:
    with pytest.raises(MemoryDeskError, match="agent-1 does not exist"):
        svc.update_my_notes("agent-1", "nobody home")
    with svc.ws.write() as conn:
        conn.execute(svc.ws.layout.agents.insert().values(
            id="agent-1", name="Cody", title="Coder", agent_md_path="", workspace_id=svc.ws.workspace_id,
            skills="", role="coder", created_at=T))
    first = svc.update_my_notes("agent-1", "Focus on the billing module")
    second = svc.record_observation("agent-1", "  tests for invoices are flaky ")
    assert first == second  # the row is reused
    notes = svc.ws.layout.notes
    with svc.ws.read() as conn:
        content = conn.execute(select(notes.c.content).where(notes.c.id == first)).scalar()
        count = conn.execute(select(func.count()).select_from(notes)).scalar()
    assert content == "Focus on the billing module\n- tests for invoices are flaky" and count == 1


def test_consolidation_follows_the_product(svc: MemoryService) -> None:
    agent = "0123456789abcdef"
    svc.remember(agent, "expired thing", memory_type="fact", expires_at=T - 1, now=T - 100)
    for i in range(KEEP_PER_AGENT + 3):
        kind = "decision" if i % 2 else "event"  # events do not roll into facts
        svc.remember(agent, f"item number {i} about deploys", memory_type=kind, importance=0.7,
                     session_id="sess-1" if i < 10 else None, now=T + i)
    result = svc.consolidate_memory(now=T + 1000)
    assert result.evicted == 1 + 3  # one expired, three over the 50 newest
    assert result.considered == KEEP_PER_AGENT
    decisions = [i for i in range(3, KEEP_PER_AGENT + 3) if i % 2]
    assert len(result.created) == len(decisions)
    facts, items, log = svc.ws.layout.facts, svc.ws.layout.items, svc.ws.layout.consolidation_log
    with svc.ws.read() as conn:
        rows = conn.execute(select(facts.c.domain, facts.c.topic, facts.c.confidence, facts.c.memory_type)).all()
        left = conn.execute(select(items.c.memory_type)).scalars().all()
        pass_row = conn.execute(select(log)).one()
    assert {r.domain for r in rows} == {"working-memory"}
    assert {r.topic for r in rows} == {"sess-1", "agent 01234567"}
    assert all(r.confidence == pytest.approx(0.7) and r.memory_type == "decision" for r in rows)
    assert set(left) == {"event"} and len(left) == KEEP_PER_AGENT - len(decisions)
    assert (pass_row.items_considered, pass_row.facts_created, pass_row.evicted) == (50, len(decisions), 4)


def test_harmonize_beliefs_and_cross_agent_conflicts(svc: MemoryService) -> None:
    svc.propose_fact(domain="a", topic="deploy-day", content="We deploy on Tuesday", agent_id="x", now=T)
    svc.propose_fact(domain="b", topic="deploy-day", content="we deploy on tuesday", agent_id="y", now=T)
    svc.propose_fact(domain="c", topic="deploy-day", content="Deploys happen on Friday", agent_id="z", now=T)
    result = svc.harmonize_memory(now=T + 5)
    assert result.beliefs == 1
    # x–z and y–z differ; x–y say the same thing
    assert len(result.cross_agent_conflicts) == 2
    unresolved = svc.list_memory_conflicts(unresolved_only=True)
    assert len(unresolved) == 2 and all(c["conflict_type"] == "cross_agent" for c in unresolved)
    assert all(c["winning_fact_id"] is None and c["resolved_at"] is None for c in unresolved)
    assert svc.harmonize_memory(now=T + 6).beliefs == 1  # a pass replaces the beliefs
    assert len(svc.list_memory_conflicts(unresolved_only=True)) == 4  # and adds fresh conflict rows


def test_harmonize_numbers_clusters_by_jaccard(svc: MemoryService) -> None:
    for agent, domain in (("x", "a"), ("y", "b")):
        svc.propose_fact(domain=domain, topic="stack", content="the api is written in go", agent_id=agent, now=T)
        svc.propose_fact(domain=domain + "2", topic="stack", content="frontend uses react and vite",
                         agent_id=agent, now=T)
    svc.propose_fact(domain="c", topic="stack", content="the api is written in rust", agent_id="z", now=T)
    assert svc.harmonize_memory(now=T + 1).beliefs == 2
    beliefs = svc.ws.layout.beliefs
    with svc.ws.read() as conn:
        rows = dict(conn.execute(select(beliefs.c.content, beliefs.c.cluster_id)).all())
    # "…written in go" and "…written in rust" share 5 of 7 tokens: one cluster; react/vite another
    assert rows == {"the api is written in go": "cluster-0", "frontend uses react and vite": "cluster-1"}
