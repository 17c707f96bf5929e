"""A person's decisions on conflicts write exactly what they promise and undo byte for byte:
restore the loser, keep A / keep B (no conflict row invented), keep both (our table only),
confirm, review a burst; and refuse when the facts changed since."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from fixtures.conflicts import build
from memorydesk.browse.conflicts.listing import ConflictQuery, iter_lines
from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace
from memorydesk.store.ours import DeskConflictReview, DeskHistory

PRODUCT_TABLES = ("facts", "policies", "domains", "grants", "conflicts", "edges", "beliefs", "items", "notes",
                  "consolidation_log", "agents")


@pytest.fixture
def setup(tmp_path: Path):
    path = tmp_path / "ws.db"
    ids = build(path)
    ws = open_workspace(path)
    yield ws, ids, Reviewer(ws, "alice")
    ws.close()


def product_rows(ws) -> dict[str, list[tuple]]:
    """Every row of every product table, as stored (the bytes a product reader would see)."""
    out = {}
    with ws.read() as conn:
        for name in PRODUCT_TABLES:
            table = getattr(ws.layout, name)
            out[name] = sorted(tuple(r) for r in conn.execute(select(table)).all())
    return out


def reviews(ws) -> list:
    with ws.read() as conn:
        return conn.execute(select(DeskConflictReview.__table__)).all()


def history(ws) -> list:
    with ws.read() as conn:
        return conn.execute(select(DeskHistory.__table__).order_by(DeskHistory.__table__.c.id)).all()


def superseded(ws, fact_id: str) -> str | None:
    f = ws.layout.facts
    with ws.read() as conn:
        return conn.execute(select(f.c.superseded_by).where(f.c.id == fact_id)).scalar_one()


def line_of(ws, a: str, b: str):
    return next(line for line in iter_lines(ws, ConflictQuery()) if {line.fact_a, line.fact_b} == {a, b})


def changed(before: dict, after: dict) -> dict[str, tuple[set, set]]:
    return {t: (set(before[t]) - set(after[t]), set(after[t]) - set(before[t]))
            for t in before if before[t] != after[t]}


def test_restore_loser_then_undo_leaves_the_product_tables_as_they_were(setup) -> None:
    ws, ids, rv = setup
    v1, v2, v3 = ids["chain"]
    line = line_of(ws, v2, v3)  # v2 lost to v3, which is active
    before = product_rows(ws)
    result = rv.restore_loser(line.id, reason="v2 was right")
    assert superseded(ws, v2) is None and superseded(ws, v3) == v2
    diff = changed(before, product_rows(ws))
    assert set(diff) == {"facts"} and len(diff["facts"][0]) == 2  # exactly two fact rows changed
    assert result.touched == {"fact": [v2, v3]} and len(result.history_ids) == 1
    (review,) = reviews(ws)
    assert (review.conflict_id, review.decision, review.actor, review.reason) == (line.id, "restored", "alice",
                                                                                 "v2 was right")
    h = history(ws)[-1]
    assert (h.entity, h.action, h.actor, h.reason) == ("conflict", "restore_loser", "alice", "v2 was right")
    assert line_of(ws, v2, v3).review.decision == "restored"
    rv.undo()
    assert product_rows(ws) == before and reviews(ws) == []
    rv.redo()
    assert superseded(ws, v2) is None and superseded(ws, v3) == v2
    assert [r.id for r in reviews(ws)] == [review.id]  # the same review row comes back
    assert superseded(ws, v1) == v2  # the older link is left alone


def product_deletes(ws, fact_id: str) -> None:
    """The product deletes a fact for real (its own plain SQL on the file; conflict rows stay)."""
    import sqlean

    conn = sqlean.connect(str(ws.path), isolation_level=None)
    try:
        conn.execute(f"DELETE FROM {ws.layout.facts.name} WHERE id = ?", (fact_id,))
    finally:
        conn.close()


def test_restore_refuses_open_conflicts_and_a_loser_that_moved_on(setup) -> None:
    ws, ids, rv = setup
    v1, v2, v3 = ids["chain"]
    pair = line_of(ws, *ids["pair"])
    with pytest.raises(MemoryDeskError, match="open"):
        rv.restore_loser(pair.id)
    with pytest.raises(MemoryDeskError, match="does not exist"):
        rv.restore_loser("no-such-conflict")
    rv.restore_loser(line_of(ws, v2, v3).id, reason="v2 was right")
    with pytest.raises(StaleEdit, match="no longer superseded by the winner"):
        rv.restore_loser(line_of(ws, v2, v3).id)  # done already: v2 is active
    assert len(reviews(ws)) == 1 and len(history(ws)) == 1


def test_restore_when_the_winner_was_superseded_since_supersedes_its_version_in_force(setup) -> None:
    ws, ids, rv = setup
    v1, v2, v3 = ids["chain"]
    old = line_of(ws, v1, v2)  # v1 lost to v2, and v2 has since been superseded by v3
    before = product_rows(ws)
    result = rv.restore_loser(old.id, reason="eu-west-1 is still right")
    assert superseded(ws, v1) is None and superseded(ws, v3) == v1 and superseded(ws, v2) == v3
    assert v3[:8] in result.message and set(result.touched["fact"]) == {v1, v3}
    rv.undo()
    assert product_rows(ws) == before


def test_a_dangling_winner_does_not_stop_the_restore(setup) -> None:
    """Point 12: the product deleted the winner; the loser is brought back all the same."""
    ws, ids, rv = setup
    _v1, v2, v3 = ids["chain"]
    product_deletes(ws, v3)
    line = line_of(ws, v2, v3)
    assert line.dangling and superseded(ws, v2) == v3
    before = product_rows(ws)
    result = rv.restore_loser(line.id, reason="the winner is gone; v2 stands")
    assert superseded(ws, v2) is None
    assert "nothing else changed" in result.message and result.touched == {"fact": [v2]}
    diff = changed(before, product_rows(ws))
    assert set(diff) == {"facts"} and len(diff["facts"][0]) == 1  # only the loser's row changed
    (review,) = reviews(ws)
    assert review.decision == "restored" and review.reason == "the winner is gone; v2 stands"
    rv.undo()
    assert product_rows(ws) == before and reviews(ws) == []
    rv.redo()
    assert superseded(ws, v2) is None


def test_restoring_one_fact_a_burst_displaced_keeps_the_winner(setup) -> None:
    """The burst's winner replaced four facts: restoring one of them (Restore Loser or Facts ▸
    Restore) brings that one back and leaves the winner standing for the other three."""
    ws, ids, rv = setup
    winner, loser = ids["burst_winner"], ids["burst_losers"][0]
    line = line_of(ws, loser, winner)
    result = rv.restore_loser(line.id, reason="this facet was right")
    assert superseded(ws, loser) is None and superseded(ws, winner) is None
    assert all(superseded(ws, other) == winner for other in ids["burst_losers"][1:])
    assert result.touched == {"fact": [loser]}
    rv.undo()
    rv.restore_facts([ids["burst_losers"][1]], reason="so was this one")
    assert superseded(ws, winner) is None and superseded(ws, ids["burst_losers"][1]) is None


def test_facts_restore_brings_back_a_fact_whose_replacement_is_gone(setup) -> None:
    """Point 12, Facts ▸ Restore: a fact superseded by a fact the product deleted."""
    ws, ids, rv = setup
    _v1, v2, v3 = ids["chain"]
    product_deletes(ws, v3)
    before = product_rows(ws)
    result = rv.restore_facts([v2], reason="its replacement was deleted")
    assert superseded(ws, v2) is None and result.ids == [v2]
    h = history(ws)[-1]
    assert (h.entity, h.action, h.reason) == ("fact", "restore", "its replacement was deleted")
    rv.undo()
    assert product_rows(ws) == before  # superseded by the missing id again, byte for byte


def test_facts_restore_of_a_superseded_fact_supersedes_the_version_in_force(setup) -> None:
    ws, ids, rv = setup
    v1, v2, v3 = ids["chain"]
    before = product_rows(ws)
    result = rv.restore_facts([v2], reason="v2 was right")
    assert superseded(ws, v2) is None and superseded(ws, v3) == v2 and set(result.ids) == {v2, v3}
    assert "1 newer version(s) superseded" in result.message
    rv.undo()
    assert product_rows(ws) == before
    with pytest.raises(StaleEdit, match="already active"):
        rv.restore_facts([v3])


def test_keep_a_supersedes_b_without_inventing_a_conflict_row_and_undoes(setup) -> None:
    ws, ids, rv = setup
    a, b = ids["pair"]
    line = line_of(ws, a, b)
    before = product_rows(ws)
    rv.keep_fact(line.id, "a" if line.fact_a == a else "b", reason="the size rule is policy")
    assert superseded(ws, b) == a and superseded(ws, a) is None
    diff = changed(before, product_rows(ws))
    assert set(diff) == {"facts"} and len(diff["facts"][1]) == 1  # one fact row, and no conflict row
    kept = line_of(ws, a, b)
    assert kept.state == "reviewed" and kept.review.decision in ("kept_a", "kept_b")
    assert [x for x in iter_lines(ws, ConflictQuery(state="open"))] and \
        all({x.fact_a, x.fact_b} != {a, b} for x in iter_lines(ws, ConflictQuery(state="open")))
    with pytest.raises(StaleEdit, match="no longer active"):
        rv.keep_fact(line.id, "a")  # b is superseded now
    rv.undo()
    assert product_rows(ws) == before and reviews(ws) == []
    assert line_of(ws, a, b).state == "open"


def test_keep_b(setup) -> None:
    ws, ids, rv = setup
    a, b = ids["other"]
    line = line_of(ws, a, b)
    rv.keep_fact(line.id, "b", reason="additive changes are the rule now")
    assert superseded(ws, line.fact_a) == line.fact_b and superseded(ws, line.fact_b) is None
    with pytest.raises(MemoryDeskError, match="'a' or 'b'"):
        rv.keep_fact(line.id, "c")


def test_keep_both_touches_only_our_table_and_survives_a_new_harmonize_pass(setup) -> None:
    ws, ids, rv = setup
    a, b = ids["pair"]
    line = line_of(ws, a, b)
    before = product_rows(ws)
    result = rv.keep_both(line.id, reason="both hold")
    assert product_rows(ws) == before
    assert result.touched == {} and line_of(ws, a, b).state == "reviewed"
    assert all({x.fact_a, x.fact_b} != {a, b} for x in iter_lines(ws, ConflictQuery(state="open")))
    assert {(x.fact_a, x.fact_b) for x in iter_lines(ws, ConflictQuery(state="reviewed"))} == {(line.fact_a,
                                                                                               line.fact_b)}
    MemoryService(ws, embedder=False).harmonize_memory()  # the product flags the pair again
    again = line_of(ws, a, b)
    assert again.count == line.count + 1 and again.state == "reviewed"  # still not listed as open
    with pytest.raises(MemoryDeskError, match="open cross-agent"):
        rv.keep_both(line_of(ws, *ids["chain"][1:]).id)  # a resolved contradiction
    rv.undo()
    assert reviews(ws) == [] and line_of(ws, a, b).state == "open"


def test_confirm_records_a_review_and_undoes(setup) -> None:
    ws, ids, rv = setup
    before = product_rows(ws)
    line = line_of(ws, *ids["chain"][1:])
    rv.confirm_conflict(line.id, reason="checked with the team")
    assert product_rows(ws) == before
    assert line_of(ws, *ids["chain"][1:]).review.decision == "confirmed"
    assert [x.key for x in iter_lines(ws, ConflictQuery(state="reviewed"))] == [line.key]
    with pytest.raises(MemoryDeskError, match="open"):
        rv.confirm_conflict(line_of(ws, *ids["pair"]).id)
    rv.undo()
    assert reviews(ws) == []


def test_review_burst_restores_some_confirms_the_rest_in_one_history_row(setup) -> None:
    ws, ids, rv = setup
    winner, losers = ids["burst_winner"], ids["burst_losers"]
    conflicts = [line_of(ws, x, winner).id for x in losers]
    before, entries = product_rows(ws), len(history(ws))
    result = rv.review_burst(winner, conflicts, conflicts[:2], reason="the summary dropped details")
    assert [superseded(ws, x) for x in losers] == [None, None, winner, winner]
    assert superseded(ws, winner) is None  # the winner stays
    assert len(history(ws)) == entries + 1 and set(result.touched["fact"]) == {winner, *losers[:2]}
    assert sorted(r.decision for r in reviews(ws)) == ["confirmed", "confirmed", "restored", "restored"]
    with pytest.raises(StaleEdit):
        rv.review_burst(winner, conflicts, conflicts[:1])  # that loser is active now
    with pytest.raises(MemoryDeskError, match="only conflicts of the burst"):
        rv.review_burst(winner, conflicts[:1], conflicts[1:2])
    rv.undo()
    assert product_rows(ws) == before and reviews(ws) == []


def test_an_agent_change_since_makes_undo_refuse(setup) -> None:
    ws, ids, rv = setup
    _v1, v2, v3 = ids["chain"]
    rv.restore_loser(line_of(ws, v2, v3).id, reason="r")
    MemoryService(ws, embedder=False).supersede_fact(v2, "system:cleanup")  # the product archives it meanwhile
    with pytest.raises(StaleEdit, match="changed since"):
        rv.undo()
    assert superseded(ws, v2) == "system:cleanup" and len(reviews(ws)) == 1  # nothing half-undone
