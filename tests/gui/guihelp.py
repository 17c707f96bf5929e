"""Helpers for driving the desk's widgets in tests."""

from __future__ import annotations

from typing import Any

import pytest


def wait_idle(qtbot: Any, win: Any, timeout: int = 15000) -> None:
    """Until no operation is queued and the fact list is loaded."""
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.facts_tab.model.count_known(), timeout=timeout)


def needs_reviewer() -> Any:
    """The Reviewer module, or skip (the desk's writes need it)."""
    return pytest.importorskip("memorydesk.memory.reviewer")


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
