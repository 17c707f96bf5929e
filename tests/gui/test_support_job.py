"""The support staff's job on the real widgets (the findings of the support job, issue 34): the
trail and the History after Restore Loser, decision dialogs and Edit ▸ Undo that tell two facts
apart, a lock-down's undo named whole with its cells, the History's entry numbers and reasons,
the Grants footer under a filter, and names with room to be read."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from conflicts_sample import ready, row_of, settle, show, workspace  # noqa: F401 - a fixture
from guihelp import focus, wait_dialog, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QLabel, QStyleOptionViewItem
from test_conflicts_tab import decide

from fixtures.conflicts import T0, add_agents
from fixtures.product_fixture import build as build_product
from memorydesk.browse import naming
from memorydesk.core.product.grants import ROLES
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace
from memorydesk.ui.conflicts.model import column


def _names(path: Path, a: str, b: str) -> tuple[naming.PairName, naming.PairName]:
    with open_workspace(path, read_only=True) as ws:
        return naming.conflict_names(ws, a, b)


def _history(qtbot, win, text: str):
    tab = win.show_tab("history")
    tab.text.setText(text)  # typed: the list is read again once the typing stops
    qtbot.waitUntil(lambda: not tab._typing.isActive() and tab.count.text() != "reading…"
                    and win.ops.pending == 0 and tab.model.rowCount() > 0, timeout=15000)
    return tab


def test_after_restore_loser_the_trail_and_the_history_tell_what_happened(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    loser, winner = ids["rapid_losers"][0], ids["rapid_winner"]  # bram's newer write lost to ada's rule
    win = open_window(path)
    tab = ready(qtbot, win)
    show(qtbot, win, tab, row_of(tab, loser, winner))
    decide(qtbot, win, tab, tab.acts.restore, "mondays is right")
    qtbot.waitUntil(lambda: tab.model.index(row_of(tab, loser, winner), column("state")).data()
                    == "superseded · loser restored", timeout=10000)
    show(qtbot, win, tab, row_of(tab, loser, winner))
    qtbot.waitUntil(lambda: "taken back" in tab.trail.toPlainText(), timeout=10000)
    text = tab.trail.toPlainText()
    told = text[text.index("What happened since"):text.index("What people did")]
    assert "never superseded" not in told
    assert told.count("by agent bram (its write); taken back on") == 2  # in A's column and in B's
    assert "mondays is right" in told and "Restore Loser" in told

    history = _history(qtbot, win, loser)
    shown = {(e.kind, e.action, e.actor) for e in history.model.rows}
    assert {("fact", "created", "bram"), ("fact", "superseded", "bram"), ("conflict", "restore_loser",
                                                                          win.session.actor)} <= shown


def test_decision_dialogs_and_undo_tell_the_two_facts_apart(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    loser, winner = ids["rapid_losers"][0], ids["rapid_winner"]  # one word apart: mondays / tuesdays
    a, b = _names(path, loser, winner)
    assert "mondays" in a.words and "tuesdays" in b.words and a.author == "bram" and b.author == "ada"
    win = open_window(path)
    tab = ready(qtbot, win)
    show(qtbot, win, tab, row_of(tab, loser, winner))
    for action, says in ((tab.acts.confirm, f"fact B {b.shown} over fact A {a.shown}"),
                         (tab.acts.restore, f"Fact A (the loser) is {a.shown}; fact B (the winner) is {b.shown}")):
        focus(qtbot, tab.view)
        qtbot.keyClick(tab.view, action.shortcut()[0].key(), action.shortcut()[0].keyboardModifiers())
        qtbot.waitUntil(lambda: tab.acts.dialog is not None and tab.acts.dialog.isVisible(), timeout=5000)
        words = tab.acts.dialog.findChild(QLabel, "explanation").text()
        assert html.escape(says) in words, words
        tab.acts.dialog.reject()
        qtbot.waitUntil(lambda: tab.acts.dialog is None, timeout=5000)
    decide(qtbot, win, tab, tab.acts.confirm, "tuesdays it is")
    qtbot.waitUntil(lambda: "Confirm" in win.act_undo.text(), timeout=10000)
    assert win.act_undo.text() == f"&Undo “Confirm {b.short} over {a.short}”"
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: "Confirm" in win.act_redo.text(), timeout=10000)
    assert win.act_redo.text() == f"&Redo “Confirm {b.short} over {a.short}”"


@pytest.fixture
def product_path(tmp_path: Path) -> Path:
    return build_product(tmp_path / "product.db")


DOMAIN = "repo:acme-web/conventions"


def test_a_lock_down_and_its_undo_are_named_whole_and_the_history_shows_the_cells(open_window, product_path,
                                                                                  qtbot) -> None:
    win = open_window(product_path)
    grants = win.show_tab("grants")
    qtbot.waitUntil(lambda: grants.resolved and win.ops.pending == 0, timeout=15000)
    grants.select_cell(grants.model.row_of(DOMAIN), 0)
    focus(qtbot, grants.view)
    qtbot.keyClick(grants.view, Qt.Key.Key_L, Qt.KeyboardModifier.AltModifier)
    box = wait_dialog(qtbot, grants)
    qtbot.keyClicks(box.reason, "audit of conventions")
    qtbot.keyClick(box.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "grant cells" in win.act_undo.text(), timeout=10000)
    assert win.act_undo.text() == (f"&Undo “Set 9 grant cells of {DOMAIN}: 8 from no row to none, "
                                   "1 from read to none”")  # coder's own row read; the others had none
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: "Undone" in win.statusBar().currentMessage(), timeout=10000)
    said = win.statusBar().currentMessage()
    # in the menu's words, whole, not cut
    assert said == f"Undone “Set 9 grant cells of {DOMAIN}: 8 from no row to none, 1 from read to none”"

    history = _history(qtbot, win, "audit of conventions")  # the lock-down (its undo's reason is its own)
    (locked,) = [e for e in history.model.rows if e.action == "set"]
    assert locked.undone_by is not None
    history = _history(qtbot, win, f"#{locked.undone_by}")
    undo_row = next(r for r in range(history.model.rowCount()) if history.model.row_at(r).action == "undo")
    entry = [k for k, _l in history.model.COLUMNS].index("entry")
    assert history.model.index(undo_row, entry).data() == f"#{locked.undone_by}"
    history.view.setCurrentIndex(history.model.index(undo_row, 0))
    qtbot.waitUntil(lambda: "reading…" not in history.detail.toPlainText() and win.ops.pending == 0, timeout=10000)
    detail = history.detail.toPlainText()
    assert "No field of memory changed" not in detail
    assert all(f"grant {r.value} on {DOMAIN}" in detail for r in ROLES)
    assert f"#{locked.undone_by}" in detail and f"undo of entry {locked.history_id}" in detail


def test_the_history_why_column_holds_reasons_only(open_window, product_path, qtbot) -> None:
    win = open_window(product_path)
    history = _history(qtbot, win, "f-01")
    why = [k for k, _l in history.model.COLUMNS].index("why")
    row = next(r for r in range(history.model.rowCount())
               if (history.model.row_at(r).kind, history.model.row_at(r).action) == ("fact", "created"))
    assert history.model.index(row, why).data() == ""  # an agent's write gives no reason
    history.view.setCurrentIndex(history.model.index(row, 0))
    qtbot.waitUntil(lambda: "Details" in history.detail.toPlainText(), timeout=10000)
    detail = history.detail.toPlainText()
    assert "fact, stated" in detail[detail.index("Details"):]
    assert "no reason: written by an agent or the product" in detail


def test_the_grants_footer_counts_what_the_filter_shows(open_window, product_path, qtbot) -> None:
    win = open_window(product_path)
    grants = win.show_tab("grants")
    qtbot.waitUntil(lambda: grants.resolved and win.ops.pending == 0, timeout=15000)
    every = grants.summary.text()
    grants.search.setText("oncall")
    qtbot.waitUntil(lambda: grants.model.rowCount() == 1, timeout=10000)
    wait_idle(qtbot, win)
    # oncall: pm 'admin' and general 'intern' are unknown strings, qa 'READ' an exact row, six roles have none
    assert grants.summary.text() == (f"1 of {len(grants.matrix.domains)} domains · in them: 6 fail-open · "
                                     "0 ambiguous · 2 unknown")
    assert grants.summary.text() != every


def test_a_selected_domain_name_is_whole_at_1920(open_window, product_path, qtbot) -> None:
    win = open_window(product_path)
    win.resize(1920, 1080)
    grants = win.show_tab("grants")
    qtbot.waitUntil(lambda: grants.resolved and win.ops.pending == 0, timeout=15000)
    grants.select_cell(grants.model.row_of(DOMAIN), 2)
    qtbot.wait(50)
    header = grants.view.verticalHeader()
    bold = QFont(header.font())
    bold.setBold(True)
    assert header.width() >= QFontMetrics(bold).horizontalAdvance(DOMAIN) + 8  # drawn bold when selected: whole


def test_repositories_stay_apart_in_the_conflicts_list_at_1280(open_window, tmp_path: Path, qtbot) -> None:
    path = tmp_path / "repos.db"
    with open_workspace(path, create=True) as ws:
        agents = add_agents(ws)
        svc = MemoryService(ws, embedder=False)
        for i, repo in enumerate(("acme-web", "acme-api", "acme-mobile")):
            for j, tool in enumerate(("yarn", "pnpm")):
                svc.propose_fact(domain=f"repo:{repo}/conventions", topic="notifications-console-package-manager",
                                 content=f"Notifications Console: installs dependencies with {tool}; the lockfile "
                                         "is committed.", confidence=0.6 + 0.2 * j, veracity="stated",
                                 agent_id=agents["ada"], role="coder", now=T0 + 100 * i + j)
    win = open_window(path)
    win.resize(1280, 800)
    tab = ready(qtbot, win)
    settle(qtbot, win, tab)
    qtbot.wait(50)
    delegate = tab.view.itemDelegateForColumn(column("topic"))
    shown = []
    for row in range(tab.model.rowCount()):
        index = tab.model.index(row, column("topic"))
        option = QStyleOptionViewItem()
        option.initFrom(tab.view)
        option.rect = tab.view.visualRect(index)
        delegate.initStyleOption(option, index)
        shown.append(option.text)
    assert len(shown) == 3
    for repo in ("acme-web", "acme-api", "acme-mobile"):  # each repository readable, so the lines differ
        assert sum(f"repo:{repo}/" in text for text in shown) == 1, shown
