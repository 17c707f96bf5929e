"""The window remembers (issue 22 point 15): size, position, maximised state, the tab shown
(per workspace), every splitter a person moved and the column widths they gave survive a
restart. Settings live in the test's own folder (``private_settings``), never the profile."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from guihelp import wait_idle
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QSplitter

from memorydesk.store import open_workspace
from memorydesk.ui.shell import settings
from memorydesk.ui.shell.mainwindow import MainWindow
from memorydesk.ui.shell.tabs import tab_names


def start(qtbot, path: Path) -> MainWindow:
    win = MainWindow(open_workspace(path))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    wait_idle(qtbot, win)
    return win


def test_the_settings_are_the_tests_own(private_settings: Path) -> None:
    assert Path(settings.store().fileName()).is_relative_to(private_settings)
    assert QSettings.Format.IniFormat == settings.store().format()


def test_size_position_tab_splitters_and_columns_survive_a_restart(qtbot, sample_path: Path) -> None:
    win = start(qtbot, sample_path)
    win.resize(1100, 700)
    win.move(40, 30)
    conflicts = win.show_tab("conflicts")
    qtbot.waitUntil(lambda: win.ops.pending == 0, timeout=15000)
    sizes = conflicts.split.sizes()
    moved = [sizes[0] - 90, sizes[1] + 90]
    conflicts.split.setSizes(moved)
    conflicts.split.splitterMoved.emit(moved[0], 1)  # what a drag of the handle emits
    moved = conflicts.split.sizes()
    grants = win.show_tab("grants")
    qtbot.waitUntil(lambda: grants.split.sizes()[0] > 0, timeout=5000)
    grants_sizes = [700, 380]
    grants.split.setSizes(grants_sizes)
    grants.split.splitterMoved.emit(700, 1)
    grants_sizes = grants.split.sizes()
    win.show_tab("conflicts")
    topic = conflicts.columns.names.index("topic")
    conflicts.view.horizontalHeader().resizeSection(topic, 333)  # the person's own width (ColumnFitter's)
    geometry = (win.width(), win.height())
    win.close()

    again = start(qtbot, sample_path)
    assert (again.width(), again.height()) == geometry
    assert again.current_tab_name() == "conflicts"  # this workspace's tab
    tab = again.tab("conflicts")
    qtbot.waitUntil(lambda: tab.split.sizes()[0] > 0, timeout=5000)
    assert tab.split.sizes() == moved
    grants = again.show_tab("grants")
    qtbot.waitUntil(lambda: grants.split.sizes() == grants_sizes, timeout=5000)
    again.show_tab("conflicts")
    assert tab.view.horizontalHeader().sectionSize(topic) == 333
    again.resize(1250, 760)  # the other columns still fit the window; the person's keeps its width
    qtbot.waitUntil(lambda: tab.view.horizontalHeader().sectionSize(topic) == 333, timeout=3000)
    again.close()


def test_the_tab_is_remembered_per_workspace(qtbot, sample_path: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    shutil.copyfile(sample_path, other)
    win = start(qtbot, sample_path)
    win.show_tab("grants")
    win.close()
    win = start(qtbot, other)
    win.show_tab("policies")
    win.close()
    assert start(qtbot, sample_path).current_tab_name() == "grants"
    assert start(qtbot, other).current_tab_name() == "policies"


def test_the_maximised_state_survives_a_restart(qtbot, sample_path: Path) -> None:
    win = start(qtbot, sample_path)
    win.showMaximized()
    qtbot.waitUntil(win.isMaximized, timeout=3000)
    win.close()
    again = MainWindow(open_workspace(sample_path))
    qtbot.addWidget(again)
    assert again.isMaximized() or bool(again.windowState() & again.windowState().WindowMaximized)
    again.close()


@pytest.mark.slow
@pytest.mark.parametrize("name", tab_names())
def test_every_splitter_of_every_tab_is_remembered(qtbot, sample_path: Path, name: str) -> None:
    """Every splitter the tab shows is named (its key in the settings) and moved; after a restart
    each is where the person left it, not where the tab places it by itself."""
    win = start(qtbot, sample_path)
    tab = win.show_tab(name)
    qtbot.waitUntil(lambda: win.ops.pending == 0, timeout=15000)
    shown = [s for s in tab.findChildren(QSplitter) if s.isVisible()]
    assert shown, f"the {name} tab shows no splitter"
    before: dict[str, list[int]] = {}
    wanted: dict[str, list[int]] = {}
    for split in shown:
        key, sizes = split.objectName(), split.sizes()
        assert key, f"a splitter of the {name} tab has no name, so its layout is kept under its position"
        assert len(sizes) >= 2 and min(sizes[0], sizes[-1]) > 40, (name, key, sizes)  # room to move it
        shift = max(30, sum(sizes) // 10)
        split.setSizes([sizes[0] + shift, *sizes[1:-1], sizes[-1] - shift])
        split.splitterMoved.emit(split.sizes()[0], 1)  # what a drag of the handle emits
        assert split.sizes()[0] - sizes[0] >= 20, (name, key, sizes, split.sizes())  # it did move
        before[key], wanted[key] = sizes, split.sizes()
    win.close()
    again = start(qtbot, sample_path)
    tab = again.show_tab(name)
    qtbot.waitUntil(lambda: again.ops.pending == 0, timeout=15000)
    got = {s.objectName(): s.sizes() for s in tab.findChildren(QSplitter) if s.objectName() in wanted}
    assert set(got) == set(wanted)
    for key, want in wanted.items():
        assert abs(got[key][0] - want[0]) <= 2, (name, key, want, got[key])
        assert abs(got[key][0] - before[key][0]) >= 20, (name, key, before[key], got[key])  # not the default
    again.close()


def test_the_first_tab_of_a_window_already_up_is_remembered_too(qtbot, sample_path: Path) -> None:
    """The desk shows its window, then opens the file: the first tab is visible before its
    layout is looked after (a column width given there was forgotten)."""
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.open_path(sample_path)
    qtbot.waitUntil(lambda: win.ws is not None, timeout=15000)
    wait_idle(qtbot, win)
    facts = win.tab("facts")
    topic = facts.columns.names.index("topic")
    facts.view.horizontalHeader().resizeSection(topic, 277)
    win.close()
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    again.open_path(sample_path)
    qtbot.waitUntil(lambda: again.ws is not None, timeout=15000)
    wait_idle(qtbot, again)
    header = again.tab("facts").view.horizontalHeader()
    qtbot.waitUntil(lambda: header.sectionSize(topic) == 277, timeout=3000)
    again.close()


def _kept_tab(path: Path) -> str | None:
    from memorydesk.ui.shell.window_state import saved_tab

    return saved_tab(path)


def test_changes_are_kept_without_a_close(qtbot, sample_path: Path) -> None:
    """A session that never closes the window (killed, logged out) still finds its state next time."""
    win = start(qtbot, sample_path)
    win.show_tab("grants")
    win.resize(1150, 720)
    conflicts = win.show_tab("conflicts")
    qtbot.waitUntil(lambda: win.ops.pending == 0, timeout=15000)
    sizes = conflicts.split.sizes()
    conflicts.split.setSizes([sizes[0] - 80, sizes[1] + 80])
    conflicts.split.splitterMoved.emit(sizes[0] - 80, 1)
    moved = conflicts.split.sizes()
    qtbot.waitUntil(lambda: win.keeper.saves > 0 and not win.keeper.timer.isActive(), timeout=10000)
    # read back as a new process would, while the window is still open
    assert _kept_tab(sample_path) == "conflicts"
    assert settings.store().value("window/size").width() == 1150
    assert settings.store().value("layout/conflicts/conflicts-split") is not None
    win.keeper.closed = True  # leave as a killed process would: no close-time save
    win.close()
    again = start(qtbot, sample_path)
    assert again.current_tab_name() == "conflicts" and again.width() == 1150
    assert again.tab("conflicts").split.sizes() == moved

