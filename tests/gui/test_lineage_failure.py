"""The Lineage tab when its receipts cannot be read: it says why instead of "Reading lineage
receipts…" for ever, the rest of the window keeps working, and Read Again reads them once
the file is whole again."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from lineage_sample import lineage_path, ready, receipts  # noqa: F401 - fixtures

# The stdlib's SQLite is another copy of SQLite in this process: its connections are closed at
# once, before the window opens the file (the last close of one collected later would remove the
# write-ahead log's index under the window's connections).

def _blocks(path: Path) -> list[tuple[int, bytes]]:
    with closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT id, data FROM memdesk_receipt_blocks ORDER BY id").fetchall()


def _set_block(path: Path, block: int, data: bytes) -> None:
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE memdesk_receipt_blocks SET data = ? WHERE id = ?", (data, block))


@pytest.mark.logs_error("operation failed: Reading lineage receipts")  # a damaged block: shown as our bug
def test_a_receipt_read_that_fails_is_said_and_read_again(open_window, lineage_path, qtbot) -> None:
    block, data = _blocks(lineage_path)[0]
    _set_block(lineage_path, block, data[:-3])  # a damaged block: its records no longer whole
    win = open_window(lineage_path)
    tab = win.show_tab("lineage")
    qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.failed, timeout=30000)
    assert not tab.loading and tab.ready
    said = tab.failed.text.text()
    assert "could not be read" in said and "ValueError" in said
    assert tab.failed.again.isVisible() and tab.failed.again.isEnabled()
    assert win.error_box is not None and "ValueError" in win.error_box.text()  # the window's one error path too
    win.error_box.close()
    win.show_tab("facts")  # the rest of the window is not held up
    qtbot.waitUntil(lambda: win.tab("facts").model.rowCount() > 0 and win.ops.pending == 0, timeout=10000)

    win.show_tab("lineage")
    with win.ws.write() as conn:  # the file whole again
        conn.exec_driver_sql("UPDATE memdesk_receipt_blocks SET data = ? WHERE id = ?", (data, block))
    tab.failed.again.click()
    tab = ready(qtbot, win)
    assert tab.pages.currentWidget() is tab.panel and len(tab.table) > 0
