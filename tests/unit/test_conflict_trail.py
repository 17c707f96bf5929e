"""The trail of one conflict: provenance, the decision recomputed (and when it no longer
matches), chains both ways with who did what, related conflicts; and its export as
Markdown and JSON, with a content-free variant that holds no memory text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fixtures.conflicts import ONCALL, build
from memorydesk.browse.conflicts import bursts as browse_bursts
from memorydesk.browse.conflicts import export
from memorydesk.browse.conflicts.listing import ConflictQuery, iter_lines
from memorydesk.browse.conflicts.trail import conflict_trail
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace


@pytest.fixture
def setup(tmp_path: Path):
    path = tmp_path / "ws.db"
    ids = build(path)
    ws = open_workspace(path)
    yield ws, ids
    ws.close()


def line_of(ws, a: str, b: str):
    return next(line for line in iter_lines(ws, ConflictQuery()) if {line.fact_a, line.fact_b} == {a, b})


def test_trail_of_a_contradiction(setup) -> None:
    ws, ids = setup
    v1, v2, v3 = ids["chain"]
    t = conflict_trail(ws, line_of(ws, v1, v2).id)
    a, b = t.a, t.b
    assert (a.id, b.id) == (v1, v2) and a.state == "superseded" and b.state == "superseded"
    assert a.agent_name == "ada" and a.role == "coder" and a.weight == 1.0 and a.confidence == 0.6
    assert a.embedding_bytes is None and a.mention_count == 1 and a.source_observation_ids == ()
    d = t.decision
    assert d.rule_winner == v2 == d.recorded_winner and d.matches is True and not d.tie
    assert (d.a.strength, d.b.strength) == (0.6, 0.8)
    # v1 → v2 → v3 forward, each step by the agent whose write contradicted
    newer = t.chain_a.newer
    assert [n.id for n in newer] == [v1, v2, v3] and newer[-1].state == "active"
    assert [n.who.kind for n in newer[:2]] == ["agent", "agent"] and newer[-1].who is None
    assert newer[0].who.name == "ada" and newer[0].next_id == v2
    assert [o.id for o in t.chain_b.older] == [v1]
    assert [r.why for r in t.related] == [("fact B",)]  # v2 → v3, naming v2
    assert t.conflict.state == "superseded" and t.history == () and t.reviews == ()


def test_the_recorded_winner_can_differ_from_the_rule_today(setup) -> None:
    ws, ids = setup
    _v1, v2, v3 = ids["chain"]
    with ws.write() as conn:  # the product's edit dialog changes confidence in place
        f = ws.layout.facts
        conn.execute(f.update().where(f.c.id == v3).values(confidence=0.1, updated_at=f.c.updated_at + 3600))
    d = conflict_trail(ws, line_of(ws, v2, v3).id).to_json()["decision"]
    assert d["recorded_winner"] == v3 and d["rule_winner"] == v2 and d["matches"] is False
    assert "B changed after the decision" in d["note"]


def edit_then_delete(ws, fact_id: str) -> tuple[Reviewer, str]:
    """Maya edits the fact (a new version) and deletes that version: (her reviewer, its id)."""
    rv = Reviewer(ws, "maya", embedder=False)
    edited = rv.edit_fact(fact_id, domain="ops", topic="staging", content="staging is us-east-2", confidence=1.0,
                          reason="moved").ids[1]
    rv.delete_facts([edited], reason="staging retired")
    return rv, edited


def test_people_sentinels_and_the_desk_history_in_the_chain(setup) -> None:
    ws, ids = setup
    v1, v2, v3 = ids["chain"]
    rv, edited = edit_then_delete(ws, v3)
    t = conflict_trail(ws, line_of(ws, v2, v3).id).to_json()
    steps = [(n["id"], n.get("next", {}).get("id"), n.get("next", {}).get("who", {}))
             for n in t["chains"]["b"]["newer"]]
    assert steps[0][:2] == (v3, edited) and steps[0][2]["kind"] == "person" and steps[0][2]["name"] == "maya"
    assert steps[0][2]["reason"] == "moved"
    assert steps[1][:2] == (edited, "human:deleted") and steps[1][2]["name"] == "maya"
    assert t["facts"]["b"]["state"] == "superseded"
    MemoryService(ws, embedder=False).supersede_fact(v1, "system:cleanup")
    older = conflict_trail(ws, line_of(ws, v1, v2).id).to_json()["chains"]["a"]["newer"]
    assert older[0]["next"] == {**older[0]["next"], "id": "system:cleanup"}
    assert older[0]["next"]["who"] == {"kind": "system", "name": "system:cleanup"}
    assert older[1]["state"] == "sentinel"
    rv.keep_both(line_of(ws, *ids["pair"]).id, reason="both hold")
    pair = conflict_trail(ws, line_of(ws, *ids["pair"]).id).to_json()
    assert pair["conflict"]["state"] == "reviewed" and len(pair["conflict"]["rows"]) == 3
    assert [(h["action"], h["actor"], h["reason"]) for h in pair["history"]] == [("keep_both", "maya", "both hold")]
    assert pair["decision"]["recorded_winner"] is None and pair["decision"]["rule_winner"] == ids["pair"][0]
    assert pair["decision"]["note"].endswith("its rule would keep A")


def test_a_dangling_row_and_a_purged_fact(sample_db: Path, setup) -> None:
    with open_workspace(sample_db, read_only=True) as sample:
        dangling = [line for line in iter_lines(sample, ConflictQuery(state="dangling"))]
        t = conflict_trail(sample, dangling[0].id).to_json()
    missing = [f for f in t["facts"].values() if not f["exists"]]
    assert missing and missing[0]["state"] == "missing"
    assert t["decision"]["rule_winner"] is None and "no longer exists" in t["decision"]["note"]
    ws, ids = setup
    keep = ids["three_losers"][0]
    rv = Reviewer(ws, "maya", embedder=False)
    rv.purge_facts([ids["three_winner"]], reason="leak")  # removes its conflicts too; the product may not
    with ws.write() as conn:
        conn.execute(ws.layout.conflicts.insert().values(
            id="late-row", workspace_id=ws.workspace_id, fact_a_id=keep, fact_b_id=ids["three_winner"],
            conflict_type="contradiction", resolution="superseded", winning_fact_id=ids["three_winner"],
            resolved_at=1, created_at=1))
    t = conflict_trail(ws, "late-row")
    assert t.b.state == "purged" and t.b.purged is not None and t.b.purged.actor == "maya" and not t.b.exists
    assert conflict_trail(ws, "no-such-row") is None


SECRETS = ("Keep pull requests under 400 changed lines.", "Large mechanical renames may land as one pull request.",
           "pr-size", "ops", "both hold, said Zoë", "ada", "dara", "Maya Okafor")


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{5,}", text)}


def test_export_round_trips_and_the_content_free_variant_holds_no_text(setup) -> None:
    ws, ids = setup
    a, b = ids["pair"]
    Reviewer(ws, "Maya Okafor", embedder=False).keep_both(line_of(ws, a, b).id, reason="both hold, said Zoë")
    trail = conflict_trail(ws, line_of(ws, a, b).id)
    doc = export.trail_document(trail.to_json(), exported_by="Maya Okafor", now=1_800_000_000)
    assert json.loads(export.to_json(doc)) == json.loads(json.dumps(doc))
    md = export.markdown(doc)
    assert a in md and b in md and "Keep pull requests under 400 changed lines." in md
    assert "- A: confidence 0.9 × weight 1 (stated) = 0.9" in md  # the arithmetic
    assert "- B: confidence 0.75 × weight 0.7 (inferred) = 0.525" in md
    assert "kept_both" not in md and "keep_both by Maya Okafor — both hold, said Zoë" in md

    free = export.content_free(doc)
    text_json, text_md = export.to_json(free), export.markdown(free)
    assert json.loads(text_json)["content_free"] is True
    for out in (text_json, text_md):
        for secret in SECRETS:  # as a whole token: "ada" may well occur inside a hex id
            assert not re.search(rf"(?<![0-9A-Za-z]){re.escape(secret)}(?![0-9A-Za-z])", out), secret
        leaked = words(out) & words(" ".join(SECRETS))
        assert not leaked, leaked
        assert a in out and b in out and trail.conflict.id in out  # ids stay
        assert export.hash_text("Keep pull requests under 400 changed lines.") in out
    assert json.loads(text_json)["decision"]["a"]["strength"] == doc["decision"]["a"]["strength"]


def test_the_typed_trail_exports_the_json_the_dict_reader_did(sample_db: Path, setup) -> None:
    """``Trail.to_json()`` is what the export writes: the same bytes as the dict the reader
    returned before it was typed (kept in fixtures.trail_v1), content-free and as Markdown too,
    for every conflict of a workspace after people, sentinels, a purge, a late row and an
    in-place edit have left their marks — and for a dangling row of another file."""
    from fixtures.trail_v1 import trail_dict

    ws, ids = setup
    v1, v2, v3 = ids["chain"]
    rv, edited = edit_then_delete(ws, v3)
    MemoryService(ws, embedder=False).supersede_fact(v1, "system:cleanup")
    rv.keep_both(line_of(ws, *ids["pair"]).id, reason="both hold")
    rv.purge_facts([ids["three_winner"]], reason="leak")
    with ws.write() as conn:
        conn.execute(ws.layout.conflicts.insert().values(
            id="late-row", workspace_id=ws.workspace_id, fact_a_id=ids["three_losers"][0],
            fact_b_id=ids["three_winner"], conflict_type="contradiction", resolution="superseded",
            winning_fact_id=ids["three_winner"], resolved_at=1, created_at=1))
        f = ws.layout.facts
        conn.execute(f.update().where(f.c.id == v2).values(confidence=0.1, updated_at=f.c.updated_at + 3600))
    with open_workspace(sample_db, read_only=True) as sample:
        dangling = next(iter_lines(sample, ConflictQuery(state="dangling"))).id
        cases = [(sample, dangling, conflict_trail(sample, dangling), trail_dict(sample, dangling))]
    with ws.read() as conn:
        rows = [r[0] for r in conn.exec_driver_sql(f"SELECT id FROM {ws.layout.conflicts.name}")]
    cases += [(ws, cid, conflict_trail(ws, cid), trail_dict(ws, cid)) for cid in rows]
    assert len(cases) > 10 and {c[2].b.state for c in cases} >= {"purged", "active", "superseded"}
    assert any(c[2].restore.possible for c in cases) and any(c[2].decision.matches is False for c in cases)
    for _ws, cid, typed, old in cases:
        docs = [export.trail_document(d, exported_by="maya", now=1_800_000_000) for d in (typed.to_json(), old)]
        for free in (False, True):
            new_doc, old_doc = (export.content_free(d) if free else d for d in docs)
            assert export.to_json(new_doc) == export.to_json(old_doc), cid
            assert export.markdown(new_doc) == export.markdown(old_doc), cid


def test_burst_export(setup) -> None:
    ws, ids = setup
    burst = next(x for x in browse_bursts.bursts(ws) if x.winner == ids["burst_winner"])
    detail = browse_bursts.burst_detail(ws, burst.winner, list(burst.conflict_ids))
    doc = export.burst_document(detail.to_json(), exported_by="maya", now=1_800_000_000)
    md = export.markdown(doc)
    assert md.startswith(f"# Burst: {ids['burst_winner']} displaced 4 facts")
    assert all(x in md for x in ids["burst_losers"])
    free = export.to_json(export.content_free(doc)) + export.markdown(export.content_free(doc))
    for facet in ONCALL:
        assert facet not in free
    assert "oncall" not in free and all(x in free for x in ids["burst_losers"])


def test_the_typed_burst_exports_the_json_the_dict_reader_did(setup) -> None:
    """``BurstDetail.to_json()`` is what the export writes: the same bytes as the dict the reader
    returned before it was typed (kept in fixtures.burst_v1), content-free too, for every burst
    — a row gone and a loser restored and reviewed among them."""
    from fixtures.burst_v1 import burst_dict

    ws, ids = setup
    burst = next(x for x in browse_bursts.bursts(ws) if x.winner == ids["burst_winner"])
    first = burst.conflict_ids[0]
    Reviewer(ws, "maya", embedder=False).review_burst(burst.winner, list(burst.conflict_ids), [first],
                                                       reason="the first was still true")
    cases = [(b.winner, [*b.conflict_ids, "gone-row"]) for b in browse_bursts.bursts(ws)]
    assert len(cases) == 2
    for winner, conflict_ids in cases:
        typed = browse_bursts.burst_detail(ws, winner, conflict_ids)
        assert typed.displaced[-1].exists is False
        assert any(d.reviews for d in typed.displaced) == (winner == burst.winner)
        for free in (False, True):
            docs = [export.burst_document(d, exported_by="maya", now=1_800_000_000)
                    for d in (typed.to_json(), burst_dict(ws, winner, conflict_ids))]
            new, old = (export.content_free(d) if free else d for d in docs)
            assert export.to_json(new) == export.to_json(old)
            assert export.markdown(new) == export.markdown(old)
