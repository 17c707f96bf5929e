"""Issue point 7: the Facts tab's keyword search lists its hits in the product's rank order
(what `memory-desk search --mode keyword` prints, on the product-format sample), with a
Rank column; sorting by another column still works and says so; the counts agree with
the list."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from guihelp import fact_at, wait_idle
from PySide6.QtCore import Qt

from memorydesk.browse import facts as browse
from memorydesk.ui.facts.model import column

pytestmark = pytest.mark.shared


def cli_order(path, query: str) -> list[str]:
    out = subprocess.run([sys.executable, "-m", "memorydesk", "search", str(path), query, "--mode", "keyword",
                          "--limit", "200", "--json"], capture_output=True, text=True, timeout=120, check=True)
    return [hit["id"] for hit in json.loads(out.stdout)]


def search(qtbot, win, text: str):
    tab = win.tab("facts")
    tab.filters.search.setText(text)
    qtbot.waitUntil(lambda: not tab.filters._debounce.isActive() and win.ops.pending == 0, timeout=20000)
    wait_idle(qtbot, win)
    return tab


def listed(qtbot, tab) -> list[str]:
    return [fact_at(qtbot, tab, r).id for r in range(tab.model.rowCount())]


@pytest.mark.slow
def test_keyword_hits_come_in_the_products_rank_order(open_window, sample_db, qtbot) -> None:
    expected = {q: cli_order(sample_db, q) for q in ("ADR 0007", "deploy", "postgres migration")}
    assert len(expected["deploy"]) > 2 and len(expected["postgres migration"]) > 2
    win = open_window(sample_db)
    for query, ids in expected.items():
        tab = search(qtbot, win, query)
        assert listed(qtbot, tab) == ids, query  # the agent's order, best first
        rank = column("rank")
        assert not tab.view.isColumnHidden(rank) and not tab.view.isColumnHidden(column("score"))
        assert [tab.model.index(r, rank).data() for r in range(tab.model.rowCount())] == \
            [str(i + 1) for i in range(len(ids))]
        header = tab.view.horizontalHeader()
        assert header.sortIndicatorSection() == rank
        assert header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
        n = len(ids)
        assert tab.filters.search_mode.text() == f"keyword · {n} hit{'s' if n != 1 else ''}"
        assert tab.filters.counts.text() == f"{n} hit{'s' if n != 1 else ''} listed"  # the same number

    # another column still sorts the hits, visibly; the Rank column keeps each hit's place
    tab = search(qtbot, win, "deploy")
    ranks = {fid: i + 1 for i, fid in enumerate(expected["deploy"])}
    tab.view.sortByColumn(column("topic"), Qt.SortOrder.AscendingOrder)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.query.sort == "topic", timeout=20000)
    wait_idle(qtbot, win)
    ids = listed(qtbot, tab)
    topics = [fact_at(qtbot, tab, r).topic for r in range(tab.model.rowCount())]
    assert sorted(ids) == sorted(expected["deploy"]) and topics == sorted(topics) and ids != expected["deploy"]
    assert tab.view.horizontalHeader().sortIndicatorSection() == column("topic")
    assert "sorted by topic" in tab.filters.search_mode.text()
    assert [tab.model.index(r, column("rank")).data() for r in range(len(ids))] == [str(ranks[i]) for i in ids]
    # and the Rank column brings the agent's order back
    tab.view.sortByColumn(column("rank"), Qt.SortOrder.AscendingOrder)
    qtbot.waitUntil(lambda: win.ops.pending == 0 and tab.query.sort == browse.RANK, timeout=20000)
    wait_idle(qtbot, win)
    assert listed(qtbot, tab) == expected["deploy"]


def test_counts_say_how_many_hits_the_filters_hide(open_window, sample_db, qtbot) -> None:
    win = open_window(sample_db)
    tab = search(qtbot, win, "deploy")
    n = tab.model.rowCount()
    assert n > 2 and tab.filters.counts.text() == f"{n} hits listed"
    tab.filters.state.setCurrentIndex(tab.filters.state.findData("deleted"))  # keyword search finds active facts
    wait_idle(qtbot, win)
    assert tab.model.rowCount() == 0
    assert tab.filters.search_mode.text() == f"keyword · {n} hits"
    said = tab.filters.counts.text()  # the hits the filter hides, and why a deleted fact is never one
    assert said.startswith(f"0 of {n} hits listed · {n} hidden by the filters: ")
    assert "never returns deleted facts" in said and tab.filters.use_substring.isVisible()
    # leaving the search goes back to the order written, and no Rank column
    tab.filters.state.setCurrentIndex(tab.filters.state.findData("active"))
    tab.filters.search.clear()
    qtbot.waitUntil(lambda: not tab.filters._debounce.isActive() and win.ops.pending == 0, timeout=20000)
    wait_idle(qtbot, win)
    assert tab.query.sort == browse.NATURAL and tab.view.isColumnHidden(column("rank"))
    assert tab.view.horizontalHeader().sortIndicatorSection() == -1
