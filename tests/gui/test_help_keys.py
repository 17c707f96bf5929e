"""F1 lists every key of every tab, and the user guide's key tables and the menus name the same
keys (issue 22 point 16); the status bar's "Opening …" is cleared once the file is open."""

from __future__ import annotations

import re
from pathlib import Path

from guihelp import wait_idle
from PySide6.QtWidgets import QTextBrowser

from memorydesk.ui.shell import help as help_dialogs
from memorydesk.ui.shell.mainwindow import MainWindow
from memorydesk.ui.shell.tabs import TABS

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide.md"


def tokens(keys: str) -> set[str]:
    """``"↑ / ↓, PgUp / PgDn (wheel)"`` → {"↑", "↓", "PgUp", "PgDn"}; the mouse is not a key."""
    keys = re.sub(r"\([^)]*\)", "", keys)
    parts = {p.strip() for p in re.split(r" / |, ", keys)}
    return {p for p in parts if p and "wheel" not in p}


def guide_keys() -> dict[str, set[str]]:
    """Each key table of the user guide, by the group F1 shows it under (a tab's title, or Window)."""
    text = GUIDE.read_text(encoding="utf-8")
    out: dict[str, set[str]] = {}
    for head, body in re.findall(r"^#{2,3} (.+?)\n(.*?)(?=^#{2,3} |\Z)", text, flags=re.M | re.S):
        found = re.match(r"The (.+) tab$", head.strip())
        group = "Window" if head.strip() == "Window-wide keys" else found.group(1) if found else None
        if group is None:
            continue
        table = re.search(r"^\| keys[^\n]*\n\|[-| ]+\n((?:\|[^\n]*\n)+)", body, flags=re.M)
        if table:
            out[group] = set().union(*(tokens(line.split("|")[1]) for line in table.group(1).splitlines()))
    return out


def test_f1_lists_every_key_the_guide_names_and_no_other(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    win.act_shortcuts.trigger()
    dialog = win.dialog
    assert dialog is not None and dialog.isVisible()
    shown = dialog.findChild(QTextBrowser, "shortcuts-text").toPlainText()
    rows = help_dialogs.window_rows(win)
    f1: dict[str, set[str]] = {}
    for where, what, keys in rows:
        f1.setdefault(where, set()).update(tokens(keys))
        assert what in shown and keys in shown
    documented = guide_keys()
    tabs = {slot.tab.title for slot in win.slots}
    assert {"Window", *tabs} <= set(documented)  # every tab has its key table in the guide
    for group in ("Window", *tabs):
        assert documented.get(group, set()) == f1.get(group, set()), group
    assert {"+", "−", "0", "Del"} <= f1["Knowledge Graph"]  # missing from F1 before
    assert {"←", "→", "[", "]", "N", "Shift+N", "Home"} <= f1["Lineage"]
    assert "Ctrl+W" in f1["Window"] and "Ctrl+F4" not in f1["Window"]
    dialog.close()


def test_opening_is_cleared_from_the_status_bar_once_open(qtbot, sample_path: Path) -> None:
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    win.open_path(sample_path)
    assert win.statusBar().currentMessage() == f"Opening {sample_path.name}…"
    qtbot.waitUntil(lambda: win.ws is not None, timeout=15000)
    wait_idle(qtbot, win)
    assert not win.statusBar().currentMessage().startswith("Opening")
    win.close()


def test_ctrl_tab_switches_tabs_even_from_a_table(open_window, sample_path, qtbot) -> None:
    """A table takes Ctrl+Tab for itself (it moved the current cell): the window's View menu has it."""
    from guihelp import focus
    from PySide6.QtCore import Qt

    win = open_window(sample_path)
    facts = win.show_tab("facts")
    focus(qtbot, facts.view)
    qtbot.keyClick(facts.view, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert win.current_tab_name() == "policies"
    qtbot.keyClick(win.tabs.currentWidget(), Qt.Key.Key_PageUp, Qt.KeyboardModifier.ControlModifier)
    assert win.current_tab_name() == "facts"
    qtbot.keyClick(facts.view, Qt.Key.Key_Backtab,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert win.current_tab_name() == TABS[-1].name  # wraps round to the last tab


def test_no_tab_key_is_also_a_window_wide_key(open_window, sample_path, qtbot) -> None:
    """A key a tab binds and the window binds too is ambiguous to Qt: in that tab neither acts
    (Ctrl+Shift+O was both Review's Open Item and File ▸ Open Receipts Source…)."""
    win = open_window(sample_path)
    f1: dict[str, set[str]] = {}
    for where, _what, keys in help_dialogs.window_rows(win):
        f1.setdefault(where, set()).update(tokens(keys))
    window = f1["Window"]
    clashes = {group: sorted(keys & window) for group, keys in f1.items() if group != "Window" and keys & window}
    assert clashes == {}
