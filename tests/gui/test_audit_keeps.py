"""Issue point 11 on the product-format sample: the recall audit's progress and Cancel are in
its own dialog; closing the dialog keeps the results (until a new run replaces them, which
first offers to save them); Enter on a lost fact opens it and never starts a run."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

pytestmark = [pytest.mark.shared, pytest.mark.slow]


def test_the_audit_keeps_its_results_and_enter_opens_a_fact(open_window, sample_db, qtbot) -> None:
    win = open_window(sample_db, read_only=True)  # read-only: the run is not kept in the workspace, so not saved
    win.act_audit.trigger()
    dialog = win.dialog
    dialog.all_facts.setChecked(True)
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    # progress and Cancel in the dialog itself, while it runs
    qtbot.waitUntil(lambda: dialog.job is not None and dialog.progress.isVisible() and dialog.progress.value() > 0,
                    timeout=60000)
    assert dialog.cancel_button.isVisible() and dialog.cancel_button.isEnabled()
    assert not dialog.run_button.isEnabled()
    assert "of" in dialog.progress.text()
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.report is not None and dialog.job is None, timeout=60000)
    report = dialog.report
    assert report["summary"]["complete"] is False and "stopped" in dialog.summary.text()
    assert not dialog.progress.isVisible() and not dialog.cancel_button.isVisible()
    rows = dialog.model.rowCount()
    assert rows > 0 and dialog.save_button.isEnabled()

    dialog.close()  # closing keeps them
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    win.act_audit.trigger()
    assert win.dialog is dialog and dialog.isVisible()
    assert dialog.report is report and dialog.model.rowCount() == rows and dialog.save_button.isEnabled()

    # Enter on a fact opens it in the Facts tab, and no new run starts
    dialog.facts.setFocus()
    dialog.facts.setCurrentIndex(dialog.model.index(0, 0))
    target = dialog.model.row_at(0)["id"]
    qtbot.keyClick(dialog.facts, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: win.tab("facts").detail.fact_id == target, timeout=15000)
    assert dialog.job is None and dialog.report is report and dialog.run_button.isEnabled()

    # a new run (Alt+R, the button's mnemonic) first offers to save what it would replace
    dialog.activateWindow()
    qtbot.keyClick(dialog, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: dialog.asking is not None and dialog.asking.isVisible(), timeout=5000)
    box = dialog.asking
    assert isinstance(box, QMessageBox) and "not saved" in box.text()
    qtbot.keyClick(box, Qt.Key.Key_Escape)  # Cancel: nothing replaced
    qtbot.waitUntil(lambda: dialog.asking is None, timeout=5000)
    assert dialog.job is None and dialog.report is report
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.asking is not None, timeout=5000)
    dialog.asking.findChild(type(dialog.run_button), "audit-replace-yes").click()
    qtbot.waitUntil(lambda: dialog.job is not None, timeout=5000)
    dialog.cancel_run()
    qtbot.waitUntil(lambda: dialog.job is None and dialog.report is not report, timeout=60000)
    dialog.close()


def test_another_workspace_gets_its_own_audit(open_window, sample_db, tmp_path, qtbot) -> None:
    import desk_sample

    from memorydesk.store import open_workspace

    win = open_window(sample_db)
    win.act_audit.trigger()
    first = win.dialog
    win.set_workspace(open_workspace(desk_sample.build(tmp_path / "other.db")))
    qtbot.waitUntil(lambda: win.ops.pending == 0, timeout=15000)
    qtbot.mouseClick(first.run_button, Qt.MouseButton.LeftButton)  # the old one refuses, and says why
    assert first.job is None and "is closed" in first.summary.text() and not first.run_button.isEnabled()
    win.act_audit.trigger()
    assert win.dialog is not first and win.dialog.session is win.session and win.dialog.run_button.isEnabled()
    win.dialog.close()
