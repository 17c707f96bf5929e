"""The house the tabs live in: changes routed by kind, our own commits not seen twice, another
process's commits still seen, and the UI thread never waiting on the database."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import desk_sample
import pytest
from guihelp import focus, row_of_topic, wait_dialog, wait_idle
from PySide6.QtCore import Qt

from memorydesk.store import guard
from memorydesk.ui.tabs import TABS


def _edit_topic_3(qtbot, win) -> None:
    facts = win.tab("facts")
    row = row_of_topic(facts, "topic 3")
    rect = facts.view.visualRect(facts.model.index(row, 1))
    qtbot.mouseClick(facts.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # as a person: press,
    qtbot.mouseDClick(facts.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # then the double
    dialog = wait_dialog(qtbot, facts)
    assert dialog.fact_id == desk_sample.fid(3)
    dialog.content.setPlainText("content of fact 3, corrected")
    dialog.reason.setText("a typo")
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    qtbot.waitUntil(lambda: facts.detail.content.toPlainText() == "content of fact 3, corrected"
                    and win.ops.pending == 0 and win.ops.flows == 0, timeout=20000)


def test_the_window_builds_its_tabs_from_one_list(open_window, sample_path) -> None:
    win = open_window(sample_path)
    assert [win.tabs.widget(i).name for i in range(win.tabs.count())] == [t.name for t in TABS]
    assert [win.tabs.tabText(i) for i in range(win.tabs.count())] == [t.title for t in TABS]
    assert len({t.name for t in TABS}) == len(TABS)


def test_a_fact_edit_refreshes_the_tabs_that_show_facts_once(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    for tab in TABS:  # open every tab once, so each could be refreshed
        win.show_tab(tab.name)
        wait_idle(qtbot, win)
    win.show_tab("facts")
    wait_idle(qtbot, win)
    win.refreshes.clear()
    _edit_topic_3(qtbot, win)
    qtbot.wait(2500)  # more than two turns of the watcher: our own commit must not come back
    wait_idle(qtbot, win)
    assert [name for name, _change in win.refreshes] == ["facts"]
    change = win.refreshes[0][1]
    assert not change.external and "fact" in change.kinds
    assert desk_sample.fid(3) in change.ids_of("fact") and len(change.ids_of("fact")) == 2
    # the hidden tabs that show facts get the change once, when shown; the others never
    for tab in TABS:
        win.show_tab(tab.name)
        wait_idle(qtbot, win)
    shown_later = [name for name, _change in win.refreshes[1:]]
    expected = [t.name for t in TABS if t.kinds & change.kinds and t.name != "facts"]  # fact, or its history
    assert shown_later == expected
    assert all(not c.external for _n, c in win.refreshes)


def test_the_edited_row_is_patched_in_place(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    facts = win.tab("facts")
    resets: list[int] = []
    facts.model.modelReset.connect(lambda: resets.append(1))
    facts.select_row(row_of_topic(facts, "topic 9"))
    focus(qtbot, facts.view)
    scroll = facts.view.verticalScrollBar().value()
    _edit_topic_3(qtbot, win)
    assert resets == []  # no re-read of the whole list
    assert facts.model.rowCount() == 26
    assert facts.model.fact(0).content == "content of fact 3, corrected"  # the new version, newest first
    assert desk_sample.fid(3) not in {facts.model.fact(r).id for r in range(facts.model.rowCount())}
    assert facts.view.verticalScrollBar().value() == scroll


def test_another_process_write_still_refreshes(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    win.refreshes.clear()
    script = textwrap.dedent(f"""
        import sqlite3, time
        con = sqlite3.connect({str(sample_path)!r}, timeout=5)
        ws = con.execute("SELECT workspace_id FROM memory_facts_table LIMIT 1").fetchone()[0]
        now = int(time.time()) + 60
        with con:
            con.execute("INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, created_at, "
                        "updated_at) VALUES ('from-outside', ?, 'codebase', 'outside', 'by another process', ?, ?)",
                        (ws, now, now))
        con.close()
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=30)
    qtbot.waitUntil(lambda: any(c.external for _n, c in win.refreshes), timeout=10000)
    wait_idle(qtbot, win)
    assert win.tab("facts").model.rowCount() == 27
    assert [n for n, c in win.refreshes] == ["facts"]  # the shown tab now; the others when shown


def test_the_ui_thread_never_touches_the_database_during_an_edit(open_window, sample_path, qtbot,
                                                                 ui_thread_guarded) -> None:
    guard.allow(threading.get_ident())
    win = open_window(sample_path)
    guard.forbid(threading.get_ident())
    _edit_topic_3(qtbot, win)  # double-click, the dialog, save, the patched row, the detail pane
    qtbot.wait(1500)  # the watcher's turns
    assert ui_thread_guarded == []


def test_the_guard_does_catch_a_read_on_the_ui_thread(open_window, sample_path, ui_thread_guarded) -> None:
    from memorydesk.browse import facts as browse

    guard.allow(threading.get_ident())
    win = open_window(sample_path)
    guard.forbid(threading.get_ident())
    with pytest.raises(guard.UIThreadDatabaseAccess):
        browse.counts(win.ws)
    assert len(ui_thread_guarded) == 1
