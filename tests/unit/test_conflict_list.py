"""The conflict list: folding of repeated cross-agent rows, filters, dangling rows shown,
the fast first window equal to the head of the whole list, and bursts found."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixtures.conflicts import T0, build
from memorydesk.browse.conflicts import bursts as browse_bursts
from memorydesk.browse.conflicts.listing import (
    ConflictQuery,
    first_lines,
    iter_lines,
    line_key_of,
    line_keys,
    lines_for_keys,
)
from memorydesk.store import open_workspace


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict]:
    path = tmp_path_factory.mktemp("conflicts") / "ws.db"
    return path, build(path)


@pytest.fixture
def ro(built):
    with open_workspace(built[0], read_only=True) as ws:
        yield ws


def ids_of(ws, query: ConflictQuery) -> list[tuple[str, str]]:
    return [(line.fact_a, line.fact_b) for line in iter_lines(ws, query)]


def test_repeated_cross_agent_rows_fold_into_one_line_with_count_and_times(built, ro) -> None:
    _path, ids = built
    lines = list(iter_lines(ro, ConflictQuery(type="cross_agent")))
    assert len(lines) == 2
    pr = next(line for line in lines if {line.fact_a, line.fact_b} == set(ids["pair"]))
    assert pr.count == 3 and len(set(pr.ids)) == 3
    assert (pr.first_at, pr.last_at) == (T0 + 5_000, T0 + 5_200)
    assert pr.state == "open" and pr.recorded_winner is None
    assert pr.rule_winner == ids["pair"][0]  # 0.9 stated beats 0.75 inferred
    with ro.read() as conn:
        rows = conn.execute(ro.layout.conflicts.select()).all()
    assert sum(line.count for line in iter_lines(ro, ConflictQuery())) == len(rows)  # every row, once


def test_a_pair_written_in_the_other_order_folds_too(built, tmp_path) -> None:
    copy = tmp_path / "copy.db"
    shutil.copyfile(built[0], copy)
    a, b = built[1]["pair"]
    with open_workspace(copy) as ws, ws.write() as conn:
        conn.execute(ws.layout.conflicts.insert().values(
            id="reversed-row", workspace_id=ws.workspace_id, fact_a_id=b, fact_b_id=a, conflict_type="cross_agent",
            created_at=T0 + 9_000))
    with open_workspace(copy, read_only=True) as ws:
        (pr,) = [line for line in iter_lines(ws, ConflictQuery(type="cross_agent"))
                 if {line.fact_a, line.fact_b} == {a, b}]
        assert pr.count == 4 and pr.ids[0] == "reversed-row" and pr.last_at == T0 + 9_000
        assert line_key_of(ws, pr.ids[-1]) == pr.key  # any row of the pair finds the line


def test_the_first_window_is_the_head_of_the_whole_list(ro) -> None:
    whole = line_keys(ro, ConflictQuery())
    assert whole.rows == sum(line.count for line in lines_for_keys(ro, whole.keys))
    for limit in (1, 3, 5, 50):
        assert [line.key for line in first_lines(ro, ConflictQuery(), limit)] == list(whole.keys[:limit])
    keys = list(whole.keys)
    assert keys == sorted(keys, reverse=True)  # newest first


def test_filters(built, ro) -> None:
    _path, ids = built
    everything = ids_of(ro, ConflictQuery())
    assert len(everything) == 2 + 4 + 6 + 4 + 3 + 2
    assert len(ids_of(ro, ConflictQuery(type="contradiction"))) == len(everything) - 2
    assert len(ids_of(ro, ConflictQuery(state="open"))) == 2
    assert len(ids_of(ro, ConflictQuery(state="resolved"))) == len(everything) - 2
    assert ids_of(ro, ConflictQuery(state="reviewed")) == [] and ids_of(ro, ConflictQuery(state="dangling")) == []
    assert set(ids_of(ro, ConflictQuery(fact=ids["burst_winner"]))) == {(x, ids["burst_winner"])
                                                                           for x in ids["burst_losers"]}
    assert len(ids_of(ro, ConflictQuery(text="ESCALATION after"))) == 4  # case-insensitive, either fact
    assert len(ids_of(ro, ConflictQuery(text="pull request"))) == 1
    agents = {name: aid for aid, name in _agents(ro).items()}
    assert set(ids_of(ro, ConflictQuery(agent=agents["chen"]))) == {(x, ids["burst_winner"])
                                                                       for x in ids["burst_losers"]}
    assert len(ids_of(ro, ConflictQuery(agent=agents["dara"]))) == 2  # both open pairs
    assert len(ids_of(ro, ConflictQuery(domain="ops"))) == len(everything)
    assert ids_of(ro, ConflictQuery(domain="elsewhere")) == []
    window = ids_of(ro, ConflictQuery(since=T0 + 1_000, until=T0 + 1_999))
    assert len(window) == 6  # the deploy rule's wins
    assert ids_of(ro, ConflictQuery(since=T0 + 5_150, type="cross_agent")) != []  # the pairs' last pass
    with pytest.raises(ValueError, match="unknown state"):
        ids_of(ro, ConflictQuery(state="nonsense"))


def _agents(ws) -> dict[str, str]:
    from memorydesk.browse.conflicts.listing import agent_names

    with ws.read() as conn:
        return agent_names(ws, conn)


def test_dangling_rows_of_the_shared_sample_are_listed_and_marked(sample_db: Path, expected: dict) -> None:
    with open_workspace(sample_db, read_only=True) as ws:
        lines = list(iter_lines(ws, ConflictQuery()))
        dangling = [line for line in lines if line.dangling]
        assert sum(line.count for line in lines) == expected["counts"]["conflicts_total"]
        assert len(dangling) == expected["counts"]["conflicts_referencing_missing_fact"] == 3
        assert {line.key for line in iter_lines(ws, ConflictQuery(state="dangling"))} == {d.key for d in dangling}
        for line in dangling:
            missing = [f for f in (line.a, line.b) if not f.exists]
            assert missing and all(f.state == "missing" and f.head == "" for f in missing)
            assert line.rule_winner is None
        open_lines = list(iter_lines(ws, ConflictQuery(state="open")))
        assert sum(line.count for line in open_lines) == expected["counts"]["conflicts_unresolved"]
        assert len(open_lines) == expected["counts"]["conflicts_unresolved"] - 1  # one pair flagged twice


def test_bursts_are_found_on_a_workspace_with_known_bursts(built, ro) -> None:
    _path, ids = built
    found = browse_bursts.bursts(ro)
    assert [b.winner for b in found] == [ids["rapid_winner"], ids["burst_winner"]]  # newest first
    rapid, write = found
    assert sorted(rapid.losers) == sorted(ids["rapid_losers"])  # the late one, 10 minutes on, is not in it
    assert rapid.reason == "5 wins within 41 s"
    assert sorted(write.losers) == sorted(ids["burst_losers"]) and write.reason == "one write superseded 4 facts"
    assert write.winner_topic == "oncall" and write.winner_state == "active" and write.reviewed == 0
    detail = browse_bursts.burst_detail(ro, write.winner, list(write.conflict_ids))
    assert detail.winner.id == ids["burst_winner"] and detail.topics == 1
    assert all(d.still_superseded_by_winner and d.rule.winner_still_wins for d in detail.displaced)
    assert {d.fact.id for d in detail.displaced} == set(ids["burst_losers"])


@pytest.mark.parametrize("layout", ["product_db", "newer_product_db"])
def test_both_product_layouts_are_listed(layout: str, request) -> None:
    """The schema-13 layout and the newer one (no ``_table`` suffix): the same lines."""
    with open_workspace(request.getfixturevalue(layout), read_only=True) as ws:
        lines = {line.id: line for line in iter_lines(ws, ConflictQuery())}
        assert set(lines) == {"c-1", "c-2"}
        assert lines["c-1"].recorded_winner == "f-01" and not lines["c-1"].dangling
        assert lines["c-2"].dangling and not lines["c-2"].b.exists and lines["c-2"].state == "open"
        assert [x.id for x in iter_lines(ws, ConflictQuery(state="dangling"))] == ["c-2"]
        assert browse_bursts.bursts(ws) == []
