"""What support staff read after a decision in the desk (the support job's findings, issue 34):
the History keeps every event the file and the desk's own records account for; the trail tells
a restored loser's supersession as it happened; one rule says when and by whom a fact was set
aside (History, trail and *as of* agree, a cleanup at an unknown time included); the export's
state reads as the list's; a history entry can be found by its number, and its line says what
changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.conflicts import T0, build
from memorydesk.browse.conflicts import export
from memorydesk.browse.conflicts.listing import ConflictQuery, iter_lines
from memorydesk.browse.conflicts.trail import conflict_trail
from memorydesk.browse.history.as_of import facts_as_of
from memorydesk.browse.history.entries import HistoryQuery, iter_events
from memorydesk.browse.history.export import export_markdown, text_line
from memorydesk.core.supersession import CLEANUP_AGE
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store import open_workspace
from memorydesk.ui.conflicts.trail import trail_html


@pytest.fixture
def setup(tmp_path: Path):
    path = tmp_path / "ws.db"
    ids = build(path)
    ws = open_workspace(path)
    yield ws, ids
    ws.close()


def line_of(ws, a: str, b: str):
    return next(line for line in iter_lines(ws, ConflictQuery()) if {line.fact_a, line.fact_b} == {a, b})


def product_events(ws, fact_id: str) -> list[tuple]:
    """What agents and the product wrote about a fact, as the History lists it."""
    return [(e.kind, e.action, e.ids, e.actor, e.actor_kind, e.at, e.reason, e.after)
            for e in iter_events(ws, HistoryQuery(text=fact_id)) if e.history_id is None]


def test_the_history_keeps_who_wrote_a_restored_loser_and_when_it_lost(setup) -> None:
    ws, ids = setup
    loser, winner = ids["rapid_losers"][0], ids["rapid_winner"]  # bram's newer write lost to ada's older rule
    before = product_events(ws, loser)
    created = ("fact", "created", (loser,), "bram", "agent", T0 + 1_010, "", False)
    lost = ("fact", "superseded", (loser, winner), "bram", "agent", T0 + 1_010,
            "contradiction: its own write lost to an older fact", False)
    assert created in before and lost in before
    rv = Reviewer(ws, "maya", embedder=False)
    conflict = line_of(ws, loser, winner).id
    rv.confirm_conflict(conflict, reason="checked")  # a decision naming both facts hides nothing either
    assert product_events(ws, loser) == before
    rv.restore_loser(conflict, reason="bram was right")
    assert product_events(ws, loser) == before  # the file still says who wrote it and when it lost
    desk = [e for e in iter_events(ws, HistoryQuery(text=loser)) if e.history_id is not None]
    assert [(e.action, e.reason) for e in desk] == [("restore_loser", "bram was right")]
    rv.undo()
    assert product_events(ws, loser) == before


def test_a_restored_newer_winner_keeps_its_losers_supersession(setup) -> None:
    ws, ids = setup
    v1, v2, v3 = ids["chain"]  # v1 lost to the newer v2, v2 to the newer v3
    before = product_events(ws, v1)
    assert ("fact", "superseded", (v1, v2), "ada", "agent", T0 + 6_100, "contradiction", False) in before
    Reviewer(ws, "maya", embedder=False).restore_loser(line_of(ws, v1, v2).id, reason="eu-west-1 again")
    after = product_events(ws, v1)
    assert after == before
    # v3, which the restore superseded, is still told as the agent wrote it, and the desk's row says the rest
    assert ("fact", "created", (v3,), "ada", "agent", T0 + 6_200, "", False) in product_events(ws, v3)


def test_the_trail_tells_a_restored_losers_supersession(setup) -> None:
    ws, ids = setup
    loser, winner = ids["rapid_losers"][0], ids["rapid_winner"]
    conflict = line_of(ws, loser, winner).id
    Reviewer(ws, "maya", embedder=False).restore_loser(conflict, reason="bram was right")
    t = conflict_trail(ws, conflict)
    assert t.a.state == "active"
    (gone,) = t.chain_a.lapsed
    assert (gone.id, gone.into, gone.at, gone.who.kind, gone.who.name) == (loser, winner, T0 + 1_010, "agent", "bram")
    assert (gone.ended_by.kind, gone.ended_by.name, gone.ended_by.reason) == ("person", "maya", "bram was right")
    assert gone.ended_by.action == "conflict.restore_loser" and gone.back_by is None
    assert t.chain_b.lapsed == (gone,)  # B's column keeps its “A → B” step, taken back
    page = trail_html(t)
    told = page[page.index("What happened since"):page.index("What people did")]
    assert "never superseded" not in told and told.count("taken back") == 2 and "Restore Loser" in told
    doc = export.trail_document(t.to_json(), exported_by="maya", now=T0)
    md = export.markdown(doc)
    assert "- no supersession" not in md and "taken back at" in md
    assert "state: superseded · loser restored" in md  # as the list and `conflicts` say it
    assert line_of(ws, loser, winner).state_text == "superseded · loser restored"
    assert "state: superseded · loser restored" in export.markdown(export.content_free(doc))

    Reviewer(ws, "maya", embedder=False).undo()  # put back: told as taken back, then put back
    t = conflict_trail(ws, conflict)
    (gone,) = t.chain_a.lapsed
    assert gone.back_by is not None and gone.back_by.action == "conflict.undo"
    step = t.chain_a.newer[0]  # the pointer the undo put back is still the agent's write
    assert (step.next_id, step.who.kind, step.who.name, step.at) == (winner, "agent", "bram", T0 + 1_010)


def test_one_rule_for_who_set_a_fact_aside_and_when(setup) -> None:
    ws, ids = setup
    loser, winner = ids["rapid_losers"][1], ids["rapid_winner"]
    conflict = line_of(ws, loser, winner).id
    step = conflict_trail(ws, conflict).chain_a.newer[0]
    (event,) = [e for e in iter_events(ws, HistoryQuery(text=loser, kind="fact")) if e.action == "superseded"]
    assert (event.actor, event.actor_kind, event.at) == (step.who.name, "agent", step.at) == ("bram", "agent",
                                                                                                 T0 + 1_020)
    assert {f.id: f.state for f in facts_as_of(ws, T0 + 1_020)}[loser] == "superseded"

    # a cleanup: the file does not say when; the trail, the History and as-of all say so, with one bound
    v1, v2, _v3 = ids["chain"]
    with ws.write() as conn:  # as the product's cleanup writes it: ``updated_at`` left as it was (CC_SCHEMA.md §7.2)
        conn.execute(ws.layout.facts.update().where(ws.layout.facts.c.id == v2).values(superseded_by="system:cleanup"))
    with ws.read() as conn:
        created, updated = conn.execute(ws.layout.facts.select().with_only_columns(
            ws.layout.facts.c.created_at, ws.layout.facts.c.updated_at).where(ws.layout.facts.c.id == v2)).one()
    bound = max(created + CLEANUP_AGE, updated)
    t = conflict_trail(ws, line_of(ws, v1, v2).id)
    step = next(n for n in t.chain_b.newer if n.next_id == "system:cleanup")
    assert (step.at, step.after, step.who.kind) == (bound, True, "system")
    page = trail_html(t)
    assert "system:cleanup" in page and "at an unknown time, not before" in page
    md = export.markdown(export.trail_document(t.to_json(), now=T0))
    assert "at an unknown time, not before" in md
    (event,) = [e for e in iter_events(ws, HistoryQuery(text=v2, kind="fact"))
                if e.action == "superseded" and e.ids[1] == "system:cleanup"]
    assert (event.at, event.after, event.actor) == (bound, True, "system:cleanup")
    assert {f.id: f.state for f in facts_as_of(ws, bound - 1)}[v2] == "active"
    assert {f.id: f.state for f in facts_as_of(ws, bound)}[v2] == "unknown"


def test_an_entry_is_found_by_its_number_and_its_line_says_what_changed(setup) -> None:
    ws, _ids = setup
    rv = Reviewer(ws, "maya", embedder=False)
    locked = rv.lock_down(["ops"], reason="audit").history_ids[0]
    undone = rv.undo(reason="audit over").history_ids[0]
    for asked in (f"#{locked}", f"entry {locked}", str(locked)):
        found = list(iter_events(ws, HistoryQuery(text=asked)))
        assert locked in [e.history_id for e in found], asked
    (e,) = [e for e in iter_events(ws, HistoryQuery(text=f"#{locked}")) if e.history_id == locked]
    line = text_line(e)
    assert f"#{locked} " in line and "9 cells of ops from write to none" in line and "why: audit" in line
    assert e.to_json()["entry"] == locked and e.to_json()["undone_by"] == undone
    assert f"undone by #{undone}" in line
    (u,) = [e for e in iter_events(ws, HistoryQuery(text=f"#{undone}")) if e.history_id == undone]
    assert f"undo of entry {locked}" in u.summary and "9 cells of ops from none to write" in u.summary
    md = "".join(export_markdown(iter_events(ws, HistoryQuery(kind="grant")), "ws", HistoryQuery(kind="grant")))
    assert f"| #{locked} |" in md and "| entry |" in md


def test_reasons_are_reasons_and_attributes_are_details(setup) -> None:
    ws, ids = setup
    loser = ids["rapid_losers"][0]
    (created,) = [e for e in iter_events(ws, HistoryQuery(text=loser)) if e.action == "created"]
    assert created.reason == "" and created.details == "fact, stated, role coder"
    line = text_line(created)
    assert "why:" not in line and "details: fact, stated, role coder" in line
    edges = [e for e in iter_events(ws, HistoryQuery(kind="edge"))]
    assert edges and all(e.reason == "" and e.details.startswith("weight ") for e in edges)
    conflicts = list(iter_events(ws, HistoryQuery(kind="conflict")))
    assert conflicts and all(e.reason == "" and e.details for e in conflicts)
