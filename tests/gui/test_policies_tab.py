"""The Policies tab: the list, the advisory role, edits, and what every dispatch carries."""

from __future__ import annotations

import desk_sample
import pytest
from guihelp import focus, give_reason, wait_dialog
from PySide6.QtCore import Qt

from memorydesk.browse import detail as browse_detail
from memorydesk.store import open_workspace


def _ready(qtbot, win):
    tab = win.show_tab("policies")
    qtbot.waitUntil(lambda: tab.model.rowCount() == 3 and win.ops.pending == 0)
    return tab


def _row(tab, rule_start: str) -> int:
    for r in range(tab.model.rowCount()):
        if tab.model.policy(r).rule.startswith(rule_start):
            return r
    raise AssertionError(rule_start)


def test_list_marks_active_and_the_advisory_role(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = _ready(qtbot, win)
    m = tab.model
    header = [m.headerData(c, Qt.Orientation.Horizontal) for c in range(m.columnCount())]
    assert header == ["Status", "Domain", "Rule", "Role (advisory)", "Updated"]
    shown = [(m.index(r, 0).data(), m.index(r, 1).data(), m.index(r, 2).data()) for r in range(m.rowCount())]
    assert shown == [("active", "security", "Never log secrets. Ever."),
                     ("active", "codebase", "Always run the tests."),
                     ("inactive", "old", "Use Jenkins.")]
    assert "Advisory" in m.index(1, 3).data(Qt.ItemDataRole.ToolTipRole)
    assert tab.summary.text() == "3 policies · 2 active"
    tab.select_row(0)
    assert tab.rule.toPlainText() == "Never log secrets.\nEver."
    assert "(advisory)" in tab.rule_meta.text()


def test_dispatch_panel_shows_the_injected_section_and_a_preview(open_window, sample_path, qtbot) -> None:
    preamble = pytest.importorskip("memorydesk.search.preamble")
    win = open_window(sample_path)
    tab = _ready(qtbot, win)
    panel = tab.dispatch
    qtbot.waitUntil(lambda: panel.section.toPlainText() != "" and panel.agent.count() == 2)
    expected = preamble.policy_section(win.ws)
    assert panel.section.toPlainText() == expected
    assert f"{len(expected):,} characters" in panel.section_size.text()
    assert f"~{(len(expected) + 3) // 4:,} tokens" in panel.section_size.text()
    panel.agent.setCurrentIndex(panel.agent.findData(desk_sample.fid(900)))
    qtbot.keyClicks(panel.task, "when do we deploy on wednesday next week")
    want = preamble.build_preamble(win.ws, desk_sample.fid(900), "when do we deploy on wednesday next week")
    qtbot.waitUntil(lambda: panel.preview.toPlainText() == want, timeout=5000)
    assert "## My Notes\n- prefers small PRs" in want


def test_size_warnings_grow_with_the_section() -> None:
    from memorydesk.ui.policies.dispatch import size_note

    assert size_note(100)[1] == ""
    assert "over 2,000 characters: it is added to every dispatch of every agent" in size_note(2500)[0]
    assert "large (over 4,000 characters)" in size_note(5000)[0]
    assert "very large" in size_note(9000)[0]
    # weighed against an agent's context size (the memory job's finding 12): ~552 tokens of 200,000
    assert "~552 tokens (characters ÷ 4) · 0.3 % of Ada's context (200,000 tokens)" in \
        size_note(2205, 200_000, "Ada's context")[0]
    assert "no context size in the file" in size_note(2205, None, "Ada's context")[0]


def test_an_edited_policys_old_version_is_marked_replaced_and_says_what_activating_does(
        open_window, sample_path, qtbot) -> None:
    """The memory job's finding 12: after an edit the old version reads "inactive · replaced"; Activate on
    it says both versions would reach agents; deleting an inactive policy does not claim it
    stops reaching agents; Undo of a delete puts the row back at its rowid."""
    win = open_window(sample_path)
    tab = _ready(qtbot, win)
    old = tab.model.policy(_row(tab, "Always")).id
    tab.select_row(_row(tab, "Always"))
    focus(qtbot, tab.view)
    qtbot.keyClick(tab.view, Qt.Key.Key_F2)
    dialog = wait_dialog(qtbot, tab)
    dialog.rule.setPlainText("Always run the whole test suite.")
    dialog.reason.setText("clearer")
    qtbot.mouseClick(dialog.buttons.button(dialog.buttons.StandardButton.Save), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.model.rowCount() == 4, timeout=10000)
    row = tab.model.row_of(old)
    assert tab.model.index(row, 0).data() == "inactive · replaced"
    assert "Activating it would send both versions" in tab.model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
    tab.select_row(row)
    tab.act_activate.trigger()
    dialog = wait_dialog(qtbot, tab)
    assert "older version" in dialog.informative.text() and "both versions" in dialog.informative.text()
    dialog.reject()
    qtbot.waitUntil(lambda: tab.dialog is None)

    jenkins = tab.model.policy(_row(tab, "Use Jenkins"))
    with open_workspace(sample_path, read_only=True) as ws, ws.read() as conn:
        rowid = conn.exec_driver_sql(f"SELECT rowid FROM {ws.layout.policies.name} WHERE id = ?",
                                     (jenkins.id,)).scalar()
    tab.select_row(_row(tab, "Use Jenkins"))
    focus(qtbot, tab.view)
    qtbot.keyClick(tab.view, Qt.Key.Key_Delete)
    dialog = wait_dialog(qtbot, tab)
    assert "stops reaching agents" not in dialog.informative.text() and "reaches no agent" in \
        dialog.informative.text()
    give_reason(qtbot, dialog)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.model.row_of(jenkins.id) is None, timeout=10000)
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.model.row_of(jenkins.id) is not None, timeout=10000)
    with open_workspace(sample_path, read_only=True) as ws, ws.read() as conn:
        assert conn.exec_driver_sql(f"SELECT rowid FROM {ws.layout.policies.name} WHERE id = ?",
                                    (jenkins.id,)).scalar() == rowid


def test_edit_activate_deactivate_delete(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = _ready(qtbot, win)
    win.show_tab("policies")

    tab.select_row(_row(tab, "Always"))
    focus(qtbot, tab.view)
    qtbot.keyClick(tab.view, Qt.Key.Key_F2)
    dialog = wait_dialog(qtbot, tab)
    assert dialog.role.currentData() == "coder"
    dialog.rule.setPlainText("Always run the whole test suite.")
    dialog.role.setCurrentIndex(dialog.role.findData("qa"))
    dialog.reason.setText("clearer")
    qtbot.mouseClick(dialog.buttons.button(dialog.buttons.StandardButton.Save), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and any(
        p.rule == "Always run the whole test suite." for p in browse_detail.policies(win.ws)), timeout=10000)
    qtbot.waitUntil(lambda: any(tab.model.policy(r).rule == "Always run the whole test suite."
                                for r in range(tab.model.rowCount())))

    tab.select_row(_row(tab, "Use Jenkins"))
    assert tab.act_activate.isEnabled() and not tab.act_deactivate.isEnabled()
    tab.act_activate.trigger()
    give_reason(qtbot, wait_dialog(qtbot, tab))
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.summary.text().endswith("3 active"), timeout=10000)

    tab.select_row(_row(tab, "Use Jenkins"))
    tab.act_deactivate.trigger()
    give_reason(qtbot, wait_dialog(qtbot, tab))
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.summary.text().endswith("2 active"), timeout=10000)

    before = tab.model.rowCount()
    tab.select_row(_row(tab, "Never log"))
    focus(qtbot, tab.view)
    qtbot.keyClick(tab.view, Qt.Key.Key_Delete)
    give_reason(qtbot, wait_dialog(qtbot, tab))
    qtbot.waitUntil(lambda: win.ops.pending == 0 and not any(
        tab.model.policy(r).rule.startswith("Never log") and tab.model.policy(r).active
        for r in range(tab.model.rowCount())), timeout=10000)
    assert tab.model.rowCount() <= before
    qtbot.waitUntil(lambda: "Never log" not in tab.dispatch.section.toPlainText(), timeout=10000)
