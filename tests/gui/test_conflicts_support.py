"""Support staff's job in the Conflicts tab, told truthfully (issue points 12 and 13): a
forgotten fact can be brought back whatever happened to its winner, and the trail says
what the restore will do and, after it, what is true; a filter that drops the shown
conflict drops its trail; the list keeps a dozen rows at 1280×800 and its splitter can
be grabbed; the dialogs speak plainly; Save suggests a file name."""

from __future__ import annotations

from pathlib import Path

import sqlean
from conflicts_sample import ready, row_of, settle, show, workspace  # noqa: F401 - a fixture
from guihelp import wait_idle
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QFileDialog
from test_conflicts_tab import decide


def product_deletes(path: Path, fact_id: str) -> None:
    """The product deletes a fact for real (its own plain SQL; the conflict row stays: dangling)."""
    conn = sqlean.connect(str(path), isolation_level=None)
    try:
        conn.execute("DELETE FROM memory_facts_table WHERE id = ?", (fact_id,))
    finally:
        conn.close()


def test_restore_loser_works_when_the_winner_no_longer_exists(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    _v1, v2, v3 = ids["chain"]
    product_deletes(path, v3)
    win = open_window(path)
    tab = ready(qtbot, win)
    row = row_of(tab, v2, v3)
    assert tab.model.line(row).dangling
    trail = show(qtbot, win, tab, row)
    text = tab.trail.toPlainText()
    assert trail.restore.possible and tab.acts.restore.isEnabled()
    assert "Restore Loser (Ctrl+R) will" in text
    assert "A becomes active again. B, which replaced it, no longer exists (the product deleted it), so nothing " \
           "else changes." in text
    assert "A — lost, superseded by B" in text
    assert f"fact:{v3}" not in tab.trail.toHtml()  # no link to a fact that is not there
    tab.acts.restore.trigger()
    qtbot.waitUntil(lambda: tab.acts.dialog is not None and tab.acts.dialog.isVisible(), timeout=5000)
    words = tab.acts.dialog.findChild(type(tab.acts.dialog.problem), "explanation").text()
    assert "no longer exists" in words and "DESIGN" not in words  # what it does, in plain words
    tab.acts.dialog.reject()
    qtbot.waitUntil(lambda: tab.acts.dialog is None, timeout=5000)
    decide(qtbot, win, tab, tab.acts.restore, "the winner was deleted; v2 still holds")
    qtbot.waitUntil(lambda: tab.trail.trail is not None and tab.trail.trail.a.state == "active",
                    timeout=10000)
    text = tab.trail.toPlainText()
    assert "A — lost, now active again" in text and "A — lost, superseded by B" not in text  # true now
    assert text.startswith("Contradiction · superseded · loser restored · ")  # as the list says it
    assert "the winner was deleted; v2 still holds" in text
    assert not tab.acts.restore.isEnabled()


def test_the_facts_tab_restores_a_fact_whose_replacement_is_gone(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    _v1, v2, v3 = ids["chain"]
    product_deletes(path, v3)
    win = open_window(path)
    facts = win.tab("facts")
    facts.select_fact(v2)
    qtbot.waitUntil(lambda: [f.id for f in facts.selected_facts()] == [v2], timeout=10000)
    assert facts.selected_facts()[0].state() == "superseded"
    assert facts.act_restore.isEnabled()  # today: "Select deleted facts to restore them"


def test_restore_after_the_winner_moved_on_says_which_version_it_supersedes(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    v1, v2, v3 = ids["chain"]
    win = open_window(path)
    tab = ready(qtbot, win)
    show(qtbot, win, tab, row_of(tab, v1, v2))
    assert tab.acts.restore.isEnabled()
    assert f"A becomes active again, and {v3[:8]}… — the version of B in force now — is superseded by it." in \
        tab.trail.toPlainText()
    assert "A — lost, superseded by B" in tab.trail.toPlainText()
    assert "B — won; now superseded by" in tab.trail.toPlainText()


def test_a_filter_that_drops_the_shown_conflict_clears_its_trail(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    win = open_window(path)
    tab = ready(qtbot, win)
    show(qtbot, win, tab, row_of(tab, *ids["pair"]))  # an open cross-agent pair
    tab.filters.type.setCurrentIndex(tab.filters.type.findData("contradiction"))
    settle(qtbot, win, tab)
    qtbot.waitUntil(lambda: tab.trail.trail is None, timeout=5000)
    assert "Select a conflict" in tab.trail.toPlainText()
    assert not tab.acts.keep_both.isEnabled()
    v1, v2, _v3 = ids["chain"]
    show(qtbot, win, tab, row_of(tab, v1, v2))
    tab.filters.text.setText("staging region")  # it stays in the list: so does its trail
    tab.filters.text.returnPressed.emit()
    settle(qtbot, win, tab)
    assert tab.trail.trail is not None and tab.trail.trail.a.id == v1
    assert tab.selected_line() is not None and tab.selected_line().fact_a == v1


def test_the_list_keeps_a_dozen_rows_and_the_splitter_can_be_grabbed(open_window, workspace, qtbot) -> None:
    path, _ids = workspace
    win = open_window(path)
    win.resize(1280, 800)
    tab = ready(qtbot, win)
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: tab.view.viewport().height() > 0, timeout=5000)
    rows = tab.view.viewport().height() // tab.view.verticalHeader().defaultSectionSize()
    assert rows >= 12, rows
    assert tab.split.handleWidth() >= 6
    handle = tab.split.handle(1)
    assert handle.height() >= 6 and handle.isVisible()
    before = tab.split.sizes()[0]
    middle = handle.rect().center()
    qtbot.mousePress(handle, Qt.MouseButton.LeftButton, pos=middle)
    qtbot.mouseMove(handle, middle + QPoint(0, 60))
    qtbot.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=middle + QPoint(0, 60))
    assert tab.split.sizes()[0] >= before + 40  # dragged down: the list grew


def test_save_suggests_a_file_name(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    win = open_window(path)
    tab = ready(qtbot, win)
    trail = show(qtbot, win, tab, row_of(tab, *ids["pair"]))
    tab.acts.save.trigger()
    qtbot.waitUntil(lambda: isinstance(tab.acts.dialog, QFileDialog) and tab.acts.dialog.isVisible(), timeout=5000)
    dialog = tab.acts.dialog
    name = Path(dialog.selectedFiles()[0]).name
    assert name.startswith("conflict-pr-size-") and trail.conflict.id[:8] in name and name.endswith(".md")
    dialog.reject()
    qtbot.waitUntil(lambda: tab.acts.dialog is None, timeout=5000)


def test_strengths_are_shown_as_a_person_reads_them() -> None:
    from memorydesk.ui.conflicts.trail import strength

    assert strength(0.9 * 0.8, 0.6) == "0.720"  # not 0.7200000000000001
    assert strength(0.8000004, 0.8000001) == "0.8000004"  # as many decimals as tell them apart
    assert strength(0.5, 0.5) == "0.500"
