"""Issue points 8 and 9 on real widgets: every change in the Facts and Policies tabs asks why
in the dialog that confirms it (an empty reason refused in place) and records the reason
with the change; confirmations name what they act on; a purge is confirmed by what tells
the fact apart; Enter in the purge dialog never cancels silently; Undo names the change."""

from __future__ import annotations

import desk_sample
from guihelp import facts_dialog, give_reason, key_dialog, row_of_topic, select_topic, wait_dialog, wait_idle
from PySide6.QtCore import Qt

from memorydesk.browse import detail as browse_detail
from memorydesk.browse.naming import FactName, distinct_name
from memorydesk.store import open_workspace
from memorydesk.ui.widgets.prompts import REASON_NEEDED, ReasonDialog


def history(path, entity: str) -> list[tuple[str, str, str]]:
    """(action, entity id, reason) of the desk's history rows about ``entity``, oldest first."""
    with open_workspace(path, read_only=True) as ws, ws.read() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(
            "SELECT action, entity_id, reason FROM memdesk_history WHERE entity = ? ORDER BY id", (entity,))]


def test_delete_names_the_fact_refuses_an_empty_reason_and_undo_names_it(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "topic 5")
    dialog = key_dialog(qtbot, tab, Qt.Key.Key_Delete)
    assert isinstance(dialog, ReasonDialog)
    assert "topic 5" in dialog.text.text() and dialog.text.text().startswith("Delete fact ")
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)  # no reason yet: refused in place
    assert dialog.isVisible() and dialog.problem.text() == REASON_NEEDED
    assert browse_detail.fact_detail(win.ws, desk_sample.fid(5)).state == "active"
    give_reason(qtbot, dialog, "duplicate of topic 4")
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0
                    and browse_detail.fact_detail(win.ws, desk_sample.fid(5)).state == "deleted", timeout=10000)
    assert history(sample_path, "fact")[-1] == ("delete", desk_sample.fid(5), "duplicate of topic 4")
    # the fact below takes its place in the selection: Del, reason, Enter, Del … reviews down the list
    qtbot.waitUntil(lambda: [f.topic for f in tab.selected_facts()] == ["topic 6"], timeout=10000)
    qtbot.waitUntil(lambda: win.act_undo.text() == "&Undo “Delete fact topic 5”", timeout=10000)
    assert win.act_undo.isEnabled()

    win.act_undo.trigger()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.act_redo.text() == "&Redo “Delete fact topic 5”",
                    timeout=10000)
    assert browse_detail.fact_detail(win.ws, desk_sample.fid(5)).state == "active"
    assert win.act_undo.text() == "&Undo" and not win.act_undo.isEnabled()  # nothing left to undo, and it says so


def test_several_facts_are_named_and_restore_asks_why(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    tab.filters.state.setCurrentIndex(tab.filters.state.findData("all"))
    wait_idle(qtbot, win)
    tab.select_row(row_of_topic(tab, "topic 6"))
    flags = tab.view.selectionModel().SelectionFlag
    tab.view.selectionModel().select(tab.model.index(row_of_topic(tab, "topic 7"), 0), flags.Select | flags.Rows)
    tab.act_delete.trigger()
    dialog = wait_dialog(qtbot, tab)
    assert dialog.text.text().startswith("Delete 2 facts: ")
    assert "topic 6" in dialog.text.text() and "topic 7" in dialog.text.text()
    give_reason(qtbot, dialog, "both obsolete")
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0 and tab.dialog is None, timeout=10000)
    wait_idle(qtbot, win)
    assert {(a, r) for a, _i, r in history(sample_path, "fact")} == {("delete", "both obsolete")}
    # one delete of two facts: one Undo takes both back, and Redo deletes both again
    qtbot.waitUntil(lambda: win.act_undo.text() == "&Undo “Delete 2 facts”", timeout=30000)
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0
                    and win.act_redo.text() == "&Redo “Delete 2 facts”", timeout=30000)
    assert {browse_detail.fact_detail(win.ws, desk_sample.fid(n)).state for n in (6, 7)} == {"active"}
    win.act_redo.trigger()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0
                    and win.act_undo.text() == "&Undo “Delete 2 facts”", timeout=30000)
    assert {browse_detail.fact_detail(win.ws, desk_sample.fid(n)).state for n in (6, 7)} == {"deleted"}

    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: any(tab.model.fact(r) is not None and tab.model.fact(r).topic == "deleted one"
                                for r in range(tab.model.rowCount())), timeout=15000)  # the list read again
    tab.select_row(row_of_topic(tab, "deleted one"))  # deleted by someone else before
    qtbot.waitUntil(lambda: tab.act_restore.isEnabled(), timeout=10000)
    tab.act_restore.trigger()
    dialog = wait_dialog(qtbot, tab)
    assert dialog.text.text().startswith("Restore fact ") and "deleted one" in dialog.text.text()
    dialog.yes.click()
    assert dialog.isVisible() and dialog.problem.text() == REASON_NEEDED
    give_reason(qtbot, dialog, "it was right after all")
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0
                    and browse_detail.fact_detail(win.ws, desk_sample.fid(25)).state == "active", timeout=10000)
    assert history(sample_path, "fact")[-1] == ("restore", desk_sample.fid(25), "it was right after all")
    qtbot.waitUntil(lambda: win.act_undo.text() == "&Undo “Restore fact deleted one”", timeout=10000)


def test_names_tell_facts_of_one_topic_apart() -> None:
    assert distinct_name("a", "run-2601", "deploy failed at step 3", []) == "run-2601"
    others = ["deploy failed at step 2", "deploy succeeded"]
    assert distinct_name("a", "run-2601", "deploy failed at step 3", others) == "run-2601: deploy failed at step 3"
    assert distinct_name("a", "run-2601", "rollback", others) == "run-2601: rollback"
    assert distinct_name("f-9", "run-2601", "deploy succeeded", others) == "f-9"  # the same text: only its id
    monday = "Backend / Audit Worker: ships to staging on Monday at 16:00"
    tuesday = "Backend / Audit Worker: ships to staging on Tuesday at 16:00"  # the ninth word differs
    assert distinct_name("a", "audit-worker", monday, [tuesday]) == "audit-worker: " + " ".join(monday.split()[:9])
    assert FactName("f-9", "run-2601", "f-9", 3).shown == "run-2601 (id f-9)"  # a confirmation still names its topic


def test_purge_of_a_shared_topic_is_typed_with_its_first_words_and_enter_never_cancels(
        open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "deploy day")  # three facts share this topic (a supersession chain)
    tab.act_purge.trigger()
    dialog = wait_dialog(qtbot, tab)
    assert dialog.expected == "deploy day: we deploy on wednesday"
    assert "deploy day: we deploy on wednesday" in dialog.findChild(type(dialog.problem), "purge-phrase").text()
    assert "deploy day" in dialog.findChild(type(dialog.problem), "purge-what").text()
    qtbot.keyClicks(dialog.typed, "deploy day")  # the topic alone is not enough
    assert not dialog.purge.isEnabled()
    qtbot.keyClick(dialog.typed, Qt.Key.Key_Return)
    assert dialog.isVisible() and "Type “deploy day: we deploy on wednesday”" in dialog.problem.text()
    qtbot.keyClicks(dialog.typed, ": we deploy on wednesday")
    assert dialog.purge.isEnabled()
    qtbot.keyClick(dialog.typed, Qt.Key.Key_Return)  # no reason yet
    assert dialog.isVisible() and dialog.problem.text() == REASON_NEEDED
    assert browse_detail.fact_detail(win.ws, desk_sample.fid(30)) is not None
    qtbot.keyClicks(dialog.reason, "customer asked")
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0 and tab.dialog is None, timeout=15000)
    assert browse_detail.fact_detail(win.ws, desk_sample.fid(30)) is None
    assert ("purge", "customer asked") in {(a, r) for a, _i, r in history(sample_path, "fact")}


def test_purge_takes_the_id_too_and_escape_cancels(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab, dialog = facts_dialog(qtbot, win, "topic 9", "act_purge")
    assert dialog.expected == "topic 9"  # a topic no other fact has is enough
    qtbot.keyClicks(dialog.typed, desk_sample.fid(9))
    assert dialog.purge.isEnabled()
    qtbot.keyClick(dialog.typed, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: tab.dialog is None and win.ops.flows == 0, timeout=10000)
    assert browse_detail.fact_detail(win.ws, desk_sample.fid(9)).content == "content of fact 9"


def _policy_row(tab, start: str) -> int:
    return next(r for r in range(tab.model.rowCount()) if tab.model.policy(r).rule.startswith(start))


def test_policy_changes_ask_why_and_the_selection_follows_an_edit(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.show_tab("policies")
    qtbot.waitUntil(lambda: tab.model.rowCount() > 0 and win.ops.pending == 0, timeout=10000)
    tab.select_row(_policy_row(tab, "Always"))
    old_id = tab.selected().id
    dialog = key_dialog(qtbot, tab, Qt.Key.Key_F2)
    dialog.rule.setPlainText("Always run the whole test suite.")
    save = dialog.buttons.button(dialog.buttons.StandardButton.Save)
    save.click()
    assert dialog.isVisible() and dialog.problem.text() == REASON_NEEDED
    dialog.reason.setText("clearer")
    save.click()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0 and tab.selected() is not None
                    and tab.selected().rule == "Always run the whole test suite.", timeout=10000)
    new = tab.selected()
    assert new.id != old_id and new.active  # the new version, not the superseded one
    assert tab.rule.toPlainText() == "Always run the whole test suite."
    assert history(sample_path, "policy")[-1] == ("edit", old_id, "clearer")
    qtbot.waitUntil(lambda: win.act_undo.text().startswith("&Undo “Edit policy “Always"), timeout=10000)

    tab.select_row(_policy_row(tab, "Use Jenkins"))
    tab.act_activate.trigger()
    dialog = wait_dialog(qtbot, tab)
    assert dialog.text.text().startswith("Activate policy “[") and "Use Jenkins" in dialog.text.text()
    give_reason(qtbot, dialog, "we use it again")
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0 and tab.summary.text().endswith("3 active"),
                    timeout=10000)
    assert history(sample_path, "policy")[-1][::2] == ("activate", "we use it again")
    assert tab.selected().rule.startswith("Use Jenkins")
    qtbot.waitUntil(lambda: win.act_undo.text().startswith("&Undo “Activate policy “Use Jenkins"), timeout=10000)

    tab.act_deactivate.trigger()
    give_reason(qtbot, wait_dialog(qtbot, tab), "not yet")
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0 and tab.summary.text().endswith("2 active"),
                    timeout=10000)
    assert history(sample_path, "policy")[-1][::2] == ("activate", "not yet")

    tab.select_row(_policy_row(tab, "Never log"))
    dialog = key_dialog(qtbot, tab, Qt.Key.Key_Delete)
    assert "Never log" in dialog.text.text()
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)
    assert dialog.isVisible() and dialog.problem.text() == REASON_NEEDED
    give_reason(qtbot, dialog, "superseded by the logging ADR")
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0 and tab.dialog is None, timeout=10000)
    assert history(sample_path, "policy")[-1][::2] == ("delete", "superseded by the logging ADR")
