"""“As of” is what was true then (issue 34, point 10): a decision made in the desk later (Keep B,
Restore Loser, a delete and its undo) does not rewrite the states of earlier times — the desk's
own history is applied backwards, in ``facts --as-of`` and in the Facts list alike — and a fact
the product's cleanup set aside (``updated_at`` untouched) is shown with its time unknown within
the bounds of the product's rule (31 days old at the earliest, now at the latest), never at a
made-up instant."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memorydesk.browse import facts as browse
from memorydesk.browse.history.as_of import facts_as_of
from memorydesk.memory.history import record
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store import open_workspace

DAY = 86400
CLEANUP = "system:cleanup"
NOW = int(time.time())
T0 = NOW - 60 * DAY  # the product wrote the facts then
DESK = Path(sys.executable).with_name("memory-desk")


def _fact(fid: str, topic: str, content: str, created: int, **values) -> dict:
    return {"id": fid, "domain": "ops", "topic": topic, "content": content, "confidence": 0.8,
            "memory_type": "fact", "veracity": "stated", "created_at": created, "updated_at": created,
            "recall_count": 0, "mention_count": 1, "superseded_by": None, **values}


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """A resolved contradiction (loser L, winner W), an open cross-agent pair (A, B), a fact D,
    and two facts the product's cleanup archived, written as the product writes them."""
    path = tmp_path / "ws.db"
    with open_workspace(path, create=True) as ws, ws.write() as conn:
        wid = ws.workspace_id
        rows = [
            _fact("L", "deploy", "We deploy on mondays.", T0, superseded_by="W", updated_at=T0 + DAY),
            _fact("W", "deploy", "We deploy on tuesdays.", T0 + DAY),
            _fact("A", "pr size", "Keep pull requests small.", T0 + 2 * DAY),
            _fact("B", "pr size", "Large renames may land in one pull request.", T0 + 2 * DAY + 10),
            _fact("D", "lint", "ESLint runs in CI.", T0 + 3 * DAY),
            # the product's cleanup: it sets superseded_by and leaves updated_at as it was
            _fact("C", "old", "A low-confidence note.", T0, confidence=0.3, superseded_by=CLEANUP),
            _fact("Y", "young", "Archived at once by an edit.", NOW - 5 * DAY, superseded_by=CLEANUP),
        ]
        conn.execute(ws.layout.facts.insert(), [{"workspace_id": wid, **r} for r in rows])
        conn.execute(ws.layout.conflicts.insert(), [
            {"id": "c1", "workspace_id": wid, "fact_a_id": "L", "fact_b_id": "W", "conflict_type": "contradiction",
             "resolution": "superseded", "winning_fact_id": "W", "resolved_at": T0 + DAY, "created_at": T0 + DAY},
            {"id": "c2", "workspace_id": wid, "fact_a_id": "A", "fact_b_id": "B", "conflict_type": "cross_agent",
             "resolution": None, "winning_fact_id": None, "resolved_at": None, "created_at": T0 + 2 * DAY + 20}])
    return path


def _states(ws, at: int) -> dict[str, str]:
    return {f.id: f.state for f in facts_as_of(ws, at)}


def _at(monkeypatch, when: int) -> None:
    """The desk's next history rows are written at ``when`` (a decision made that day)."""
    monkeypatch.setattr(record, "now_s", lambda: when)


def test_the_desks_decisions_are_applied_backwards(world: Path, monkeypatch) -> None:
    restore, keep, delete, undo = T0 + 10 * DAY, T0 + 20 * DAY, T0 + 30 * DAY, T0 + 40 * DAY
    with open_workspace(world) as ws:
        before = {t: _states(ws, t) for t in (T0 + 5 * DAY, T0 + 15 * DAY, T0 + 25 * DAY, T0 + 35 * DAY)}
        r = Reviewer(ws, "Ann", embedder=False)
        _at(monkeypatch, restore)
        r.restore_loser("c1", reason="mondays it is")
        _at(monkeypatch, keep)
        r.keep_fact("c2", "b", reason="renames are fine")
        _at(monkeypatch, delete)
        r.delete_facts(["D"], reason="gone")
        _at(monkeypatch, undo)
        r.undo(reason="not gone")
        # before the first decision: exactly what the file said before any of them was made
        assert _states(ws, T0 + 5 * DAY) == before[T0 + 5 * DAY]
        assert _states(ws, T0 + 5 * DAY)["L"] == "superseded" and _states(ws, T0 + 5 * DAY)["W"] == "active"
        mid = _states(ws, T0 + 15 * DAY)  # after Restore Loser, before Keep B
        assert (mid["L"], mid["W"], mid["A"], mid["B"]) == ("active", "superseded", "active", "active")
        later = _states(ws, T0 + 25 * DAY)  # after Keep B
        assert (later["A"], later["B"], later["D"]) == ("superseded", "active", "active")
        assert _states(ws, T0 + 35 * DAY)["D"] == "deleted"  # between the delete and its undo
        assert _states(ws, int(time.time()) + 60)["D"] == "active"
        # the Facts list says the same, filters included
        for at in (T0 + 5 * DAY, T0 + 15 * DAY, T0 + 35 * DAY):
            for state in ("all", "active", "superseded", "deleted"):
                listed = browse.fact_rows(ws, browse.FactQuery(state=state, as_of=at), 0, 100)
                expected = [f.id for f in facts_as_of(ws, at, state)]
                assert [r.id for r in listed] == expected, (at, state)
                assert {r.id: r.state(as_of=at) for r in listed} == {f.id: f.state for f in facts_as_of(ws, at, state)}
                assert browse.count_facts(ws, browse.FactQuery(state=state, as_of=at)) == len(expected)
        row = {r.id: r for r in browse.rows_for_ids(ws, ["L", "W"])}
        assert row["L"].state() == "active"  # now: as the decision left it
        moved = browse.rows_for_keys(ws, [row["L"].key], as_of=T0 + 5 * DAY)[0]
        assert moved.state(as_of=T0 + 5 * DAY) == "superseded" and moved.changed_since(T0 + 5 * DAY)


def test_the_command_applies_them_too(world: Path, monkeypatch) -> None:
    with open_workspace(world) as ws:
        _at(monkeypatch, T0 + 10 * DAY)
        Reviewer(ws, "Ann", embedder=False).restore_loser("c1", reason="mondays it is")
    out = subprocess.run([str(DESK), "facts", str(world), "--as-of", str(T0 + 5 * DAY), "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    states = {f["id"]: f["state"] for f in json.loads(out.stdout)}
    assert (states["L"], states["W"]) == ("superseded", "active")


def test_a_cleanup_is_unknown_within_the_products_bounds(world: Path) -> None:
    with open_workspace(world, read_only=True) as ws:
        early = {f.id: f for f in facts_as_of(ws, T0 + 10 * DAY)}
        assert early["C"].state == "active"  # 10 days old: the product's cleanup could not have touched it
        late = {f.id: f for f in facts_as_of(ws, T0 + 40 * DAY)}
        assert late["C"].state == "unknown" and late["C"].changed_since
        low, high = late["C"].between
        assert low == T0 + 31 * DAY and high >= NOW
        assert late["C"].to_json()["superseded_between"] == [low, high]
        assert "C" in {f.id for f in facts_as_of(ws, T0 + 40 * DAY, "unknown")}
        assert "C" not in {f.id for f in facts_as_of(ws, T0 + 40 * DAY, "superseded")}
        assert "C" not in {f.id for f in facts_as_of(ws, T0 + 40 * DAY, "active")}
        assert {f.id: f.state for f in facts_as_of(ws, int(time.time()) + 60)}["C"] == "superseded"  # by now, it has
        # a fact the file says was archived 5 days after it was written: earliest 31 days after, not before
        assert {f.id: f.state for f in facts_as_of(ws, NOW - 1)}["Y"] == "active"
        listed = browse.fact_rows(ws, browse.FactQuery(as_of=T0 + 40 * DAY), 0, 100)
        assert {r.id: r.state(as_of=T0 + 40 * DAY) for r in listed}["C"] == "unknown"
