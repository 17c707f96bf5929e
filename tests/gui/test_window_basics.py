"""What a person expects of any desktop window: help, about, quit, clear errors, a layout
that holds at 900×600 and keeps its place."""

from __future__ import annotations

import desk_sample
from guihelp import focus, row_of_topic, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QTextBrowser

from memorydesk import __version__
from memorydesk.ui.facts.model import COLUMNS


def test_f1_lists_the_keyboard_shortcuts(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    focus(qtbot, win.tab("facts").view)
    qtbot.keyClick(win.tab("facts").view, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: win.dialog is not None and win.dialog.isVisible())
    shown = win.dialog.findChild(QTextBrowser, "shortcuts-text").toPlainText()
    for what in ("Undo", "Find Facts", "Quit", "Edit", "Delete", "Keyboard Shortcuts"):
        assert what in shown, what
    assert "Ctrl+Q" in shown and "F2" in shown
    win.dialog.reject()


def test_about_names_every_version(open_window, sample_path, qtbot) -> None:
    import sqlean

    win = open_window(sample_path)
    win.act_about.trigger()
    box = win.dialog
    assert isinstance(box, QMessageBox) and box.isVisible()
    for piece in (f"Memory Desk {__version__}", "Qt", "PySide6", sqlean.sqlite_version, "sqlite-vec",
                  "all-MiniLM-L6-v2"):
        assert piece in box.text(), piece
    box.accept()


def test_the_guide_shows_the_user_guide_and_the_command_line_by_section(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    win.show_guide("The command line")
    guide = win.dialog
    titles = [guide.index.item(i).text() for i in range(guide.index.count())]
    assert "The command line" in titles and "Opening a product database safely" in titles and "Exit codes" in titles
    assert guide.index.currentItem().text() == "The command line"
    assert "memory-desk check" in guide.text.toPlainText()
    guide.reject()


def test_quit_closes_the_window_and_the_workspace(open_window, sample_path, qtbot, monkeypatch) -> None:
    from PySide6.QtWidgets import QApplication

    quits: list[int] = []
    monkeypatch.setattr(QApplication, "quit", staticmethod(lambda: quits.append(1)))  # the test's app stays up
    win = open_window(sample_path)
    assert win.act_quit.shortcut().toString() == "Ctrl+Q"
    ws = win.ws
    win.act_quit.trigger()
    assert not win.isVisible() and quits == [1]
    assert win.ops.pending == 0 and not win.ops.running
    assert ws.engine.pool.checkedout() == 0


def test_the_detail_pane_clears_when_its_fact_leaves_the_list(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    tab.select_row(row_of_topic(tab, "topic 4"))
    qtbot.waitUntil(lambda: tab.detail.fact_id == desk_sample.fid(4), timeout=10000)
    tab.filters.set_search("wednesday")  # a search whose hits do not include it
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: tab.detail.fact_id is None, timeout=10000)
    assert tab.detail.title.text() == "Select a fact to see everything about it."


def test_columns_stay_readable_at_900_by_600(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    win.resize(900, 600)
    qtbot.waitUntil(lambda: win.width() == 900)
    tab = win.tab("facts")
    view = tab.view
    qtbot.waitUntil(lambda: view.columnWidth(2) > 0)
    widths = {name: view.columnWidth(i) for i, (name, _l) in enumerate(COLUMNS) if not view.isColumnHidden(i)}
    assert widths["content"] >= 200 and widths["domain"] >= 100 and widths["topic"] >= 110
    assert sum(widths.values()) <= view.viewport().width()  # no sideways scrolling to reach a column
    win.resize(1600, 900)
    qtbot.waitUntil(lambda: view.viewport().width() > 1400)
    wide = {name: view.columnWidth(i) for i, (name, _l) in enumerate(COLUMNS) if not view.isColumnHidden(i)}
    assert wide["content"] - widths["content"] > wide["domain"] - widths["domain"]  # content takes the slack
    assert "mention_count" in wide  # back when there is room


def test_the_policies_splitter_keeps_its_place_while_a_task_is_typed(open_window, sample_path, qtbot) -> None:
    from PySide6.QtWidgets import QSplitter

    win = open_window(sample_path)
    tab = win.show_tab("policies")
    wait_idle(qtbot, win)
    split = tab.findChild(QSplitter, "policies-split")
    before = split.sizes()
    qtbot.keyClicks(tab.dispatch.task, "Deploy the billing service and rotate every secret before Friday")
    qtbot.waitUntil(lambda: tab.dispatch.preview_size.text() != "" and win.ops.pending == 0, timeout=10000)
    qtbot.wait(400)  # the preview's debounce
    wait_idle(qtbot, win)
    assert split.sizes() == before
