"""The window ``memory-desk`` opens (``lazy_tabs``): the tab shown first is built, the others
wait behind their names on the tab bar until the first rows are painted, then arrive in
their places; one clicked before its turn is built at once and works like any other."""

from __future__ import annotations

from guihelp import wait_idle

from memorydesk.ui.shell.startup import PendingTab
from memorydesk.ui.shell.tabs import SPECS


def _lazy_window(qtbot, path):
    from memorydesk.store import open_workspace
    from memorydesk.ui.shell.app import ensure_app
    from memorydesk.ui.shell.mainwindow import MainWindow

    ensure_app()
    win = MainWindow(lazy_tabs=True)
    qtbot.addWidget(win)
    win.show()
    win.set_workspace(open_workspace(path))
    return win


def test_only_the_first_tab_is_built_then_the_rest_arrive_after_the_first_paint(qtbot, sample_path) -> None:
    win = _lazy_window(qtbot, sample_path)
    assert [win.tabs.tabText(i) for i in range(win.tabs.count())] == [s.title for s in SPECS]
    assert [s.built for s in win.slots] == [s.name == "facts" for s in SPECS]  # before any event ran
    facts = win.tab("facts")
    qtbot.waitUntil(lambda: facts.model.rowCount() > 0, timeout=20000)
    qtbot.waitUntil(lambda: win.warmup is not None and win.warmup.done, timeout=120000)
    qtbot.waitUntil(lambda: all(s.built for s in win.slots), timeout=20000)
    assert [win.tabs.widget(i).name for i in range(win.tabs.count())] == [s.name for s in SPECS]
    assert not win.findChildren(PendingTab)
    assert win.current_tab_name() == "facts"  # the warm-up never moved the person off their tab
    win.close()


def test_a_tab_clicked_before_its_turn_is_built_at_once_and_shows_its_rows(qtbot, sample_path) -> None:
    win = _lazy_window(qtbot, sample_path)
    index = [s.name for s in SPECS].index("policies")
    assert isinstance(win.tabs.widget(index), PendingTab)
    win.tabs.setCurrentIndex(index)  # as a click on the tab bar does
    policies = win.tabs.currentWidget()
    assert not isinstance(policies, PendingTab) and policies.name == "policies"
    assert win.tabs.tabText(index) == "Policies"
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: policies.model.rowCount() > 0, timeout=20000)
    win.close()
