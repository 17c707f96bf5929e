"""Helpers for driving the desk's widgets in tests."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt


def wait_idle(qtbot: Any, win: Any, timeout: int = 15000) -> None:
    """Until nothing is queued on the worker and the fact list (if it was opened) is loaded."""

    def idle() -> bool:
        facts = win.tab("facts")
        opened = facts is not None and facts.session is not None
        return win.ops.pending == 0 and (not opened or (facts.model.count_known() and not facts.model.loading()))

    qtbot.waitUntil(idle, timeout=timeout)


def row_of_topic(tab: Any, topic: str) -> int:
    model = tab.model
    for row in range(model.rowCount()):
        fact = model.fact(row)
        if fact is not None and fact.topic == topic:
            return row
    raise AssertionError(f"{topic!r} is not in the list")


def topics(tab: Any) -> list[str]:
    return [tab.model.fact(r).topic for r in range(tab.model.rowCount())]


def focus(qtbot: Any, widget: Any) -> None:
    """Activate the widget's window and focus it (shortcuts follow the focus)."""
    window = widget.window()
    window.activateWindow()
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=3000)


def wait_dialog(qtbot: Any, owner: Any, timeout: int = 10000) -> Any:
    """The dialog an action opened (a flow opens it after reading what it shows, on the worker)."""
    qtbot.waitUntil(lambda: owner.dialog is not None and owner.dialog.isVisible(), timeout=timeout)
    return owner.dialog


def select_topic(qtbot: Any, tab: Any, topic: str) -> None:
    """Select the fact of ``topic`` in the Facts list and wait for its detail to be read."""
    tab.select_row(row_of_topic(tab, topic))
    qtbot.waitUntil(lambda: tab.detail.fact_id is not None and tab.ops.pending == 0, timeout=10000)


def facts_dialog(qtbot: Any, win: Any, topic: str, action: str) -> tuple[Any, Any]:
    """Select the fact of ``topic`` in the window's Facts tab, trigger its action ``action``
    (``"act_purge"``, say): (the tab, the dialog it opens)."""
    tab = win.tab("facts")
    select_topic(qtbot, tab, topic)
    getattr(tab, action).trigger()
    return tab, wait_dialog(qtbot, tab)


def key_dialog(qtbot: Any, tab: Any, key: Any) -> Any:
    """Press ``key`` in the tab's list (focused first: shortcuts follow the focus) and return
    the dialog it opens."""
    focus(qtbot, tab.view)
    qtbot.keyClick(tab.view, key)
    return wait_dialog(qtbot, tab)


def fact_at(qtbot: Any, tab: Any, row: int) -> Any:
    """The fact in a row of the Facts list, once its window has been read (on the worker)."""
    tab.model.fact(row)  # asks for the window
    qtbot.waitUntil(lambda: tab.model.fact(row) is not None, timeout=10000)
    return tab.model.fact(row)


def give_reason(qtbot: Any, dialog: Any, reason: str = "checked with the team") -> None:
    """Confirm a ``ReasonDialog`` (or a dialog built on it) by typing a reason and pressing Enter."""
    dialog.reason.setFocus()
    qtbot.keyClicks(dialog.reason, reason)
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)
