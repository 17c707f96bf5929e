"""The history of a workspace (``browse.history.entries``) on real files: the product-format fixture, a
copy changed through the product's own SQL, the desk's own changes, and the shared sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fixtures.product_changes import change_like_the_product
from fixtures.product_fixture import FACTS, T0
from memorydesk.browse.history.entries import HistoryQuery, history_page, iter_events, undo_blocker
from memorydesk.core.errors import BadInput
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store import open_workspace

LATER = T0 + 3600


def events(path: Path, **q) -> list:
    with open_workspace(path, read_only=True) as ws:
        return list(iter_events(ws, HistoryQuery(**q)))


def find(evs, kind: str, action: str, first_id: str):
    hits = [e for e in evs if e.kind == kind and e.action == action and e.ids[0] == first_id]
    assert hits, f"no {kind} {action} of {first_id}"
    return hits[0]


def test_what_agents_wrote_is_told_from_the_product_rows(product_db: Path) -> None:
    evs = events(product_db)
    created = find(evs, "fact", "created", "f-01")
    assert (created.at, created.actor, created.actor_kind) == (T0, "Cody", "agent")
    # f-02 lost a contradiction to f-01: superseded at f-01's creation, by f-01's author, the conflict type given
    lost = find(evs, "fact", "superseded", "f-02")
    assert (lost.at, lost.ids, lost.reason, lost.actor) == (T0, ("f-02", "f-01"), "contradiction", "Cody")
    # a sentinel: timed by the fact's own updated_at, the sentinel as the actor
    harvest = find(evs, "fact", "superseded", "f-07")
    assert harvest.actor == "system:harvest" and harvest.actor_kind == "system"
    # a cycle (f-10 superseded by the older f-09): its own updated_at, and said so
    cycle = find(evs, "fact", "superseded", "f-10")
    assert "cycle" in cycle.reason
    dangling = find(evs, "fact", "superseded", "f-08")
    assert "names no fact" in dangling.reason
    kinds = {(e.kind, e.action) for e in evs}
    assert {("policy", "created"), ("policy", "updated"), ("conflict", "recorded"), ("edge", "created"),
            ("note", "updated")} <= kinds
    assert [e.at for e in evs] == sorted((e.at for e in evs), reverse=True)
    row = evs[0].to_json()
    assert set(row) == {"at", "actor", "actor_kind", "kind", "action", "ids", "summary", "reason", "undone",
                        "at_known", "entry", "undone_by", "details"}
    assert isinstance(row["at"], int) and all(isinstance(i, str) for i in row["ids"])


def test_a_copy_changed_by_the_product_shows_each_change_at_its_time(product_db: Path, tmp_path: Path) -> None:
    changed = tmp_path / "changed.db"
    shutil.copyfile(product_db, changed)
    change_like_the_product(changed, LATER)
    evs = events(changed, since=LATER)
    assert all(e.at >= LATER for e in evs)
    new = find(evs, "fact", "created", "f-new")
    assert (new.at, new.actor) == (LATER, "Otto")
    beaten = find(evs, "fact", "superseded", "f-03")
    assert (beaten.at, beaten.ids, beaten.reason) == (LATER, ("f-03", "f-new"), "contradiction")
    cleanup = find(evs, "fact", "superseded", "f-05")  # the product's cleanup records no time: a bound, said so
    created = T0 + next(row[-1] for row in FACTS if row[0] == "f-05")
    assert (cleanup.at, cleanup.actor, cleanup.after) == (created + 31 * 86400, "system:cleanup", True)
    assert "unknown time" in cleanup.summary and cleanup.to_json()["at_known"] is False
    assert find(evs, "policy", "created", "p-new").at == LATER + 180
    assert find(evs, "edge", "created", "e-new").at == LATER + 240
    assert find(evs, "conflict", "resolved", "c-2").at == LATER + 300
    assert not any(e.ids[0] == "f-01" and e.action == "created" for e in evs)  # before --since


def test_filters_kind_actor_range_text(product_db: Path) -> None:
    everything = events(product_db)
    policies = events(product_db, kind="policy")
    assert policies and {e.kind for e in policies} == {"policy"}
    assert len(policies) == sum(e.kind == "policy" for e in everything)
    rita = events(product_db, actor="RITA")  # name, any letter case
    assert rita and {e.actor for e in rita} == {"Rita"}
    assert events(product_db, actor="a-review") == rita  # her id
    window = events(product_db, since=T0 + 100, until=T0 + 400)
    assert window and all(T0 + 100 <= e.at <= T0 + 400 for e in window)
    assert {e.ids[0] for e in events(product_db, text="argocd")} == {"f-03"}
    with pytest.raises(BadInput, match="after"):
        events(product_db, since=T0 + 10, until=T0)
    with pytest.raises(BadInput, match="kind"):
        events(product_db, kind="planet")


def test_pages_join_up_to_the_whole_list(product_db: Path) -> None:
    whole = events(product_db)
    with open_workspace(product_db, read_only=True) as ws:
        seen, cursor = [], None
        while True:
            page = history_page(ws, HistoryQuery(), cursor, 4)
            seen += page.events
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
    assert sorted(map(repr, seen)) == sorted(map(repr, whole))
    assert len(seen) == len(whole)


@pytest.mark.parametrize("q", [{}, {"kind": "fact"}, {"since": T0 + 60}, {"until": T0 + 300}])
def test_the_whole_walk_is_the_pages_one_after_the_other(product_db: Path, q: dict) -> None:
    """``iter_events`` (the command line's walk: one merge, large reads, every fact read once) gives
    exactly the pages ``history_page`` gives from its cursors, in their order."""
    with open_workspace(product_db, read_only=True) as ws:
        whole = list(iter_events(ws, HistoryQuery(**q), page=4))
        paged, cursor = [], None
        while True:
            page = history_page(ws, HistoryQuery(**q), cursor, 4)
            paged += page.events
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
    assert len(whole) > 8  # pages of 4: several
    assert whole == paged


def test_the_desks_own_changes_name_the_reviewer_and_undo_knows_what_depends(product_db: Path) -> None:
    ws = open_workspace(product_db)  # adopts the file (a backup is made)
    try:
        r = Reviewer(ws, "Ann", embedder=False)
        edit = r.edit_fact("f-04", domain="conventions", topic="testing", content="Every PR needs Playwright",
                           confidence=0.8, reason="wording")
        new_id = edit.ids[1]
        deleted = r.delete_facts([new_id], reason="wrong after all")
        evs = list(iter_events(ws, HistoryQuery(actor="ann")))
        assert [(e.kind, e.action, e.actor_kind) for e in evs] == [("fact", "delete", "reviewer"),
                                                                     ("fact", "edit", "reviewer")]
        assert evs[1].ids == ("f-04", new_id) and evs[1].reason == "wording"
        # the desk's own new version is not told twice (no "created" by an unknown agent)
        assert not [e for e in iter_events(ws, HistoryQuery()) if e.action == "created" and e.ids == (new_id,)]
        blocker = undo_blocker(ws, edit.history_ids[0])
        assert blocker is not None and f"entry {deleted.history_ids[0]}" in blocker
        assert undo_blocker(ws, deleted.history_ids[0]) is None
        r.undo(deleted.history_ids[0])
        assert undo_blocker(ws, edit.history_ids[0]) is None
        assert "undone already" in undo_blocker(ws, deleted.history_ids[0])
    finally:
        ws.close()


def test_the_shared_sample_reads_newest_first(sample_db: Path) -> None:
    evs = events(sample_db)
    assert len(evs) > 300
    with open_workspace(sample_db, read_only=True) as ws:
        facts = ws.engine.connect().exec_driver_sql(f"SELECT count(*) FROM {ws.layout.facts.name}").scalar()
    assert sum(e.kind == "fact" and e.action == "created" for e in evs) == facts
    assert {e.actor_kind for e in evs} <= {"agent", "system", "reviewer"}


def test_history_entries_are_typed_with_their_detail_decoded(tmp_path: Path, product_db: Path) -> None:
    from memorydesk.memory.history.record import HistoryEntry, history_entries, read_entries

    path = tmp_path / "ws.db"
    shutil.copyfile(product_db, path)
    with open_workspace(path) as ws:
        Reviewer(ws, "maya", embedder=False).delete_facts(["f-03"], reason="duplicate")
        [entry] = history_entries(ws, "fact", "f-03")
        rows = read_entries(ws, "fact", "f-03")
    assert isinstance(entry, HistoryEntry) and (entry.action, entry.actor, entry.reason) == ("delete", "maya",
                                                                                             "duplicate")
    assert isinstance(entry.detail, dict) and entry.undone_by is None and entry.entity_id == "f-03"
    assert rows == [{"id": entry.id, "entity": "fact", "entity_id": "f-03", "before_id": entry.before_id,
                     "after_id": entry.after_id, "action": "delete", "actor": "maya", "reason": "duplicate",
                     "at": entry.at, "detail": entry.detail, "undo_of": None, "undone_by": None}]


def test_a_policy_has_no_author_its_required_role_is_a_detail(product_db: Path, capsys) -> None:
    """The policy table records no author: p-1 requires the role ``reviewer`` and was written by nobody the
    file names — the tab's rows, the command's text and the Markdown export all say so, the same way."""
    from memorydesk import cli

    evs = [e for e in events(product_db, kind="policy") if e.ids == ("p-1",)]
    assert {(e.actor, e.actor_kind) for e in evs} == {("unknown", "system")}
    assert {e.details for e in evs} == {"required role reviewer (advisory)"}
    assert cli.main(["history", str(product_db), "--kind", "policy"]) == 0
    text = [line for line in capsys.readouterr().out.splitlines() if " p-1 " in line]
    assert text and all("system   unknown  policy" in line and "details: required role reviewer" in line
                        for line in text)
    assert cli.main(["history", str(product_db), "--kind", "policy", "--format", "markdown"]) == 0
    md = [line for line in capsys.readouterr().out.splitlines() if "| p-1 |" in line]
    assert md and all("| unknown (system) |" in line and "reviewer (agent)" not in line for line in md)


def test_history_since_a_date_is_its_local_midnight(product_db: Path, capsys, monkeypatch) -> None:
    """``--since 2026-11-18`` is that day's midnight here, as the window's typed time field reads it; a time
    neither form reads is refused in one sentence that names every accepted form."""
    import time

    from memorydesk import cli

    monkeypatch.setenv("TZ", "Etc/GMT+12")  # UTC-12: the fixture's day (T0 = 11:06 UTC) is still 17 November
    time.tzset()
    try:
        midnight = 1_795_003_200  # 2026-11-18T00:00 at UTC-12 = 2026-11-18T12:00:00Z, after T0
        assert cli.main(["history", str(product_db), "--since", "2026-11-18", "--json"]) == 0
        after = json.loads(capsys.readouterr().out)
        assert all(r["at"] >= midnight for r in after)
        assert cli.main(["history", str(product_db), "--until", "2026-11-18", "--json"]) == 0
        before = json.loads(capsys.readouterr().out)
        assert before and all(r["at"] <= midnight for r in before)
        assert len(after) + len(before) == len(events(product_db))
        assert cli.main(["history", str(product_db), "--since", "2026-11-18T10:00"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "2026-12-06" in err and "RFC 3339" in err and "unix seconds" in err
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
