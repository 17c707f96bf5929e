"""The Grants tab: the effective matrix painted so fail-open cells stand apart, the side
panel, filters, the per-agent view, keyboard edits through the reviewer with undo, the
question before the last write of a domain with policies goes, and no edit when read-only."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from guihelp import focus, wait_dialog, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from fixtures.product_fixture import build
from memorydesk.core.product.grants import ROLES, Source
from memorydesk.core.product.vocab import Permission
from memorydesk.memory.history.record import read_entries
from memorydesk.store import guard
from memorydesk.ui.grants.paint import CELL_ROLE, FILL


@pytest.fixture
def product_path(tmp_path: Path) -> Path:
    return build(tmp_path / "product.db")


def _ready(qtbot, win):
    tab = win.show_tab("grants")
    qtbot.waitUntil(lambda: tab.resolved and win.ops.pending == 0, timeout=15000)
    return tab


def _select(qtbot, tab, domain: str, role: str) -> None:
    row = tab.model.row_of(domain)
    assert row is not None, domain
    tab.select_cell(row, [r.value for r in ROLES].index(role))
    focus(qtbot, tab.view)


def _rows(win, domain: str) -> list[tuple[str, str]]:
    with win.ws.read() as conn:
        return sorted(conn.exec_driver_sql("SELECT agent_role, permission FROM memory_access_grants_table "
                                           "WHERE memory_domain = ?", (domain,)).all())


def _code(tab, domain: str, role: str):
    row = tab.model.row_of(domain)
    return tab.model.index(row, [r.value for r in ROLES].index(role)).data(CELL_ROLE)


def _mean(image, rect) -> QColor:
    r = g = b = n = 0
    for x in range(rect.left() + 6, rect.right() - 6, 2):
        for y in range(rect.top() + 4, rect.bottom() - 4, 2):
            c = image.pixelColor(x, y)
            r, g, b, n = r + c.red(), g + c.green(), b + c.blue(), n + 1
    return QColor(r // n, g // n, b // n)


def test_the_matrix_paints_fail_open_apart_from_exact_rows(open_window, product_path, qtbot, qtmodeltester) -> None:
    win = open_window(product_path)
    tab = _ready(qtbot, win)
    qtmodeltester.check(tab.model)
    names = [tab.model.headerData(r, Qt.Orientation.Vertical) for r in range(tab.model.rowCount())]
    assert "pr-reviews" in names and "repo:acme-web/conventions" in names
    no_row = tab.model.row_of("pr-reviews")
    assert tab.model.headerData(no_row, Qt.Orientation.Vertical, Qt.ItemDataRole.FontRole).italic()
    assert _code(tab, "codebase", "ceo") == (Permission.WRITE, Source.EXACT)
    assert _code(tab, "oncall", "ceo") == (Permission.READ, Source.FAIL_OPEN)
    assert _code(tab, "codebase", "general") == (Permission.NONE, Source.AMBIGUOUS)
    # pixels: the exact write cell is filled green; the fail-open cell has no fill, only hatching
    tab.view.clearSelection()
    image = tab.view.viewport().grab().toImage()
    col = [r.value for r in ROLES].index("ceo")
    exact = _mean(image, tab.view.visualRect(tab.model.index(tab.model.row_of("codebase"), col)))
    open_ = _mean(image, tab.view.visualRect(tab.model.index(tab.model.row_of("oncall"), col)))
    green = FILL[Permission.WRITE]
    assert abs(exact.green() - green.green()) < 25 and exact.green() > exact.red() + 15
    assert abs(open_.red() - open_.green()) < 12 and abs(open_.green() - open_.blue()) < 12  # grey: no colour
    assert open_.lightness() > exact.lightness()
    assert "fail-open" in tab.summary.text()


def test_the_panel_says_what_a_cell_lets_agents_do(open_window, product_path, qtbot) -> None:
    win = open_window(product_path)
    tab = _ready(qtbot, win)
    _select(qtbot, tab, "codebase", "general")
    qtbot.waitUntil(lambda: "Facts:" in tab.panel.explain.toPlainText(), timeout=5000)
    text = tab.panel.explain.toPlainText()
    assert "Ambiguous" in text and "'Engineer' → 'none'" in text and "'general' → 'write'" in text
    assert "is refused" in text and "none is not enforced" in text
    _select(qtbot, tab, "codebase", "coder")
    qtbot.waitUntil(lambda: "promote facts to policies" in tab.panel.explain.toPlainText(), timeout=5000)
    assert "Cody" in tab.panel.explain.toPlainText()  # the agents acting as coder
    _select(qtbot, tab, "repo:acme-web/conventions", "qa")
    qtbot.waitUntil(lambda: "From the bare name" in tab.panel.explain.toPlainText(), timeout=5000)
    assert "repo-scoped" in tab.panel.explain.toPlainText()


def test_filters_and_the_agent_view(open_window, product_path, qtbot) -> None:
    win = open_window(product_path)
    tab = _ready(qtbot, win)
    total = tab.model.rowCount()
    tab.show_mode.setCurrentIndex(tab.show_mode.findData("fail_open"))
    shown = [tab.model.domain(r) for r in range(tab.model.rowCount())]
    assert "oncall" in shown and "codebase" not in shown and len(shown) < total
    ceo = [r.value for r in ROLES].index("ceo")
    coder = [r.value for r in ROLES].index("coder")
    row = tab.model.row_of("oncall")
    assert not tab.model.index(row, ceo).data(int(Qt.ItemDataRole.UserRole) + 2)  # fail-open: not dimmed
    tab.show_mode.setCurrentIndex(tab.show_mode.findData("problems"))
    assert {tab.model.domain(r) for r in range(tab.model.rowCount())} == {"codebase", "oncall"}
    tab.show_mode.setCurrentIndex(0)
    qtbot.keyClicks(tab.search, "repo")
    assert [tab.model.domain(r) for r in range(tab.model.rowCount())] == ["repo:acme-web/conventions"]
    tab.search.clear()
    tab.panel.agent.setCurrentIndex(next(k for k in range(tab.panel.agent.count())
                                         if getattr(tab.panel.agent.itemData(k), "name", None) == "Cody"))
    text = tab.panel.explain.toPlainText()
    assert "What can Cody write?" in text and "acts as coder" in text
    assert "refused in: oncall (read, fail-open)" in text.replace("\n", " ")
    assert tab.view.selectionModel().isColumnSelected(coder)


def test_keyboard_edits_go_through_the_reviewer_and_undo(open_window, product_path, qtbot, ui_thread_guarded) -> None:
    guard.allow(threading.get_ident())
    win = open_window(product_path)
    tab = _ready(qtbot, win)
    guard.forbid(threading.get_ident())
    _select(qtbot, tab, "infrastructure", "qa")
    focus(qtbot, tab.view)
    qtbot.keyClick(tab.view, Qt.Key.Key_N, Qt.KeyboardModifier.AltModifier)
    dialog = wait_dialog(qtbot, tab)
    assert "Set qa on infrastructure to none?" in dialog.findChild(QLabel, "reason-text").text()
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)  # no reason: refused in place
    assert dialog.isVisible() and "Say why" in dialog.problem.text()
    qtbot.keyClicks(dialog.reason, "QA reads infra rules only")
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: _code(tab, "infrastructure", "qa") == (Permission.NONE, Source.EXACT), timeout=10000)
    wait_idle(qtbot, win)
    guard.allow(threading.get_ident())
    assert ("qa", "none") in _rows(win, "infrastructure")
    entry = read_entries(win.ws, "grant")[0]
    assert (entry["action"], entry["reason"]) == ("set", "QA reads infra rules only")
    guard.forbid(threading.get_ident())
    focus(qtbot, tab.view)  # the dialog has closed (offscreen does not hand the focus back by itself)
    qtbot.keyClick(tab.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # Edit ▸ Undo
    qtbot.waitUntil(lambda: _code(tab, "infrastructure", "qa") == (Permission.WRITE, Source.EXACT), timeout=10000)
    assert tab.model.domain(tab.view.currentIndex().row()) == "infrastructure"  # the selection stayed
    wait_idle(qtbot, win)
    qtbot.wait(1200)  # a turn of the watcher
    assert ui_thread_guarded == []


def test_locking_down_the_last_write_asks_first(open_window, product_path, qtbot) -> None:
    win = open_window(product_path)
    tab = _ready(qtbot, win)
    _select(qtbot, tab, "conventions", "qa")
    qtbot.keyClick(tab.view, Qt.Key.Key_Space, Qt.KeyboardModifier.ShiftModifier)  # the whole row
    assert len(tab.selected_cells()) == len(ROLES)
    qtbot.keyClick(tab.view, Qt.Key.Key_L, Qt.KeyboardModifier.AltModifier)
    box = wait_dialog(qtbot, tab)
    explanation = box.findChild(QLabel, "reason-informative").text()
    assert box.windowTitle() == "Remove the last write?" and "conventions (1 active policy)" in explanation
    box.reject()
    qtbot.waitUntil(lambda: tab.dialog is None and win.ops.flows == 0, timeout=5000)
    assert ("qa", "write") in _rows(win, "conventions")
    tab.edits.lock.trigger()
    box = wait_dialog(qtbot, tab)
    qtbot.keyClicks(box.reason, "conventions are frozen")
    box.yes.click()
    qtbot.waitUntil(lambda: _code(tab, "conventions", "ceo") == (Permission.NONE, Source.EXACT), timeout=10000)
    assert _rows(win, "conventions") == sorted((r.value, "none") for r in ROLES)
    assert "No role can promote facts to policies here" in tab.panel.explain.toPlainText()


def test_fixing_an_unknown_string_in_the_dialog(open_window, product_path, qtbot) -> None:
    win = open_window(product_path)
    tab = _ready(qtbot, win)
    _select(qtbot, tab, "oncall", "pm")
    qtbot.keyClick(tab.view, Qt.Key.Key_F2)
    dialog = wait_dialog(qtbot, tab)
    assert dialog.role.currentText() == "pm" and dialog.permission.currentText() == "read"  # 'admin' reads so
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()  # no reason: refused in place
    assert dialog.isVisible() and "Say why" in dialog.problem.text()
    qtbot.keyClicks(dialog.reason, "admin meant read")
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()  # 'admin' → 'read': says what it meant
    qtbot.waitUntil(lambda: ("pm", "read") in _rows(win, "oncall"), timeout=10000)
    qtbot.waitUntil(lambda: _code(tab, "oncall", "pm") == (Permission.READ, Source.EXACT), timeout=10000)
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: ("pm", "admin") in _rows(win, "oncall"), timeout=10000)


def test_read_only_offers_no_edit(open_window, product_path, qtbot) -> None:
    win = open_window(product_path, read_only=True)
    tab = _ready(qtbot, win)
    before = _rows(win, "infrastructure")
    _select(qtbot, tab, "infrastructure", "qa")
    assert tab.edits.all and not any(a.isEnabled() for a in tab.edits.all)
    assert all("unavailable" in a.toolTip() for a in tab.edits.all)
    buttons = [b for b in tab.panel.findChildren(type(tab.panel.buttons.itemAt(0).widget()))]
    assert buttons and not any(b.isEnabled() for b in buttons)
    for key, name in ((Qt.Key.Key_W, "Set Write"), (Qt.Key.Key_L, "Lock Down Domain")):
        win.statusBar().clearMessage()
        qtbot.keyClick(tab.view, key, Qt.KeyboardModifier.AltModifier)
        assert win.statusBar().currentMessage().startswith(f"{name}: ")  # the key is answered
        assert "read-only" in win.statusBar().currentMessage()
    qtbot.keyClick(tab.view, Qt.Key.Key_F2)
    assert tab.dialog is None
    assert _rows(win, "infrastructure") == before


def test_navigate_selects_a_cell(open_window, product_path, qtbot) -> None:
    win = open_window(product_path)
    tab = _ready(qtbot, win)
    win.navigate("grants", {"domain": "oncall", "role": "pm"})
    index = tab.view.currentIndex()
    assert tab.model.domain(index.row()) == "oncall" and ROLES[index.column()].value == "pm"
    assert tab.view.viewport().rect().contains(tab.view.visualRect(index).center())


def test_the_first_screen_comes_before_the_whole_matrix(open_window, product_path, qtbot, monkeypatch) -> None:
    from memorydesk.browse import grants as browse

    monkeypatch.setattr(browse, "FIRST_SCREEN", 2)
    win = open_window(product_path)
    tab = win.show_tab("grants")
    qtbot.waitUntil(lambda: tab.matrix is not None, timeout=15000)
    assert tab.matrix.is_first_screen  # codebase, conventions; the whole matrix follows
    later = tab.model.index(tab.model.row_of("oncall"), 0)
    assert later.data() == "…" and later.data(CELL_ROLE) is None
    assert _code(tab, "codebase", "general") == (Permission.NONE, Source.AMBIGUOUS)
    assert not any(a.isEnabled() for a in tab.edits.all)
    qtbot.waitUntil(lambda: tab.resolved, timeout=15000)
    assert later.data() == "read" and later.data(CELL_ROLE) == (Permission.READ, Source.FAIL_OPEN)
    _select(qtbot, tab, "oncall", "pm")
    assert tab.edits.set_write.isEnabled()


def test_a_lock_down_under_fail_open_keeps_the_domain_in_view(open_window, product_path, qtbot) -> None:
    """Point 13: the locked-down domain has no fail-open cell left, yet stays listed (and selected)
    until the person changes the filter; the reason asked for is the one recorded."""
    win = open_window(product_path)
    tab = _ready(qtbot, win)
    tab.show_mode.setCurrentIndex(tab.show_mode.findData("fail_open"))
    _select(qtbot, tab, "oncall", "ceo")
    qtbot.keyClick(tab.view, Qt.Key.Key_L, Qt.KeyboardModifier.AltModifier)
    box = wait_dialog(qtbot, tab)
    assert "Lock down oncall" in box.findChild(QLabel, "reason-text").text()
    qtbot.keyClicks(box.reason, "incident: oncall notes leaked")
    qtbot.keyClick(box.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: _code(tab, "oncall", "ceo") == (Permission.NONE, Source.EXACT), timeout=10000)
    wait_idle(qtbot, win)
    assert tab.model.row_of("oncall") is not None  # kept in view, though no cell of it is fail-open now
    assert tab.model.domain(tab.view.currentIndex().row()) == "oncall"
    assert "kept in view" in tab.summary.text()
    assert read_entries(win.ws, "grant")[0]["reason"] == "incident: oncall notes leaked"
    tab.show_mode.setCurrentIndex(tab.show_mode.findData("write"))
    tab.show_mode.setCurrentIndex(tab.show_mode.findData("fail_open"))
    assert tab.model.row_of("oncall") is None  # the filter changed: it shows what it matches


def test_long_repo_domains_are_elided_in_the_middle_with_the_whole_name_as_tooltip(open_window, product_path,
                                                                                 qtbot) -> None:
    win = open_window(product_path)
    tab = _ready(qtbot, win)
    header = tab.view.verticalHeader()
    assert header.textElideMode() == Qt.TextElideMode.ElideMiddle
    row = tab.model.row_of("repo:acme-web/conventions")
    tip = tab.model.headerData(row, Qt.Orientation.Vertical, Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("repo:acme-web/conventions")
