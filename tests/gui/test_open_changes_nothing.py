"""Opening a file in the window changes nothing (issue 22, point 14).

A product workspace opened read-write, browsed and closed keeps its schema and rows and
gets no backup; the first change backs it up (checked), adds the desk's tables, and the
status bar says once what was added and where the backup is.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import guihelp
import pytest
import sqlean

from fixtures.product_fixture import build
from memorydesk.store import files


def _schema_and_rows(path: Path) -> dict:
    conn = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        out = {"sqlite_master": sorted(conn.execute("SELECT * FROM sqlite_master").fetchall(), key=repr)}
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                    "sql NOT LIKE 'CREATE VIRTUAL%'"):
            out[name] = sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
        return out
    finally:
        conn.close()


@pytest.fixture
def product(tmp_path: Path) -> Path:
    return build(tmp_path / "product.db")


def test_browsing_every_tab_and_closing_changes_nothing(open_window, product: Path, qtbot) -> None:
    before = _schema_and_rows(product)
    win = open_window(product)
    assert not win.ws.read_only
    for index in range(win.tabs.count()):
        win.tabs.setCurrentIndex(index)
        guihelp.wait_idle(qtbot, win)
    asyncio.ensure_future(win.undo())  # nothing to undo: says so, and adds nothing
    qtbot.waitUntil(lambda: win.ops.pending == 0, timeout=10000)
    win.close()
    win.ws.close()
    assert _schema_and_rows(product) == before
    assert files.backups_beside(product) == [] and not [p for p in product.parent.iterdir() if "backup" in p.name]


def test_the_first_change_says_once_what_was_added_and_where_the_backup_is(open_window, product: Path,
                                                                            qtbot) -> None:
    win = open_window(product)
    win.resize(1280, 800)  # the smallest window the desk is made for: the path is read whole there
    said: list[str] = []
    win.session.status.connect(said.append)
    win.session.noticed.connect(said.append)
    asyncio.ensure_future(win.session.write("deleting a fact", lambda r: r.delete_facts(["f-03"], reason="wrong")))
    qtbot.waitUntil(lambda: win.ops.pending == 0 and len(files.backups_beside(product)) == 1, timeout=10000)
    backup = files.backups_beside(product)[0]
    notices = [s for s in said if "added its own tables" in s]
    assert len(notices) == 1 and str(backup) in notices[0]
    label = win.notice.text  # a bar that stays, the sentence wrapped, not a status line cut at the window's edge
    qtbot.waitUntil(lambda: win.notice.isVisible() and label.height() >= label.heightForWidth(label.width()),
                    timeout=5000)
    assert str(backup) in label.text() and label.width() <= win.width()
    qtbot.wait(50)
    assert win.notice.isVisible()  # still there: the status bar's message would be gone in 8 s
    asyncio.ensure_future(win.session.write("restoring a fact", lambda r: r.restore_facts(["f-03"], reason="ok")))
    qtbot.waitUntil(lambda: win.ops.pending == 0 and any("restored" in s for s in said), timeout=10000)
    assert len([s for s in said if "added its own tables" in s]) == 1
    assert files.backups_beside(product) == [backup]
    conn = sqlean.connect(f"file:{backup}?mode=ro", uri=True)
    assert conn.execute("SELECT superseded_by FROM memory_facts_table WHERE id = 'f-03'").fetchone() == (None,)
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'memdesk_meta'").fetchall()
    conn.close()
