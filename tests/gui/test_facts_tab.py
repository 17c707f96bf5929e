"""The Facts tab on real widgets: list, filters, sort, detail, and every reviewer action."""

from __future__ import annotations

import desk_sample
from guihelp import (
    facts_dialog,
    focus,
    give_reason,
    key_dialog,
    row_of_topic,
    select_topic,
    topics,
    wait_dialog,
    wait_idle,
)
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QLabel, QStyleOptionViewItem

from memorydesk.browse import detail as browse_detail
from memorydesk.ui.facts.model import COLUMNS, column


def test_window_title_tabs_and_counts(open_window, sample_path) -> None:
    win = open_window(sample_path)
    assert "sample" in win.windowTitle() and "read-write" in win.windowTitle()
    names = [win.tabs.tabText(i) for i in range(win.tabs.count())]
    assert names == ["Facts", "Policies", "Knowledge Graph", "Grants", "Conflicts", "Lineage", "History", "Review"]
    assert "30 facts (25 active)"  # the expired one is not active in win.counts.text()
    assert "3 policies (2 active)" in win.counts.text()
    assert win.live.text() == "● live"


def test_models_pass_the_model_tester(open_window, sample_path, qtmodeltester, qtbot) -> None:
    win = open_window(sample_path)
    qtmodeltester.check(win.tab("facts").model)
    qtbot.waitUntil(lambda: win.show_tab("policies").model.rowCount() == 3)
    qtmodeltester.check(win.show_tab("policies").model)


def test_default_list_hides_superseded_and_deleted(open_window, sample_path, qtbot) -> None:
    tab = open_window(sample_path).tab("facts")
    assert tab.model.rowCount() == 25
    assert "25 of 30 facts" in tab.filters.counts.text() and "5 hidden" in tab.filters.counts.text()
    assert "deleted one" not in topics(tab)
    assert topics(tab)[0] == "topic 1"  # newest first


def test_the_counts_stay_whole_in_a_narrow_window(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    counts = tab.filters.counts
    for width, wraps in ((900, True), (1280, False)):
        win.resize(width, 600)
        qtbot.waitUntil(lambda w=width: tab.filters.width() <= w)
        qtbot.waitUntil(lambda wr=wraps: counts.wordWrap() is wr)
        right = counts.mapTo(tab.filters, counts.rect().topRight()).x()
        assert right < tab.filters.width()  # nothing past the bar's edge
        flags = int(Qt.TextFlag.TextWordWrap) if wraps else 0

        def whole() -> bool:
            text = counts.fontMetrics().boundingRect(QRect(0, 0, counts.width(), 10_000), flags, counts.text())
            return text.width() <= counts.width() and text.height() <= counts.height()

        qtbot.waitUntil(whole, timeout=3000)  # every line of "N of M facts · K hidden" shows, once laid out


def test_filters_narrow_the_list(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    f = tab.filters

    def choose(box, value) -> None:
        box.setCurrentIndex(box.findData(value))
        wait_idle(qtbot, win)

    choose(f.state, "deleted")
    assert topics(tab) == ["deleted one"]
    choose(f.state, "superseded")
    assert sorted(topics(tab)) == ["cleanup", "deploy day", "deploy day"]
    choose(f.state, "expired")
    assert topics(tab) == ["expired one"]
    choose(f.state, "all")
    assert tab.model.rowCount() == 30
    choose(f.domain, "repo:acme-web/*")
    assert sorted(topics(tab)) == ["button colour", "terraform"]
    choose(f.domain, "*/frontend")
    assert sorted(topics(tab)) == ["button colour", "lint"]
    choose(f.domain, None)
    choose(f.memory_type, "event")
    assert topics(tab) == ["cleanup"]  # stored as "EVENT"
    choose(f.memory_type, None)
    choose(f.embedding, True)
    assert topics(tab) == ["deploy day"]
    f.reset()
    wait_idle(qtbot, win)
    assert tab.model.rowCount() == 25


def test_search_box_filters(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    qtbot.keyClicks(tab.filters.search, "wednesday")
    qtbot.waitUntil(lambda: tab.model.rowCount() == 1 and win.ops.pending == 0)
    assert topics(tab) == ["deploy day"]
    assert tab.filters.search_mode.text()
    tab.filters.search.clear()
    qtbot.waitUntil(lambda: tab.model.rowCount() == 25 and win.ops.pending == 0)


def test_header_click_sorts(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    column = [name for name, _label in COLUMNS].index("confidence")
    tab.view.sortByColumn(column, Qt.SortOrder.AscendingOrder)
    wait_idle(qtbot, win)
    values = [tab.model.fact(r).confidence for r in range(tab.model.rowCount())]
    assert values == sorted(values)
    tab.view.sortByColumn(column, Qt.SortOrder.DescendingOrder)
    wait_idle(qtbot, win)
    values = [tab.model.fact(r).confidence for r in range(tab.model.rowCount())]
    assert values == sorted(values, reverse=True)


def test_detail_shows_chain_conflicts_edges_and_decay(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "deploy day")
    d = tab.detail
    assert d.fact_id == desk_sample.fid(30)
    assert d.values["state"].text() == "active"
    assert d.values["embedding_bytes"].text() == "1536 bytes"
    assert d.chain.text().count("deploy day") == 2 and "this fact" in d.chain.text()
    assert "winner" in d.conflicts.text()
    assert d.edges.text().count("related_to") == 2
    assert "half-life" in d.decay.caption.text()
    assert d.content.toPlainText() == "we deploy on wednesday"


def test_hebrew_cells_are_laid_out_right_to_left(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    row = row_of_topic(tab, "הגדרות")
    option = QStyleOptionViewItem()
    tab.view.itemDelegate().initStyleOption(option, tab.model.index(row, column("topic")))
    assert option.direction == Qt.LayoutDirection.RightToLeft
    option = QStyleOptionViewItem()
    tab.view.itemDelegate().initStyleOption(option, tab.model.index(row, column("domain")))
    assert option.direction == Qt.LayoutDirection.LeftToRight  # "product" is Latin
    select_topic(qtbot, tab, "הגדרות")
    assert tab.detail.title.layoutDirection() == Qt.LayoutDirection.RightToLeft


def _confirm(qtbot, tab, reason: str = "checked with the team") -> None:
    give_reason(qtbot, wait_dialog(qtbot, tab), reason)


def test_edit_supersedes_through_the_dialog(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "topic 3")
    dialog = key_dialog(qtbot, tab, Qt.Key.Key_F2)
    assert dialog.topic.text() == "topic 3"
    dialog.content.setPlainText("corrected content of fact 3")
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    assert dialog.isVisible() and "Say why" in dialog.problem.text()  # an empty reason is refused in place
    dialog.reason.setText("was wrong")
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.detail.content.toPlainText() == "corrected content of fact 3",
                    timeout=20000)
    old = browse_detail.fact_detail(win.ws, desk_sample.fid(3))
    assert old.state == "superseded"
    new = browse_detail.fact_detail(win.ws, old.superseded_by)
    assert new.content == "corrected content of fact 3" and new.veracity == "stated"
    assert tab.model.rowCount() == 25  # one superseded, one new: nothing created beside the edit
    assert [f.id for f in tab.selected_facts()] == [new.id]  # the new version is selected and shown
    qtbot.waitUntil(lambda: "edit by" in tab.detail.history.text(), timeout=10000)
    assert "“was wrong”" in tab.detail.history.text()


def test_edit_refuses_empty_fields(open_window, sample_path, qtbot) -> None:
    tab = open_window(sample_path).tab("facts")
    select_topic(qtbot, tab, "topic 4")
    tab.act_edit.trigger()
    dialog = wait_dialog(qtbot, tab)
    dialog.topic.setText("   ")
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    assert dialog.isVisible() and "Topic" in dialog.problem.text()
    dialog.reject()


def test_delete_restore_undo_redo(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    tab.select_row(row_of_topic(tab, "topic 5"))
    tab.view.selectionModel().select(tab.model.index(row_of_topic(tab, "topic 6"), 0),
                                     tab.view.selectionModel().SelectionFlag.Select
                                     | tab.view.selectionModel().SelectionFlag.Rows)
    assert len(tab.selected_facts()) == 2
    focus(qtbot, tab.view)
    qtbot.keyClick(tab.view, Qt.Key.Key_Delete)
    _confirm(qtbot, tab)
    qtbot.waitUntil(lambda: tab.model.rowCount() == 23 and win.ops.pending == 0, timeout=10000)
    assert browse_detail.fact_detail(win.ws, desk_sample.fid(5)).state == "deleted"

    focus(qtbot, tab.view)
    qtbot.keyClick(tab.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # one undo: the whole delete
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.model.rowCount() == 25, timeout=10000)
    assert browse_detail.fact_detail(win.ws, desk_sample.fid(5)).state == "active"
    assert browse_detail.fact_detail(win.ws, desk_sample.fid(6)).state == "active"
    qtbot.keyClick(tab.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.model.rowCount() == 23, timeout=10000)

    tab.filters.state.setCurrentIndex(tab.filters.state.findData("deleted"))
    wait_idle(qtbot, win)
    tab.view.selectAll()
    assert tab.act_restore.isEnabled() and not tab.act_edit.isEnabled()
    tab.act_restore.trigger()
    _confirm(qtbot, tab)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.model.rowCount() == 0, timeout=10000)
    for n in (5, 6, 25):
        assert browse_detail.fact_detail(win.ws, desk_sample.fid(n)).state == "active"


def test_purge_needs_the_topic_typed(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab, dialog = facts_dialog(qtbot, win, "topic 7", "act_purge")
    assert not dialog.purge.isEnabled()
    qtbot.keyClicks(dialog.typed, "topic")
    assert not dialog.purge.isEnabled()
    qtbot.keyClicks(dialog.typed, " 7")
    assert dialog.purge.isEnabled()
    dialog.reason.setText("personal data")
    qtbot.mouseClick(dialog.purge, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.model.rowCount() == 24, timeout=10000)
    assert browse_detail.fact_detail(win.ws, desk_sample.fid(7)) is None or \
        browse_detail.fact_detail(win.ws, desk_sample.fid(7)).content != "content of fact 7"


def test_purge_lists_the_backups_holding_the_text_and_erases_it_there(open_window, sample_path, qtbot) -> None:
    from memorydesk.store import files

    backup = files.backup_copy(sample_path)  # made before the purge: it holds the fact's text
    assert b"content of fact 8" in backup.read_bytes()
    win = open_window(sample_path)
    tab, dialog = facts_dialog(qtbot, win, "topic 8", "act_purge")
    assert backup.name in dialog.findChild(QLabel, "backups").text()
    assert dialog.backups.isVisible() and dialog.backup_action() == "erase"
    qtbot.keyClicks(dialog.typed, "topic 8")
    dialog.reason.setText("personal data")
    qtbot.mouseClick(dialog.purge, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.model.rowCount() == 24, timeout=10000)
    assert f"erased its rows from backup {backup.name}" in win.notice.text.text()  # long: whole above the tabs
    assert b"content of fact 8" not in backup.read_bytes()
    assert b"content of fact 9" in backup.read_bytes()  # the rest of the backup stays


def test_errors_arrive_in_one_place(open_window, sample_path, qtbot) -> None:
    from memorydesk.core.errors import StaleEdit

    win = open_window(sample_path)

    def boom() -> None:
        raise StaleEdit("an agent changed fact X since you opened it")

    with qtbot.waitSignal(win.ops.failed, timeout=5000) as blocker:
        win.ops.run(boom, label="editing")
    assert blocker.args == ["editing", "an agent changed fact X since you opened it"]
    assert "an agent changed fact X" in win.statusBar().currentMessage()
    assert win.error_box is not None and "an agent changed" in win.error_box.text()
    win.error_box.close()
