"""``memory-desk demo create``: the demo workspace has what it promises, deterministically."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select

from memorydesk.browse.grants import matrix_json, read_matrix
from memorydesk.cli import main
from memorydesk.demo.builder import build_demo
from memorydesk.memory import policies
from memorydesk.store import integrity, open_workspace

NOW = 1_767_225_600  # 2026-01-01T00:00:00Z: a fixed reference time keeps builds comparable
DAY = 86_400
HEBREW = re.compile("[\u0590-\u05ff]")
GERMAN = re.compile("[äöüßÄÖÜ]")


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    """One small build on the service path (one transaction per fact), embeddings off."""
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    summary = build_demo(path, facts=400, seed=7, now=NOW, embed=0, bulk=False)
    assert summary.path_used == "service"
    return path


def snapshot(path: Path) -> dict[str, set]:
    """Content of the memory tables, ids included (they are seeded too)."""
    with open_workspace(path, read_only=True) as ws:
        L = ws.layout
        with ws.read() as conn:
            return {
                "facts": set(conn.execute(select(L.facts.c.id, L.facts.c.domain, L.facts.c.topic, L.facts.c.content,
                                                 L.facts.c.superseded_by, L.facts.c.confidence,
                                                 L.facts.c.mention_count, L.facts.c.created_at)).all()),
                "conflicts": set(conn.execute(select(L.conflicts.c.fact_a_id, L.conflicts.c.fact_b_id,
                                                     L.conflicts.c.conflict_type, L.conflicts.c.resolution)).all()),
                "edges": set(conn.execute(select(L.edges.c.source_fact_id, L.edges.c.target_fact_id,
                                                 L.edges.c.weight)).all()),
                "policies": set(conn.execute(select(L.policies.c.domain, L.policies.c.rule,
                                                    L.policies.c.active)).all()),
                "grants": set(conn.execute(select(L.grants.c.agent_role, L.grants.c.memory_domain,
                                                  L.grants.c.permission)).all()),
            }


def test_same_seed_gives_the_same_workspace_and_another_seed_does_not(tmp_path: Path) -> None:
    a = build_demo(tmp_path / "a.db", facts=300, seed=11, now=NOW, embed=0, bulk=True)
    b = build_demo(tmp_path / "b.db", facts=300, seed=11, now=NOW, embed=0, bulk=True)
    c = build_demo(tmp_path / "c.db", facts=300, seed=12, now=NOW, embed=0, bulk=True)
    assert a.path_used == "bulk"
    first, second, other = snapshot(a.path), snapshot(b.path), snapshot(c.path)
    assert first == second
    topic_content = lambda snap: {(f.topic, f.content, f.superseded_by is None) for f in snap["facts"]}  # noqa: E731
    assert topic_content(first) == topic_content(second)
    assert topic_content(first) != topic_content(other)


def test_both_paths_pass_the_integrity_check(demo_db: Path, tmp_path: Path) -> None:
    bulk = build_demo(tmp_path / "bulk.db", facts=300, seed=3, now=NOW, embed=0, bulk=True).path
    for path in (demo_db, bulk):
        with open_workspace(path, read_only=True) as ws:
            report = integrity.check(ws)
        assert report.problems == [], (path.name, report.summary)


def test_the_fact_count_is_about_what_was_asked(demo_db: Path) -> None:
    with open_workspace(demo_db, read_only=True) as ws, ws.read() as conn:
        n = len(conn.execute(select(ws.layout.facts.c.id)).all())
    assert 0.95 * 400 <= n <= 1.05 * 400


def test_agents_have_the_products_roles(demo_db: Path) -> None:
    with open_workspace(demo_db, read_only=True) as ws, ws.read() as conn:
        agents = conn.execute(select(ws.layout.agents)).all()
    roles = {a.role for a in agents}
    assert {"coder", "reviewer", "qa", "devops", "pm", "designer"} <= roles
    assert None in roles  # an agent created in the app has no role
    assert all(a.name and a.title for a in agents)
    assert any(a.reports_to for a in agents)


def test_facts_are_varied_and_spread_over_four_months(demo_db: Path) -> None:
    with open_workspace(demo_db, read_only=True) as ws, ws.read() as conn:
        facts = conn.execute(select(ws.layout.facts)).all()
        domains = {r.name for r in conn.execute(select(ws.layout.domains.c.name))}
    assert any(d.startswith("repo:acme-web/") for d in domains)
    assert sum(d.startswith("repo:") for d in {f.domain for f in facts}) >= 4
    assert len({f.memory_type for f in facts}) >= 8
    assert {f.veracity for f in facts} == {"stated", "inferred", "tool", "imported", "unknown"}
    assert len({round(f.confidence, 2) for f in facts}) >= 5
    created = [f.created_at for f in facts]
    assert max(created) <= NOW and max(created) - min(created) >= 100 * DAY
    active = [f for f in facts if f.superseded_by is None]
    assert any(f.valid_until is not None and f.valid_until < NOW for f in active)
    assert any(f.valid_until is not None and f.valid_until > NOW for f in active)
    assert any(HEBREW.search(f.content) for f in facts)
    assert any(GERMAN.search(f.content) for f in facts)
    assert any(f.mention_count > 1 for f in facts)  # re-mentions
    assert any(f.temporal_tags for f in facts)


def test_contradictions_are_resolved_and_chains_resolve(demo_db: Path) -> None:
    with open_workspace(demo_db, read_only=True) as ws, ws.read() as conn:
        facts = {f.id: f for f in conn.execute(select(ws.layout.facts))}
        conflicts = conn.execute(select(ws.layout.conflicts)).all()
    resolved = [c for c in conflicts if c.conflict_type == "contradiction"]
    assert resolved
    for c in resolved:
        assert c.resolution == "superseded" and c.winning_fact_id == c.fact_b_id and c.resolved_at
        assert facts[c.fact_a_id].superseded_by == c.fact_b_id
        assert facts[c.fact_a_id].topic == facts[c.fact_b_id].topic
    # every pointer names a fact, and the deploy window went through three versions
    assert all(f.superseded_by in facts for f in facts.values() if f.superseded_by)
    chain = sorted((f for f in facts.values() if f.topic == "deploy-window"
                    and f.domain == "repo:acme-infra/deployments"), key=lambda f: f.created_at)
    assert len(chain) == 3
    assert chain[0].superseded_by == chain[1].id and chain[1].superseded_by == chain[2].id
    assert chain[2].superseded_by is None
    # a newer but weaker fact loses against the older one
    node = sorted((f for f in facts.values() if f.topic == "node-version"), key=lambda f: f.created_at)
    assert node[1].superseded_by == node[0].id and node[0].superseded_by is None


def test_harmonize_left_open_cross_agent_conflicts_and_a_belief(demo_db: Path) -> None:
    with open_workspace(demo_db, read_only=True) as ws, ws.read() as conn:
        facts = {f.id: f for f in conn.execute(select(ws.layout.facts))}
        cross = conn.execute(select(ws.layout.conflicts).where(
            ws.layout.conflicts.c.conflict_type == "cross_agent")).all()
        beliefs = conn.execute(select(ws.layout.beliefs)).all()
    assert cross and all(c.resolution is None and c.winning_fact_id is None for c in cross)
    for c in cross:
        a, b = facts[c.fact_a_id], facts[c.fact_b_id]
        assert a.topic == b.topic and a.authored_by_agent_id != b.authored_by_agent_id
    assert any(c.fact_a_id in facts and facts[c.fact_a_id].topic == "pr-size" for c in cross)
    assert beliefs


def test_policies_grants_and_their_gaps(demo_db: Path) -> None:
    with open_workspace(demo_db, read_only=True) as ws, ws.read() as conn:
        rows = conn.execute(select(ws.layout.policies)).all()
        grants = {(g.agent_role, g.memory_domain): g.permission for g in conn.execute(select(ws.layout.grants))}
        assert policies.resolve_permission(ws, conn, "designer", "oncall").value == "read"  # no row: fail-open
        assert policies.resolve_permission(ws, conn, "designer", "security").value == "none"
    assert {p.active for p in rows} == {0, 1}
    assert any(p.rule.startswith("# Auto-promoted") and "\n- " in p.rule for p in rows)
    assert any(p.source_fact_ids != "[]" for p in rows)
    assert ("designer", "oncall") not in grants and ("reviewer", "oncall") in grants
    assert grants[("designer", "security")] == "none"
    assert "read" in grants.values() and "write" in grants.values()


def test_the_grants_tab_has_every_source_kind_to_show(demo_db: Path) -> None:
    """Fail-open gaps, a repo-scoped domain falling back to its bare name, and rows carried over
    from an older build: an unknown role alone, two rows for one cell, a domain only a grant names."""
    with open_workspace(demo_db, read_only=True) as ws:
        cells = {d["domain"]: d["cells"] for d in matrix_json(read_matrix(ws))["domains"]}
    assert cells["oncall"]["designer"]["source"] == "fail_open"
    assert cells["repo:acme-api/architecture"]["pm"]["source"] == "bare_name"
    assert cells["runbooks"]["devops"] == {"permission": "write", "source": "exact"}
    assert cells["runbooks"]["ceo"]["source"] == "fail_open"
    assert cells["working-memory"]["general"] == {"permission": "write", "source": "unknown_value"}  # 'intern'
    assert cells["design-system"]["designer"]["source"] == "ambiguous"  # 'Designer' and 'designer'
    assert cells["architecture"]["general"]["source"] == "ambiguous"  # 'engineer' and 'general'


def test_notes_hot_items_and_consolidation(demo_db: Path) -> None:
    with open_workspace(demo_db, read_only=True) as ws, ws.read() as conn:
        L = ws.layout
        notes = conn.execute(select(L.notes)).all()
        items = conn.execute(select(L.items)).all()
        log = conn.execute(select(L.consolidation_log)).all()
        consolidated = conn.execute(select(L.facts).where(L.facts.c.domain == "working-memory")).all()
    assert len(notes) >= 6 and any("\n- " in n.content for n in notes)
    assert items  # remembered after the last pass: still hot
    assert len(log) >= 3 and any(r.agent_id is None for r in log) and sum(r.evicted for r in log) >= 1
    assert sum(r.facts_created for r in log) == len(consolidated) > 0
    assert all(f.source_observation_ids != "[]" and f.topic.startswith(("run-", "agent ")) for f in consolidated)


def test_episodic_edges(demo_db: Path) -> None:
    with open_workspace(demo_db, read_only=True) as ws, ws.read() as conn:
        edges = conn.execute(select(ws.layout.edges)).all()
        ids = {r.id for r in conn.execute(select(ws.layout.facts.c.id))}
    assert len(edges) > 100
    assert all(e.edge_type == "related_to" and 0.35 <= e.weight <= 1.0 for e in edges)
    assert all(e.source_fact_id in ids and e.target_fact_id in ids for e in edges)


def test_cli_refuses_an_existing_file(tmp_path: Path, capsys) -> None:
    target = tmp_path / "taken.db"
    target.write_bytes(b"keep me")
    assert main(["demo", "create", str(target), "--facts", "300"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert target.read_bytes() == b"keep me"


def test_cli_rejects_a_bad_count_and_writes_nothing(tmp_path: Path, capsys) -> None:
    target = tmp_path / "new.db"
    assert main(["demo", "create", str(target), "--facts", "5"]) == 2
    assert "--facts" in capsys.readouterr().err
    assert not target.exists() and list(tmp_path.iterdir()) == []


def test_cli_builds_and_replaces_with_force(tmp_path: Path, capsys) -> None:
    target = tmp_path / "demo.db"
    target.write_bytes(b"old")
    args = ["demo", "create", str(target), "--facts", "300", "--embed", "0", "--now", "2026-01-01T00:00:00Z",
            "--force", "--quiet", "--bulk", "on"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "facts" in out and "conflicts" in out and "NULL" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.db"]
    with open_workspace(target, read_only=True) as ws:
        assert integrity.check(ws).problems == []


@pytest.mark.parametrize("bulk", [False, True])
def test_the_first_facts_get_real_embeddings_and_the_index_agrees(tmp_path: Path, bulk: bool) -> None:
    from memorydesk.embedding.embedder import embedder_status

    ok, reason = embedder_status()
    if not ok:
        pytest.skip(reason)
    summary = build_demo(tmp_path / "vec.db", facts=300, seed=5, now=NOW, embed=60, bulk=bulk)
    assert 40 <= summary.embedded <= 60 < summary.counts["facts"]
    assert "first 60" in summary.embed_note
    with open_workspace(summary.path, read_only=True) as ws:
        assert integrity.check(ws).problems == []
        with ws.read() as conn:
            blobs = conn.execute(select(ws.layout.facts.c.embedding, ws.layout.facts.c.binary_embedding).where(
                ws.layout.facts.c.embedding.is_not(None))).all()
    assert all(len(e) == 1536 and len(b) == 48 for e, b in blobs)
