"""Memory as of a time (``browse.history.as_of``, the Facts list's ``FactQuery.as_of``) on the
product-format fixture, a copy the product changed, and the desk's own deletes."""

from __future__ import annotations

import shutil
from pathlib import Path

from fixtures.product_changes import change_like_the_product
from fixtures.product_fixture import T0
from memorydesk.browse import facts as browse
from memorydesk.browse.history.as_of import facts_as_of
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store import open_workspace

LATER = T0 + 3600


def then(path: Path, at: int, state: str = "all") -> dict:
    with open_workspace(path, read_only=True) as ws:
        return {f.id: f for f in facts_as_of(ws, at, state)}


def test_the_rules_on_the_fixture(product_db: Path) -> None:
    before = then(product_db, T0 - 1)
    assert set(before) == {"f-02"}  # only the fact created 900 s before T0 existed
    assert before["f-02"].state == "active" and before["f-02"].changed_since  # superseded later (by f-01)
    at_t0 = then(product_db, T0)
    assert at_t0["f-02"].state == "superseded" and at_t0["f-01"].state == "active"
    # f-09 (created T0+420) superseded by f-10 (created T0+480)
    assert then(product_db, T0 + 420)["f-09"].state == "active"
    assert then(product_db, T0 + 480)["f-09"].state == "superseded"
    # a cycle: f-10 superseded by the older f-09 — its own updated_at times it, never before it existed
    assert "f-10" not in then(product_db, T0 + 479)
    assert then(product_db, T0 + 480)["f-10"].state == "superseded"


def test_a_copy_the_product_changed(product_db: Path, tmp_path: Path) -> None:
    changed = tmp_path / "changed.db"
    shutil.copyfile(product_db, changed)
    change_like_the_product(changed, LATER)
    just_before = then(changed, LATER - 1)
    assert "f-new" not in just_before
    assert just_before["f-03"].state == "active" and just_before["f-03"].changed_since
    assert just_before["f-05"].state == "active"  # the cleanup came at LATER + 60
    assert just_before["f-06"].changed_since  # edited in place later: today's text, marked
    assert "f-04" not in just_before  # a real delete leaves nothing to show
    after = then(changed, LATER + 60)
    assert after["f-03"].state == "superseded"
    # the product's cleanup archives only facts more than 30 whole days old: whatever updated_at says,
    # f-05 (written near T0) cannot have been set aside before it was 31 days old
    assert after["f-05"].state == "active" and after["f-05"].changed_since
    assert after["f-new"].state == "active"
    active_then = then(changed, LATER - 1, "active")
    assert "f-03" in active_then and all(f.state == "active" for f in active_then.values())
    assert set(then(changed, LATER + 60, "superseded")) >= {"f-03", "f-02"}


def test_the_facts_list_agrees_with_the_command(product_db: Path, tmp_path: Path) -> None:
    changed = tmp_path / "changed.db"
    shutil.copyfile(product_db, changed)
    change_like_the_product(changed, LATER)
    at = LATER + 30
    with open_workspace(changed, read_only=True) as ws:
        for state in ("all", "active", "superseded", "expired", "deleted"):
            listed = browse.fact_rows(ws, browse.FactQuery(state=state, as_of=at), 0, 1000)
            expected = [f.id for f in facts_as_of(ws, at, state)]
            assert [r.id for r in listed] == expected
            assert browse.count_facts(ws, browse.FactQuery(state=state, as_of=at)) == len(expected)
        for state in ("active", "superseded"):
            listed = browse.fact_rows(ws, browse.FactQuery(state=state, as_of=at), 0, 1000)
            assert listed and {r.state(as_of=at) for r in listed} == {state}


def test_the_desks_delete_is_timed_by_its_history(product_db: Path) -> None:
    ws = open_workspace(product_db)
    try:
        r = Reviewer(ws, "Ann", embedder=False)
        result = r.delete_facts(["f-04"], reason="stale")
        with ws.read() as conn:
            at = conn.exec_driver_sql("SELECT at FROM memdesk_history WHERE id = ?",
                                      (result.history_ids[0],)).scalar()
        states = {f.id: f.state for f in facts_as_of(ws, at - 1)}
        assert states["f-04"] == "active"
        assert {f.id: f.state for f in facts_as_of(ws, at)}["f-04"] == "deleted"
        row = browse.rows_for_ids(ws, ["f-04"])[0]
        assert row.superseded_at == at and row.state(as_of=at - 1) == "active"
    finally:
        ws.close()
