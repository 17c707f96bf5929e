"""The memory job's finding 11 (Facts tab): a keyword search with the Deleted filter says why it lists
nothing — the agent's keyword search never returns deleted facts — and offers the substring
filter, which finds them."""

from __future__ import annotations

import desk_sample
from guihelp import give_reason, key_dialog, select_topic, topics, wait_idle
from PySide6.QtCore import Qt
from test_facts_search import _search


def test_deleted_facts_are_offered_the_substring_filter(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "topic 5")
    give_reason(qtbot, key_dialog(qtbot, tab, Qt.Key.Key_Delete), "stale")
    wait_idle(qtbot, win)
    tab.filters.state.setCurrentIndex(tab.filters.state.findData("deleted"))
    wait_idle(qtbot, win)
    _search(qtbot, win, "topic")
    bar = tab.filters
    qtbot.waitUntil(lambda: bar.use_substring.isVisible(), timeout=10000)
    assert "keyword search (the agent's) never returns deleted facts" in bar.counts.text()
    assert "substring filter" in bar.counts.text()
    bar.use_substring.click()
    assert bar.match.currentData() == "substring"
    qtbot.waitUntil(lambda: win.ops.pending == 0 and "topic 5" in topics(tab), timeout=20000)
    assert not bar.use_substring.isVisible()
    assert desk_sample.fid(5) in [tab.model.fact(r).id for r in range(tab.model.rowCount())]


def test_active_means_one_thing_and_as_of_counts_what_existed_then(open_window, sample_path, qtbot) -> None:
    """The memory job's finding 11: the Active filter, the status bar and ``fact_state`` agree (an expired
    fact is not active); under As Of the list's total is the facts that existed then."""
    from memorydesk.browse import facts as browse
    from memorydesk.browse.facts import FactQuery
    from memorydesk.ui.facts.model import COLUMNS

    win = open_window(sample_path)
    tab = win.tab("facts")
    wait_idle(qtbot, win)
    listed = [tab.model.fact(r) for r in range(tab.model.rowCount())]
    state = [c for c, _l in COLUMNS].index("state")
    assert all(tab.model.index(r, state).data() == "active" for r in range(tab.model.rowCount()))
    assert "expired one" not in [f.topic for f in listed if f is not None]
    active = browse.count_facts(win.ws, FactQuery(state="active"))
    assert browse.counts(win.ws)["active_facts"] == active == tab.model.rowCount()
    qtbot.waitUntil(lambda: f"({active:,} active)" in win.counts.text(), timeout=10000)

    at = desk_sample.NOW - int(10.5 * desk_sample.HOUR)  # facts 1–10 were not written yet
    existed = browse.count_facts(win.ws, FactQuery(as_of=at))
    assert existed < browse.count_facts(win.ws, FactQuery())
    win.time.set_as_of(at)
    tab.filters.state.setCurrentIndex(tab.filters.state.findData("all"))
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: tab.filters.counts.text() == f"{existed:,} facts", timeout=10000)


def test_enter_and_down_in_the_search_box_move_to_the_results(open_window, sample_path, qtbot) -> None:
    """The memory job's finding 14: Enter (searching at once) and ↓ take the person from the search box to
    the results, the first one selected; Restore and Purge have keys (Ctrl+Shift+R, Shift+Del)."""
    from guihelp import focus

    win = open_window(sample_path)
    tab = win.tab("facts")
    wait_idle(qtbot, win)
    box = tab.filters.search
    focus(qtbot, box)
    qtbot.keyClicks(box, "deploy")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    qtbot.waitUntil(tab.view.hasFocus, timeout=5000)
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: [f.topic for f in tab.selected_facts()] == ["deploy day"], timeout=10000)
    focus(qtbot, box)
    tab.view.clearSelection()
    qtbot.keyClick(box, Qt.Key.Key_Down)
    assert tab.view.hasFocus() and [f.topic for f in tab.selected_facts()] == ["deploy day"]
    assert tab.acts.restore.shortcut().toString() == "Ctrl+Shift+R"
    assert tab.acts.purge.shortcut().toString() == "Shift+Del"


def test_the_deleted_notice_goes_with_the_next_change(open_window, sample_path, qtbot) -> None:
    """The memory job's finding 11: "Deleted … — Check It Is Forgotten" no longer stays after the facts came back."""
    win = open_window(sample_path)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "topic 5")
    give_reason(qtbot, key_dialog(qtbot, tab, Qt.Key.Key_Delete), "stale")
    qtbot.waitUntil(lambda: tab.forget.isVisible() and win.ops.pending == 0, timeout=10000)
    assert "topic 5" in tab.forget.text.text() or "Deleted" in tab.forget.text.text()
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and not tab.forget.isVisible(), timeout=10000)


def test_the_purge_dialog_counts_the_links_it_removes(open_window, sample_path, qtbot) -> None:
    """The memory job's finding 4: purging a fact also deletes its links (and its earlier versions): the
    dialog says so, with the counts."""
    from guihelp import wait_dialog

    win = open_window(sample_path)
    tab = win.tab("facts")
    select_topic(qtbot, tab, "deploy day")  # 30: linked to 1 and from 2; supersedes 29, which supersedes 28
    tab.acts.purge.trigger()
    dialog = wait_dialog(qtbot, tab.acts)
    text = next(w.text() for w in dialog.findChildren(type(dialog.problem)) if w.objectName() == "purge-erases")
    assert "2 earlier versions, 2 links to other facts" in text
    dialog.reject()


def test_why_this_place_is_whole_at_1280(open_window, sample_path, qtbot) -> None:
    """The memory job's finding 14: the agent view's Why this place was cut at 1280 px: the columns its hits
    do not need (State: all in force; Created: in the decay) make room for it."""
    from test_facts_search import QUERY

    from memorydesk.ui.facts.model import column

    win = open_window(sample_path)
    win.resize(1280, 800)
    tab = win.tab("facts")
    _search(qtbot, win, QUERY, agent=True)
    why = column("why")
    assert tab.view.isColumnHidden(column("state")) and tab.view.isColumnHidden(column("created_at"))
    fm = tab.view.fontMetrics()
    texts = [tab.model.index(r, why).data() for r in range(tab.model.rowCount())]
    assert texts and all(fm.horizontalAdvance(t) + 12 <= tab.view.columnWidth(why) for t in texts)
