"""The memory job's finding 3: Ctrl+Z and Ctrl+Shift+Z with the focus in a text field — the field's own
typing is undone (and redone) first; a field with nothing of its own to undo lets the window's
Edit ▸ Undo / Redo act, as the guide's key table says."""

from __future__ import annotations

import desk_sample
from guihelp import focus, give_reason, key_dialog, select_topic
from PySide6.QtCore import Qt

from memorydesk.browse import detail as browse_detail

CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier


def _state(win) -> str:
    return browse_detail.fact_detail(win.ws, desk_sample.fid(5)).state


def _idle(win) -> bool:
    return win.ops.pending == 0 and win.ops.flows == 0


def test_ctrl_z_in_the_search_box_undoes_typing_first_then_the_last_change(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "topic 5")
    give_reason(qtbot, key_dialog(qtbot, tab, Qt.Key.Key_Delete), "duplicate")
    qtbot.waitUntil(lambda: _idle(win) and _state(win) == "deleted" and win.act_undo.isEnabled(), timeout=10000)

    focus(qtbot, tab.view)
    qtbot.keyClick(tab.view, Qt.Key.Key_F, CTRL)  # Ctrl+F: the search box
    box = tab.filters.search
    qtbot.waitUntil(box.hasFocus)
    qtbot.keyClicks(box, "deploy")
    qtbot.keyClick(box, Qt.Key.Key_Z, CTRL)  # the field's own typing first
    assert box.text() == "" and _state(win) == "deleted"
    qtbot.keyClick(box, Qt.Key.Key_Z, CTRL | SHIFT)  # … and redone by the field
    assert box.text() == "deploy"
    box.clear()  # a field with nothing of its own to undo
    box.setText("")
    assert not box.isUndoAvailable()
    qtbot.keyClick(box, Qt.Key.Key_Z, CTRL)  # the window's Undo acts
    qtbot.waitUntil(lambda: _idle(win) and _state(win) == "active", timeout=10000)
    assert box.hasFocus()
    qtbot.waitUntil(lambda: win.act_redo.isEnabled(), timeout=10000)
    qtbot.keyClick(box, Qt.Key.Key_Z, CTRL | SHIFT)  # and Redo, the field having nothing to redo
    qtbot.waitUntil(lambda: _idle(win) and _state(win) == "deleted", timeout=10000)


def test_the_policies_task_field_lets_the_window_undo(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "topic 5")
    give_reason(qtbot, key_dialog(qtbot, tab, Qt.Key.Key_Delete), "duplicate")
    qtbot.waitUntil(lambda: _idle(win) and _state(win) == "deleted" and win.act_undo.isEnabled(), timeout=10000)
    policies = win.show_tab("policies")
    field = policies.dispatch.task
    focus(qtbot, field)
    assert not field.isUndoAvailable()
    qtbot.keyClick(field, Qt.Key.Key_Z, CTRL)
    qtbot.waitUntil(lambda: _idle(win) and _state(win) == "active", timeout=10000)


def test_undo_this_change_asks_why_and_the_status_names_the_change_as_the_menu(open_window, sample_path,
                                                                              qtbot) -> None:
    """The memory job's finding 13: the History tab's Undo This Change (Ctrl+Shift+U) confirms and asks a
    reason like every other change; Edit ▸ Undo's status line names the change as its menu did."""
    from guihelp import wait_dialog
    from test_reasons import history

    from memorydesk.ui.widgets.prompts import REASON_NEEDED

    win = open_window(sample_path)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "topic 5")
    give_reason(qtbot, key_dialog(qtbot, tab, Qt.Key.Key_Delete), "duplicate")
    qtbot.waitUntil(lambda: _idle(win) and win.act_undo.text() == "&Undo “Delete fact topic 5”", timeout=10000)
    messages: list[str] = []
    win.session.status.connect(messages.append)
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: _idle(win) and _state(win) == "active", timeout=10000)
    assert "Undone “Delete fact topic 5”" in messages

    select_topic(qtbot, tab, "topic 5")
    give_reason(qtbot, key_dialog(qtbot, tab, Qt.Key.Key_Delete), "duplicate after all")
    qtbot.waitUntil(lambda: _idle(win) and _state(win) == "deleted", timeout=10000)
    page = win.show_tab("history")
    qtbot.waitUntil(lambda: page.model.rowCount() > 0 and _idle(win), timeout=10000)
    entry = next(r for r in range(page.model.rowCount()) if page.model.row_at(r).action == "delete")
    page.view.selectRow(entry)
    qtbot.waitUntil(lambda: page.act_undo.isEnabled(), timeout=10000)
    focus(qtbot, page.view)
    qtbot.keyClick(page.view, Qt.Key.Key_U, CTRL | SHIFT)
    dialog = wait_dialog(qtbot, page)
    assert "#" in dialog.text.text() and _state(win) == "deleted"  # nothing happens before it is confirmed
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)
    assert dialog.isVisible() and dialog.problem.text() == REASON_NEEDED
    give_reason(qtbot, dialog, "deleted the wrong one")
    qtbot.waitUntil(lambda: _idle(win) and _state(win) == "active", timeout=10000)
    assert history(sample_path, "fact")[-1][2] == "deleted the wrong one"


def test_a_long_status_message_is_cut_before_the_status_fields(open_window, sample_path, qtbot) -> None:
    """The memory job's finding 14: the long redact message ran into the status fields on the right."""
    win = open_window(sample_path)
    win.resize(1280, 800)
    long = "1 secret(s) redacted in place; " + "backup(s) workspace.backup-20261206T0938026Z.db still hold it; " * 4
    win.session.status.emit(long)
    bar = win.statusBar()
    qtbot.waitUntil(lambda: bar.currentMessage() == long)
    assert bar.shown_text().endswith("…") and bar.toolTip() == long
    assert bar.room().right() < win.mode.geometry().left()
    assert bar.fontMetrics().horizontalAdvance(bar.shown_text()) <= bar.room().width()
