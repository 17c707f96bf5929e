"""Nothing changes that the person did not choose (issue 34, point 9): a content-only edit in the
real dialog keeps every other field exactly (confidence 0.59 stays 0.59, an untrimmed topic
stays untrimmed); editing an inactive policy keeps it inactive (and out of every dispatch),
a role the list does not know stays, and Edit ▸ Undo leaves the policies table as it was."""

from __future__ import annotations

from pathlib import Path

import desk_sample
import pytest
from guihelp import select_topic, wait_dialog, wait_idle
from PySide6.QtCore import Qt

from memorydesk.browse import detail as browse_detail
from memorydesk.search.preamble import build_preamble
from memorydesk.store import open_workspace

FACT = desk_sample.fid(4)
KEPT = ("domain", "topic", "source_observation_ids", "confidence", "memory_type", "valid_until", "temporal_tags",
        "mention_count", "workspace_id")


@pytest.fixture
def odd_fields(tmp_path: Path) -> Path:
    facts = desk_sample.sample_facts()
    for row in facts:
        if row["id"] == FACT:
            row.update(topic="topic 4 ", confidence=0.59, memory_type="preference", valid_until=desk_sample.NOW + 9999,
                       temporal_tags='["q3"]', source_observation_ids='["obs-1","obs-2"]', mention_count=3)
    return desk_sample.build(tmp_path / "odd.db", facts)


def _fact(path: Path, fact_id: str):
    with open_workspace(path, read_only=True) as ws, ws.read() as conn:
        return conn.execute(ws.layout.facts.select().where(ws.layout.facts.c.id == fact_id)).one()._mapping


def _policies(path: Path) -> list[tuple]:
    with open_workspace(path, read_only=True) as ws, ws.read() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(
            f"SELECT rowid, * FROM {ws.layout.policies.name} ORDER BY rowid").all()]


def _facts(path: Path) -> list[tuple]:
    with open_workspace(path, read_only=True) as ws, ws.read() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(
            f"SELECT rowid, * FROM {ws.layout.facts.name} ORDER BY rowid").all()]


def test_a_content_only_edit_keeps_every_other_field_exactly(open_window, odd_fields: Path, qtbot) -> None:
    before = _facts(odd_fields)
    win = open_window(odd_fields)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "topic 4 ")
    tab.act_edit.trigger()
    dialog = wait_dialog(qtbot, tab)
    assert dialog.confidence.text() == "59.00 %"
    dialog.content.setPlainText("corrected content of fact 4")
    dialog.reason.setText("typo")
    qtbot.mouseClick(dialog.buttons.button(dialog.buttons.StandardButton.Save), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and browse_detail.fact_detail(win.ws, FACT).state == "superseded",
                    timeout=20000)
    old = _fact(odd_fields, FACT)
    new = _fact(odd_fields, old["superseded_by"])
    assert new["content"] == "corrected content of fact 4"
    assert {k: new[k] for k in KEPT} == {k: old[k] for k in KEPT}  # 0.59, "topic 4 " and the rest, exactly
    assert (new["veracity"], new["authored_by_agent_id"], new["authored_by_role"]) == ("stated", None, None)
    win.act_undo.trigger()  # the new version goes: the facts table is as it was, row for row
    qtbot.waitUntil(lambda: win.ops.pending == 0 and len(_facts(odd_fields)) == len(before), timeout=10000)
    assert _facts(odd_fields) == before


def test_a_moved_confidence_is_the_value_shown(open_window, odd_fields: Path, qtbot) -> None:
    win = open_window(odd_fields)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "topic 4 ")
    tab.act_edit.trigger()
    dialog = wait_dialog(qtbot, tab)
    dialog.confidence.setValue(72.5)
    dialog.reason.setText("surer")
    qtbot.mouseClick(dialog.buttons.button(dialog.buttons.StandardButton.Save), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and browse_detail.fact_detail(win.ws, FACT).state == "superseded",
                    timeout=20000)
    new = _fact(odd_fields, _fact(odd_fields, FACT)["superseded_by"])
    assert new["confidence"] == 0.725 and new["content"] == "content of fact 4" and new["topic"] == "topic 4 "


def test_editing_an_inactive_policy_keeps_it_inactive_and_undo_leaves_the_table_as_it_was(
        open_window, sample_path: Path, qtbot) -> None:
    with open_workspace(sample_path) as ws, ws.write() as conn:  # a role in other letters, as the product reads it
        conn.execute(ws.layout.policies.update().where(ws.layout.policies.c.id == desk_sample.fid(802))
                     .values(required_role="DevOps"))
    before = _policies(sample_path)
    with open_workspace(sample_path, read_only=True) as ws:
        dispatch = build_preamble(ws, desk_sample.fid(900))
    win = open_window(sample_path)
    tab = win.show_tab("policies")
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: tab.model.rowCount() == 3, timeout=10000)
    row = next(r for r in range(tab.model.rowCount()) if tab.model.policy(r).rule == "Use Jenkins.")
    tab.select_row(row)
    tab.act_edit.trigger()
    dialog = wait_dialog(qtbot, tab)
    assert "stays inactive" in " ".join(w.text() for w in dialog.findChildren(type(dialog.problem)))
    dialog.rule.setPlainText("Use GitHub Actions.")
    dialog.reason.setText("we moved")
    qtbot.mouseClick(dialog.buttons.button(dialog.buttons.StandardButton.Save), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and len(_policies(sample_path)) == 4, timeout=10000)
    new = next(r for r in browse_detail.policies(win.ws) if r.rule == "Use GitHub Actions.")
    assert not new.active and new.required_role == "DevOps" and new.domain == "old"
    with open_workspace(sample_path, read_only=True) as ws:
        assert build_preamble(ws, desk_sample.fid(900)) == dispatch  # not in any dispatch
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and len(_policies(sample_path)) == 3, timeout=10000)
    assert _policies(sample_path) == before  # every row, every column, the rowids: as it was
    win.act_redo.trigger()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and len(_policies(sample_path)) == 4, timeout=10000)
    assert not next(r for r in browse_detail.policies(win.ws) if r.rule == "Use GitHub Actions.").active
