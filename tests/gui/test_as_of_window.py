"""View ▸ Memory As Of in the real window (issue 34, point 10): the time typed is the time used, in
several time zones (the sectioned spinner turned "2026-11-10 00:00:00" into 00:39 and
"2026-11-01 00:00:00" into 11 Dec 01:00); a time the clocks skipped is refused in the dialog;
its title is not cut; and the Facts tab then shows what was true then, a decision made in the
desk since (Restore Loser) applied backwards."""

from __future__ import annotations

import datetime as dt
import time

import desk_sample
import pytest
from guihelp import wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from memorydesk.memory.reviewer import Reviewer
from memorydesk.store import open_workspace
from memorydesk.ui.facts.model import COLUMNS

#: (zone, typed, the UTC moment it names there)
TYPED = [
    ("UTC", "2026-11-10 00:00:00", "2026-11-10T00:00:00Z"),
    ("Europe/Berlin", "2026-11-10 00:00:00", "2026-11-09T23:00:00Z"),
    ("America/New_York", "2026-11-01 00:00:00", "2026-11-01T04:00:00Z"),  # summer time still, ends at 02:00
    ("Asia/Kolkata", "2026-11-01 00:00:00", "2026-10-31T18:30:00Z"),
    ("Australia/Lord_Howe", "2026-11-10 00:00:00", "2026-11-09T13:00:00Z"),  # +11 in its summer
]


@pytest.fixture
def zone(monkeypatch):
    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


def _ask(qtbot, win):
    win.time.act_as_of.trigger()
    qtbot.waitUntil(lambda: win.time.dialog is not None and win.time.dialog.isVisible(), timeout=5000)
    return win.time.dialog


def _type(qtbot, dialog, text: str) -> None:
    edit = dialog.when.edit
    edit.selectAll()
    qtbot.keyClicks(edit, text)


@pytest.mark.parametrize(("name", "typed", "utc"), TYPED)
def test_the_time_typed_is_the_time_used(open_window, sample_path, qtbot, zone, name, typed, utc) -> None:
    zone(name)
    win = open_window(sample_path)
    dialog = _ask(qtbot, win)
    assert dialog.width() >= dialog.fontMetrics().horizontalAdvance("Memory as of") * 4  # the title has room
    _type(qtbot, dialog, typed)
    assert utc in dialog.reads.text() and typed in dialog.reads.text()  # what it reads, before OK
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    expected = int(dt.datetime.strptime(utc, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC).timestamp())
    qtbot.waitUntil(lambda: win.time.at == expected, timeout=5000)
    day, clock = dt.datetime.strptime(typed, "%Y-%m-%d %H:%M:%S"), typed[11:16]
    assert f"Memory as of {day.day} {day:%b %Y} {clock}" in win.time.label.text() and utc in win.time.label.text()


def test_a_time_the_clocks_skipped_is_refused_in_the_dialog(open_window, sample_path, qtbot, zone) -> None:
    zone("America/New_York")
    win = open_window(sample_path)
    dialog = _ask(qtbot, win)
    _type(qtbot, dialog, "2026-03-08 02:30:00")
    assert "does not exist" in dialog.reads.text()
    dialog._ok()
    assert dialog.isVisible() and win.time.at is None  # nothing taken
    _type(qtbot, dialog, "2026-11-01 01:30:00")  # twice that night: the first, said so
    assert "happens twice" in dialog.reads.text()
    dialog._ok()
    qtbot.waitUntil(lambda: win.time.at == int(dt.datetime(2026, 11, 1, 5, 30, tzinfo=dt.UTC).timestamp()),
                    timeout=5000)


def test_the_facts_tab_as_of_before_a_decision_shows_what_was_true_then(open_window, sample_path, qtbot) -> None:
    with open_workspace(sample_path) as ws:  # the desk restores the loser of 29 -> 30 now
        Reviewer(ws, "Ann", embedder=False).restore_loser(desk_sample.fid(700), reason="tuesday it is")
    win = open_window(sample_path)
    tab = win.tab("facts")
    wait_idle(qtbot, win)
    before = int(time.time()) - 1800  # half an hour ago: both facts existed, the restore had not happened
    dialog = _ask(qtbot, win)
    _type(qtbot, dialog, dt.datetime.fromtimestamp(before).strftime("%Y-%m-%d %H:%M:%S"))
    dialog._ok()
    qtbot.waitUntil(lambda: win.time.at == before, timeout=5000)
    wait_idle(qtbot, win)

    def state(fact_id: str) -> str | None:
        for row in range(tab.model.rowCount()):
            fact = tab.model.fact(row)
            if fact is not None and fact.id == fact_id:
                return tab.model.index(row, [c for c, _l in COLUMNS].index("state")).data()
        return None

    qtbot.waitUntil(lambda: state(desk_sample.fid(30)) is not None, timeout=10000)
    assert state(desk_sample.fid(29)) is None  # the Active filter: 29 was not active then
    tab.filters.state.setCurrentIndex(tab.filters.state.findData("all"))
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: state(desk_sample.fid(29)) is not None, timeout=10000)
    assert state(desk_sample.fid(29)).startswith("superseded")  # then: the loser, as the product left it
    assert state(desk_sample.fid(30)).startswith("active")
    assert "changed since" in state(desk_sample.fid(29))
    win.time.set_as_of(None)
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: state(desk_sample.fid(29)) == "active", timeout=10000)  # now: restored
