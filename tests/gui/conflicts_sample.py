"""The workspace with known conflicts (``fixtures.conflicts``, written once per test process:
``conflicts_built`` in conftest.py) copied for each test, and waiting for the Conflicts tab:
shared by the Conflicts tab's tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def workspace(conflicts_built, tmp_path: Path) -> tuple[Path, dict]:
    copy = tmp_path / "ws.db"
    shutil.copyfile(conflicts_built[0], copy)
    return copy, conflicts_built[1]


def ready(qtbot, win):
    tab = win.show_tab("conflicts")
    qtbot.waitUntil(lambda: tab.model.rowCount() > 0 and not tab.filters.busy.isVisible() and win.ops.pending == 0
                    and not tab.model.loading(), timeout=20000)
    return tab


def settle(qtbot, win, tab) -> None:
    qtbot.waitUntil(lambda: win.ops.pending == 0 and win.ops.flows == 0 and not tab.filters.busy.isVisible()
                    and not tab.model.loading(), timeout=20000)


def row_of(tab, a: str, b: str) -> int:
    for row in range(tab.model.rowCount()):
        line = tab.model.line(row)
        if line is not None and {line.fact_a, line.fact_b} == {a, b}:
            return row
    raise AssertionError("no such line")


def show(qtbot, win, tab, row: int) -> dict:
    tab.select_row(row)
    line = tab.model.line(row)
    qtbot.waitUntil(lambda: tab.trail.trail is not None and tab.trail.trail.conflict.id == line.id
                    and win.ops.pending == 0, timeout=10000)
    return tab.trail.trail
