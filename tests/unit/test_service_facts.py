"""propose_fact and friends: each rule with its numbers, computed here independently."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from memorydesk.memory.service import MemoryService

T = 1_790_000_000


def fact(svc: MemoryService, fact_id: str):
    facts = svc.ws.layout.facts
    with svc.ws.read() as conn:
        return conn.execute(select(facts).where(facts.c.id == fact_id)).one()


def conflicts(svc: MemoryService):
    with svc.ws.read() as conn:
        return conn.execute(select(svc.ws.layout.conflicts)).all()


@pytest.mark.parametrize("veracity, weight", [("stated", 1.0), ("inferred", 0.7), ("tool", 0.5),
                                              ("imported", 0.6), ("unknown", 0.8), ("gibberish", 1.0)])
def test_remention_bumps_confidence_by_the_veracity_weight(svc: MemoryService, veracity: str, weight: float) -> None:
    first = svc.propose_fact(domain="codebase", topic="build", content="Builds use pnpm", confidence=0.6,
                             veracity=veracity, now=T)
    again = svc.propose_fact(domain="codebase", topic="build", content="  builds USE pnpm ", confidence=0.1,
                             now=T + 60)
    assert again.action == "remention" and again.fact_id == first.fact_id
    row = fact(svc, first.fact_id)
    assert row.confidence == pytest.approx(0.6 + 0.4 * weight * 0.3)
    assert row.mention_count == 2 and row.updated_at == T + 60 and row.created_at == T
    assert row.content == "Builds use pnpm"  # nothing else changes


def test_contradiction_stronger_new_fact_wins(svc: MemoryService) -> None:
    old = svc.propose_fact(domain="codebase", topic="build", content="the app builds with npm scripts today",
                           confidence=0.6, now=T)
    # Jaccard {the app builds with scripts today} / {.. npm, pnpm} = 6/8 = 0.75 ≥ 0.5
    new = svc.propose_fact(domain="codebase", topic="build", content="the app builds with pnpm scripts today",
                           confidence=0.9, now=T + 10)
    assert new.superseded == [old.fact_id]
    assert fact(svc, old.fact_id).superseded_by == new.fact_id
    assert fact(svc, old.fact_id).updated_at == T + 10
    (c,) = conflicts(svc)
    assert (c.fact_a_id, c.fact_b_id, c.winning_fact_id) == (old.fact_id, new.fact_id, new.fact_id)
    assert (c.conflict_type, c.resolution, c.resolved_at) == ("contradiction", "superseded", T + 10)


def test_contradiction_new_fact_can_lose_by_veracity(svc: MemoryService) -> None:
    old = svc.propose_fact(domain="d", topic="t", content="alpha beta gamma delta", confidence=0.6, now=T)
    # 0.8 × tool 0.5 = 0.40 < 0.6 × 1.0: the new fact loses although more confident
    new = svc.propose_fact(domain="d", topic="t", content="alpha beta gamma epsilon", confidence=0.8,
                           veracity="tool", now=T + 1)
    assert new.superseded == [new.fact_id] and not new.survived
    assert fact(svc, new.fact_id).superseded_by == old.fact_id
    assert fact(svc, old.fact_id).superseded_by is None
    assert new.edges == []  # a loser gets no edges


def test_contradiction_tie_goes_to_the_newer(svc: MemoryService) -> None:
    old = svc.propose_fact(domain="d", topic="t", content="alpha beta gamma delta", confidence=0.7,
                           veracity="inferred", now=T)
    # 0.49 = 0.7 × 0.7 ties 0.49 = 0.49 × 1.0
    new = svc.propose_fact(domain="d", topic="t", content="alpha beta gamma omega", confidence=0.49, now=T + 1)
    assert fact(svc, old.fact_id).superseded_by == new.fact_id


def test_below_jaccard_threshold_is_no_contradiction(svc: MemoryService) -> None:
    svc.propose_fact(domain="d", topic="t", content="alpha beta gamma delta", now=T)
    # {alpha beta} shared of {alpha beta gamma delta epsilon zeta}: 2/6 < 0.5
    new = svc.propose_fact(domain="d", topic="t", content="alpha beta epsilon zeta", now=T + 1)
    assert new.superseded == [] and conflicts(svc) == []
    # exactly 0.5 is a contradiction: {a b c} vs {a b d}: shared 2 of 4
    svc.propose_fact(domain="x", topic="y", content="a b c", now=T)
    tie = svc.propose_fact(domain="x", topic="y", content="a b d", now=T + 1)
    assert len(tie.superseded) == 1


def test_other_topic_or_domain_never_contradicts(svc: MemoryService) -> None:
    svc.propose_fact(domain="d", topic="t", content="alpha beta gamma", now=T)
    assert svc.propose_fact(domain="d", topic="u", content="alpha beta gamma", now=T).action == "inserted"
    assert svc.propose_fact(domain="e", topic="t", content="alpha beta gamma", now=T).action == "inserted"
    assert conflicts(svc) == []


def test_survivor_gets_related_edges_heaviest_first(svc: MemoryService) -> None:
    a = svc.propose_fact(domain="d", topic="one", content="the kubernetes cluster upgrade is scheduled", now=T)
    b = svc.propose_fact(domain="d", topic="two", content="Completely unrelated lunch menu", now=T + 1)
    c = svc.propose_fact(domain="d", topic="three", content="the kubernetes cluster upgrade is postponed", now=T + 2)
    edges = svc.ws.layout.edges
    with svc.ws.read() as conn:
        rows = conn.execute(select(edges)).all()
    assert len(c.edges) == 1 and not b.edges
    (edge,) = rows
    # significant tokens (≥3 letters, no stopwords) {kubernetes cluster upgrade scheduled|postponed}:
    # 3 shared of 5; no capitalised entities, so the lexical score decides
    assert (edge.source_fact_id, edge.target_fact_id, edge.edge_type) == (c.fact_id, a.fact_id, "related_to")
    assert edge.weight == pytest.approx(3 / 5)
    d = svc.propose_fact(domain="d", topic="four", content="talk to Dana Scully about the Kubernetes Cluster",
                         now=T + 3)
    e = svc.propose_fact(domain="d", topic="five", content="releases are owned by Dana Scully", now=T + 4)
    assert len(d.edges) == 0 and len(e.edges) == 1
    with svc.ws.read() as conn:  # entity overlap {dana scully} / max(2, 1) beats lexical 2/7
        weight = conn.execute(select(edges.c.weight).where(edges.c.source_fact_id == e.fact_id)).scalar()
    assert weight == pytest.approx(0.5)


def test_fact_domain_seeds_write_grants_for_every_role(svc: MemoryService) -> None:
    svc.propose_fact(domain="Release Notes", topic="t", content="x y z", role="pm", now=T)
    grants = svc.ws.layout.grants
    with svc.ws.read() as conn:
        rows = conn.execute(select(grants.c.agent_role, grants.c.permission)
                            .where(grants.c.memory_domain == "release-notes")).all()
    assert sorted(rows) == sorted((r, "write") for r in
                                  ("ceo", "coder", "reviewer", "qa", "designer", "security", "devops", "pm",
                                   "general"))


def test_supersede_fact_accepts_any_target(svc: MemoryService) -> None:
    f = svc.propose_fact(domain="d", topic="t", content="x", now=T)
    assert svc.supersede_fact(f.fact_id, "system:harvest")
    assert fact(svc, f.fact_id).superseded_by == "system:harvest"
    assert not svc.supersede_fact("no-such-fact", "system:cleanup")
