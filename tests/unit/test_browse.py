"""browse.facts and browse.detail: the desk's read queries (no Qt)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from memorydesk.browse import detail as browse_detail
from memorydesk.browse import facts as browse
from memorydesk.browse.facts import FactQuery
from memorydesk.store import open_workspace

_spec = importlib.util.spec_from_file_location("desk_sample", Path(__file__).parents[1] / "gui" / "desk_sample.py")
assert _spec is not None and _spec.loader is not None
sample = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("desk_sample", sample)
_spec.loader.exec_module(sample)
fid = sample.fid


@pytest.fixture
def ws(tmp_path):
    path = sample.build(tmp_path / "ws.db")
    workspace = open_workspace(path, read_only=True)
    yield workspace
    workspace.close()


def topics(ws, q: FactQuery) -> list[str]:
    return [r.topic for r in browse.fact_rows(ws, q, 0, 1000)]


def test_states(ws) -> None:
    assert browse.count_facts(ws) == 30
    assert browse.count_facts(ws, FactQuery(state="active")) == 25  # not superseded, not expired
    assert topics(ws, FactQuery(state="deleted")) == ["deleted one"]
    assert sorted(topics(ws, FactQuery(state="superseded"))) == ["cleanup", "deploy day", "deploy day"]
    assert topics(ws, FactQuery(state="expired")) == ["expired one"]
    with pytest.raises(ValueError):
        browse.count_facts(ws, FactQuery(state="gone"))


def test_state_of_a_row() -> None:
    assert browse.fact_state(None, None) == "active"
    assert browse.fact_state(None, 10, now=20) == "expired"
    assert browse.fact_state(None, 30, now=20) == "active"
    assert browse.fact_state("human:deleted", None) == "deleted"
    assert browse.fact_state("system:cleanup", None) == "superseded"


def test_domain_filters_and_repo_groups(ws) -> None:
    assert topics(ws, FactQuery(domain="product")) == ["הגדרות"]
    assert sorted(topics(ws, FactQuery(domain="repo:acme-web/*"))) == ["button colour", "terraform"]
    assert sorted(topics(ws, FactQuery(domain="*/frontend"))) == ["button colour", "lint"]
    items = browse.domains(ws)
    assert {d.name: d.count for d in items}["codebase"] == 26
    groups = browse.repo_groups(items)
    assert sorted(groups) == ["acme-web"]
    assert sorted(d.bare for d in groups["acme-web"]) == ["frontend", "infra"]


def test_enum_filters_read_like_the_product(ws) -> None:
    assert topics(ws, FactQuery(memory_type="event")) == ["cleanup"]  # stored as "EVENT"
    assert "cleanup" in topics(ws, FactQuery(veracity="stated"))  # "weird" reads as stated
    assert "cleanup" not in topics(ws, FactQuery(memory_type="fact"))


def test_confidence_created_embedding_and_text(ws) -> None:
    assert set(topics(ws, FactQuery(min_confidence=0.85))) == {"deploy day"}
    assert topics(ws, FactQuery(max_confidence=0.45)) == ["deploy day"]  # 0.4
    assert topics(ws, FactQuery(has_embedding=True)) == ["deploy day"]
    assert browse.count_facts(ws, FactQuery(has_embedding=False)) == 29
    now = sample.NOW
    assert topics(ws, FactQuery(created_from=now - 2 * 3600 - 1)) == ["topic 1", "topic 2"]
    assert browse.count_facts(ws, FactQuery(created_to=now - 29 * 3600)) == 2
    assert topics(ws, FactQuery(text="WEDNESDAY")) == ["deploy day"]
    assert topics(ws, FactQuery(text="שמירת")) == ["הגדרות"]
    assert topics(ws, FactQuery(text="100%_")) == []
    assert sorted(topics(ws, FactQuery(ids=(fid(1), fid(2), "missing")))) == ["topic 1", "topic 2"]
    assert topics(ws, FactQuery(ids=())) == []


def test_sorting_is_total_and_stable(ws) -> None:
    q = FactQuery(sort="confidence", descending=False)
    rows = browse.fact_rows(ws, q, 0, 100)
    assert [r.confidence for r in rows] == sorted(r.confidence for r in rows)
    for column in browse.SORTABLE:
        for descending in (False, True):
            q = FactQuery(sort=column, descending=descending)
            ids = browse.fact_ids(ws, q, 0, 100)
            assert sorted(ids) == sorted(set(ids)) and len(ids) == 30
            assert browse.fact_ids(ws, q, 10, 5) == ids[10:15]  # windows agree with the whole
            assert [browse.position_of(ws, q, i) for i in ids] == list(range(30))
    with pytest.raises(ValueError):
        browse.fact_ids(ws, FactQuery(sort="embedding"))


def test_rank_order_is_the_order_of_the_ids(ws) -> None:
    """A search's hits listed in its own order (the product's rank), filters still applied."""
    wanted = browse.fact_ids(ws, FactQuery(), 0, 30)[::-3]  # some facts, in an order of their own
    q = FactQuery(ids=tuple(wanted), sort=browse.RANK, descending=False)
    assert browse.fact_ids(ws, q, 0, 100) == wanted
    assert [browse.position_of(ws, q, i) for i in wanted] == list(range(len(wanted)))
    assert browse.fact_ids(ws, q.with_(descending=True), 0, 100) == wanted[::-1]
    assert [browse.rows_for_keys(ws, [k])[0].id for k in browse.fact_keys(ws, q)] == wanted


def test_position_of_hidden_fact_is_none(ws) -> None:
    assert browse.position_of(ws, FactQuery(state="active"), fid(25)) is None
    assert browse.position_of(ws, FactQuery(), "no-such-id") is None


def test_keys_and_rows_for_keys(ws) -> None:
    q = FactQuery(state="active", sort="topic", descending=False)
    keys = browse.fact_keys(ws, q)
    assert len(keys) == 25 and keys.itemsize == 8
    rows = browse.rows_for_keys(ws, keys[3:8])
    assert [r.id for r in rows] == browse.fact_ids(ws, q, 3, 5)
    assert browse.rows_for_keys(ws, [keys[0], 10**9])[1] is None
    assert browse.rows_for_keys(ws, []) == []
    by_id = browse.rows_for_ids(ws, [fid(2), "gone", fid(1)])
    assert [r.topic for r in by_id] == ["topic 2", "topic 1"]
    assert len(browse.fact_keys(ws, q.with_(text="deploy", state="all"))) == 3


def test_fact_detail_neighbourhood(ws) -> None:
    d = browse_detail.fact_detail(ws, fid(29))
    assert d is not None and d.state == "superseded"
    assert [x.id for x in d.newer] == [fid(30)]
    assert [x.id for x in d.older] == [fid(28)]
    assert d.conflicts[0].role == "loser" and d.conflicts[0].other_id == fid(30)
    top = browse_detail.fact_detail(ws, fid(30))
    assert [x.id for x in top.older] == [fid(29), fid(28)]
    assert top.newer == ()
    assert top.embedding_bytes == 1536 and not hasattr(top, "embedding")
    assert {(e.direction, e.other_id) for e in top.edges} == {("out", fid(1)), ("in", fid(2))}
    assert top.edges[0].other_topic == "topic 1"  # heaviest first
    cleanup = browse_detail.fact_detail(ws, fid(27))
    assert cleanup.newer == (browse_detail.ChainStep("system:cleanup", None, "sentinel"),)
    assert browse_detail.fact_detail(ws, "nope") is None


def test_supersession_cycle_terminates(tmp_path) -> None:
    facts = [sample.fact(1, superseded_by=fid(2)), sample.fact(2, superseded_by=fid(1))]
    path = sample.build(tmp_path / "cycle.db", facts)
    with open_workspace(path, read_only=True) as ws:
        d = browse_detail.fact_detail(ws, fid(1))
        assert [x.id for x in d.newer] == [fid(2)]
        assert d.older == ()  # fid(2) is already on the chain


def test_policies_agents_counts(ws) -> None:
    pol = browse_detail.policies(ws)
    assert [p.rule for p in pol] == ["Never log secrets.\nEver.", "Always run the tests.", "Use Jenkins."]
    assert pol[0].source_fact_ids == () and pol[0].active is True
    assert browse_detail.policy(ws, fid(802)).active is False
    assert [a.name for a in browse_detail.agents(ws)] == ["coder-1", "reviewer-1"]
    assert browse.counts(ws) == {"facts": 30, "active_facts": 25, "policies": 3, "active_policies": 2}


def test_query_helpers() -> None:
    q = FactQuery(state="active")
    assert q.is_filtered and not FactQuery(sort="topic").is_filtered
    assert q.with_(text="x").text == "x" and q.text == ""


def test_natural_order_is_newest_written_first(ws) -> None:
    q = FactQuery()
    assert q.sort == browse.NATURAL and q.pages_by_key
    assert not q.with_(sort="created_at").pages_by_key
    keys = browse.fact_keys(ws, q)
    assert list(keys) == sorted(keys, reverse=True)
    first = browse.fact_rows(ws, q, 0, 5)
    assert [r.key for r in first] == list(keys[:5])
    assert [r.topic for r in first][:2] == ["topic 1", "topic 2"]  # the sample is written oldest first
    oldest = browse.fact_rows(ws, q.with_(descending=False), 0, 1)
    assert oldest[0].key == keys[-1]
    ids = browse.fact_ids(ws, q, 0, 100)
    assert [browse.position_of(ws, q, i) for i in ids] == list(range(30))


def test_rows_say_whether_keyword_search_can_reach_them(ws) -> None:
    rows = {r.topic: r for r in browse.fact_rows(ws, FactQuery(), 0, 100)}
    assert rows["הגדרות"].keyword_reachable is False  # Hebrew only: no [a-z0-9] term
    assert rows["topic 1"].keyword_reachable is True
    assert browse_detail.fact_detail(ws, fid(24)).keyword_reachable is False
    assert browse_detail.fact_detail(ws, fid(1)).keyword_reachable is True


def test_fact_detail_reads_both_product_layouts_alike(product_db, newer_product_db) -> None:
    """The schema-13 layout (``_table`` names) and the newer one give the same typed record."""
    records = []
    for path in (product_db, newer_product_db):
        with open_workspace(path, read_only=True) as ws:
            records.append(browse_detail.fact_detail(ws, "f-01"))
    old, new = records
    assert isinstance(old, browse_detail.FactRecord) and old.id == "f-01" and old.state == "active"
    assert old.topic and old.content and isinstance(old.source_observation_ids, tuple)
    assert new == old
