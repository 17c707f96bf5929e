"""The Facts tab's search on real widgets: the agent's keyword search by default, the agent's
hybrid ranking with explanations ("As the agent sees it", a preview that changes nothing),
keyword-unreachable facts marked, and a list that shows its first rows before it is counted."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import desk_sample
import pytest
from guihelp import fact_at, row_of_topic, topics, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon

from memorydesk.browse import detail as browse_detail
from memorydesk.browse import facts as browse
from memorydesk.search import agent as search
from memorydesk.ui.facts.model import UNREACHABLE_ROLE, WINDOW, column

QUERY = "when do we deploy on wednesday"


def _search(qtbot, win, text: str, agent: bool = False) -> None:
    tab = win.tab("facts")
    tab.filters.agent_view.setChecked(agent)
    wait_idle(qtbot, win)
    tab.filters.search.setText(text)
    qtbot.waitUntil(lambda: not tab.filters._debounce.isActive() and win.ops.pending == 0, timeout=20000)
    wait_idle(qtbot, win)


def _ids(tab) -> list[str]:
    return [tab.model.fact(r).id for r in range(tab.model.rowCount())]


def test_agent_view_shows_the_hybrid_ranking_with_explanations(open_window, sample_path, qtbot,
                                                               qtmodeltester) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    _search(qtbot, win, QUERY, agent=True)
    assert tab.agent_result is not None and tab.model.agent_view
    expected = search.search(win.ws, QUERY, mode="hybrid", now=tab.agent_now)
    assert expected.hits, "the sample must give the hybrid search something to rank"
    assert _ids(tab) == expected.ids  # the agent's order, not the list's sort
    for row, hit in enumerate(expected.hits):
        rank = tab.model.index(row, column("rank"))
        score = tab.model.index(row, column("score"))
        assert tab.model.data(rank) == str(row + 1)
        assert tab.model.data(score) == f"{hit.score:.5f}"
        assert tab.model.data(score, Qt.ItemDataRole.ToolTipRole) == hit.explain()
        assert f"#{hit.voices[next(iter(hit.voices))].rank}" in tab.model.data(tab.model.index(row, column("why")))
    for name in ("rank", "score", "why"):
        assert not tab.view.isColumnHidden(column(name))
    assert not tab.view.horizontalHeader().sectionsClickable()  # the agent's order stays
    assert "agent view" in tab.filters.search_mode.text()
    assert not tab.filters.domain.isEnabled()  # the agent's hits ignore the desk's filters
    qtmodeltester.check(tab.model)

    tab.select_row(1)
    qtbot.waitUntil(lambda: tab.detail.fact_id == expected.hits[1].id and win.ops.pending == 0, timeout=10000)
    why = tab.detail.why.text()
    hit = expected.hits[1]
    assert "#2</b> of the" in why and f"intent <b>{expected.intent}</b>" in why
    assert f"{hit.score:.6f}" in why and f"{hit.decay_factor:.3f}" in why and f"{hit.confidence_factor:.3f}" in why
    assert tab.detail.pages.isTabVisible(0) and tab.detail.pages.currentIndex() == 0

    tab.filters.agent_view.setChecked(False)  # back to the agent's keyword search, as a filtered list
    wait_idle(qtbot, win)
    assert not tab.model.agent_view
    assert tab.view.isColumnHidden(column("why")) and tab.view.isColumnHidden(column("mmr"))
    assert tab.model.ranked and not tab.view.isColumnHidden(column("rank"))  # the keyword search's own rank
    assert tab.view.horizontalHeader().sectionsClickable() and not tab.detail.pages.isTabVisible(0)
    keyword = search.keyword_search(win.ws, QUERY, limit=200)
    assert sorted(_ids(tab)) == sorted(keyword.ids)


def test_agent_view_is_a_preview_that_records_no_recall(open_window, sample_path, qtbot) -> None:
    before = hashlib.sha256(sample_path.read_bytes()).hexdigest()
    win = open_window(sample_path, read_only=True)
    tab = win.tab("facts")
    recalls = {r.id: r.recall_count for r in browse.fact_rows(win.ws, browse.FactQuery(), 0, 100)}
    _search(qtbot, win, QUERY, agent=True)
    assert tab.model.rowCount() > 0
    for row in range(tab.model.rowCount()):
        fact = browse_detail.fact_detail(win.ws, tab.model.fact(row).id)
        assert fact.recall_count == recalls[fact.id] and fact.last_recalled_at is None
    win.close()
    assert hashlib.sha256(sample_path.read_bytes()).hexdigest() == before


def test_agent_view_leaves_recall_counts_alone_when_writable(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    recalls = {r.id: r.recall_count for r in browse.fact_rows(win.ws, browse.FactQuery(), 0, 100)}
    _search(qtbot, win, QUERY, agent=True)
    _search(qtbot, win, "deploy day", agent=True)
    after = {r.id: r.recall_count for r in browse.fact_rows(win.ws, browse.FactQuery(), 0, 100)}
    assert after == recalls


def test_hebrew_query_finds_nothing_by_keyword_and_says_so(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    _search(qtbot, win, "שמירת")
    assert tab.model.rowCount() == 0  # no silent fallback to a substring match
    assert tab.filters.note.isVisible()
    assert "the agent's keyword search finds nothing for this text" in tab.filters.note.text().lower()
    tab.filters.match.setCurrentIndex(tab.filters.match.findData("substring"))
    wait_idle(qtbot, win)
    assert topics(tab) == ["הגדרות"]
    assert tab.filters.search_mode.text() == "substring filter" and not tab.filters.note.isVisible()
    assert "Agents never search this way" in tab.filters.search_mode.toolTip()


def test_agent_view_of_a_hebrew_query_still_ranks_and_explains(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    _search(qtbot, win, "שמירת", agent=True)
    expected = search.search(win.ws, "שמירת", mode="hybrid", now=tab.agent_now)
    assert _ids(tab) == expected.ids
    assert "no keyword terms" in tab.filters.note.text()  # the result's notes, on screen


def test_unreachable_facts_are_marked(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    state = column("state")
    hebrew = row_of_topic(tab, "הגדרות")
    plain = row_of_topic(tab, "topic 1")
    index = tab.model.index(hebrew, state)
    assert tab.model.data(index, UNREACHABLE_ROLE) is True
    assert isinstance(tab.model.data(index, Qt.ItemDataRole.DecorationRole), QIcon)
    assert "Keyword search can never return this fact" in tab.model.data(index, Qt.ItemDataRole.ToolTipRole)
    assert tab.model.data(index, Qt.ItemDataRole.BackgroundRole) is not None
    assert tab.model.data(tab.model.index(plain, state), UNREACHABLE_ROLE) is False
    assert tab.model.data(tab.model.index(plain, state), Qt.ItemDataRole.DecorationRole) is None
    unreachable = set(search.unreachable_fact_ids(win.ws))
    marked = {tab.model.fact(r).id for r in range(tab.model.rowCount())
              if tab.model.data(tab.model.index(r, state), UNREACHABLE_ROLE)}
    assert marked == unreachable == {desk_sample.fid(24)}

    tab.select_row(hebrew)
    qtbot.waitUntil(lambda: tab.detail.fact_id == desk_sample.fid(24) and win.ops.pending == 0, timeout=10000)
    assert tab.detail.unreachable.isVisible()
    assert tab.detail.values["keyword_reachable"].text().startswith("unreachable")
    tab.select_row(plain)
    qtbot.waitUntil(lambda: tab.detail.fact_id == desk_sample.fid(1) and win.ops.pending == 0, timeout=10000)
    assert not tab.detail.unreachable.isVisible()
    assert tab.detail.values["keyword_reachable"].text() == "reachable"


@pytest.fixture
def gate(monkeypatch):
    """Hold every ``browse.fact_keys`` call (the whole list, the slow part) until released."""
    release = threading.Event()
    entered = threading.Event()
    real = browse.fact_keys

    def held(ws, q):
        entered.set()
        release.wait(30)
        return real(ws, q)

    monkeypatch.setattr(browse, "fact_keys", held)
    yield entered, release
    release.set()


@pytest.fixture
def many_path(tmp_path: Path) -> Path:
    return desk_sample.build(tmp_path / "many.db", [desk_sample.fact(n) for n in range(1, 2 * WINDOW + 51)])


def test_first_window_shows_before_the_count(qtbot, qapp, many_path, gate, qtmodeltester) -> None:
    from memorydesk.store import open_workspace
    from memorydesk.ui.shell.mainwindow import MainWindow

    entered, release = gate
    win = MainWindow(open_workspace(many_path, read_only=True))
    qtbot.addWidget(win)
    win.show()
    tab = win.tab("facts")
    qtbot.waitUntil(lambda: tab.model.rowCount() == WINDOW and entered.is_set(), timeout=10000)
    assert not tab.model.count_known()  # the whole list is still being read
    assert tab.model.fact(0).topic == "topic 1"  # newest written first
    assert "counting…" in tab.filters.counts.text() and tab.filters.busy.isVisibleTo(tab)
    qtmodeltester.check(tab.model)
    tab.select_row(3)
    release.set()
    qtbot.waitUntil(tab.model.count_known, timeout=10000)
    wait_idle(qtbot, win)
    assert tab.model.rowCount() == 2 * WINDOW + 50
    assert tab.selected_rows() == [3]  # the rest was added below: nothing jumped
    assert tab.filters.counts.text() == f"{2 * WINDOW + 50:,} facts" and not tab.filters.busy.isVisibleTo(tab)
    assert fact_at(qtbot, tab, 2 * WINDOW + 49).topic == f"topic {2 * WINDOW + 50}"
    qtmodeltester.check(tab.model)
    win.close()


def test_sorting_runs_in_the_background_with_the_old_rows_shown(open_window, many_path, qtbot, gate) -> None:
    entered, release = gate
    release.set()
    win = open_window(many_path)
    tab = win.tab("facts")
    release.clear()
    entered.clear()
    before = tab.model.rowCount()
    tab.view.sortByColumn(column("confidence"), Qt.SortOrder.AscendingOrder)
    qtbot.waitUntil(entered.is_set, timeout=10000)
    assert tab.filters.counts.text() == "sorting by confidence…" and tab.filters.busy.isVisibleTo(tab)
    assert tab.model.rowCount() == before and tab.model.fact(0).topic == "topic 1"  # still usable meanwhile
    release.set()
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: not tab.filters.busy.isVisibleTo(tab), timeout=10000)
    values = [fact_at(qtbot, tab, r).confidence for r in range(tab.model.rowCount())]
    assert values == sorted(values)
    tab.view.sortByColumn(-1, Qt.SortOrder.DescendingOrder)  # indicator cleared: the order written
    wait_idle(qtbot, win)
    assert [tab.model.key_at(r) for r in range(5)] == sorted(browse.fact_keys(win.ws, tab.query), reverse=True)[:5]


def test_a_link_followed_from_the_agent_view_leaves_it(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    _search(qtbot, win, QUERY, agent=True)
    outside = next(f"topic {n}" for n in range(20, 0, -1)
                   if desk_sample.fid(n) not in {tab.model.fact(r).id for r in range(tab.model.rowCount())})
    fact_id = desk_sample.fid(int(outside.split()[1]))
    tab.detail.open_fact.emit(fact_id)
    qtbot.waitUntil(lambda: tab.detail.fact_id == fact_id and win.ops.pending == 0, timeout=10000)
    assert not tab.filters.agent_view.isChecked() and not tab.model.agent_view
    assert [f.id for f in tab.selected_facts()] == [fact_id]


def test_the_search_box_says_what_a_search_does_now(open_window, sample_path, qtbot) -> None:
    """The placeholder follows the match and the agent view: never "keyword search" over a substring filter."""
    win = open_window(sample_path)
    box = win.tab("facts").filters
    assert "keyword search" in box.search.placeholderText()
    box.match.setCurrentIndex(box.match.findData("substring"))
    assert "keyword" not in box.search.placeholderText() and "Filter facts by text" in box.search.placeholderText()
    qtbot.mouseClick(box.agent_view, Qt.MouseButton.LeftButton)
    assert box.agent_view.isChecked() and "hybrid search" in box.search.placeholderText()
    qtbot.mouseClick(box.agent_view, Qt.MouseButton.LeftButton)
    assert "Filter facts by text" in box.search.placeholderText()
    box.reset()
    assert "keyword search" in box.search.placeholderText()
    wait_idle(qtbot, win)
