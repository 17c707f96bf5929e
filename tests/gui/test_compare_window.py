"""The memory job's finding 10: the Compare window (File ▸ Compare With…) closes with Esc and Ctrl+W,
shows a backup's unredacted key masked, warns before restoring a version that holds a secret
the open file no longer holds, and leaves no -wal/-shm beside the backup it read."""

from __future__ import annotations

from pathlib import Path

import pytest
from guihelp import focus
from PySide6.QtCore import Qt

from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.store import files, open_workspace
from memorydesk.ui.compare.view import CompareView

KEY = "sk_live_51Hx9Kq2Lm8Np4Rt6Vw3Yz7BqQ"


@pytest.fixture
def redacted(tmp_path: Path) -> tuple[Path, Path, str]:
    path = tmp_path / "w.db"
    with open_workspace(path, create=True) as ws:
        fid = MemoryService(ws, embedder=False).propose_fact(domain="ops", topic="stripe",
                                                             content=f"Payments use {KEY} in production.").fact_id
    backup = files.backup_copy(path)  # as the desk backs a file up (SQLite's backup API: a WAL-mode copy)
    with open_workspace(path) as ws:
        Reviewer(ws, "rita").redact("fact", fid, "a live key")
    return path, backup, fid


def _open(qtbot, win, backup: Path) -> CompareView:
    view = CompareView(win.session, backup, win)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.result is not None and win.ops.pending == 0, timeout=20000)
    return view


def _select(qtbot, view: CompareView, fid: str) -> None:
    for i in range(view.tree.topLevelItemCount()):
        top = view.tree.topLevelItem(i)
        for j in range(top.childCount()):
            if top.child(j).data(0, Qt.ItemDataRole.UserRole).key == fid:
                view.tree.setCurrentItem(top.child(j))
                qtbot.waitUntil(lambda: view.pair is not None and view.pair[0].key == fid, timeout=10000)
                return
    raise AssertionError(f"{fid} not listed")


def test_compare_masks_the_backups_key_warns_before_restoring_it_and_closes_with_keys(
        open_window, redacted, qtbot) -> None:
    path, backup, fid = redacted
    win = open_window(path)
    view = _open(qtbot, win, backup)
    _select(qtbot, view, fid)
    shown = view.old_side.toPlainText() + view.new_side.toPlainText()
    assert KEY not in shown and KEY[-6:] not in shown and "34 chars⟧" in shown
    assert "secret" in view.secret_warning(view.selected()) and "Stripe" in view.secret_warning(view.selected())
    focus(qtbot, view.tree)
    qtbot.keyClick(view.tree, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not view.isVisible())

    again = _open(qtbot, win, backup)
    focus(qtbot, again.tree)
    qtbot.keyClick(again.tree, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not again.isVisible())
    qtbot.waitUntil(lambda: win.ops.pending == 0, timeout=10000)
    win.close()
    assert not Path(f"{backup}-wal").exists() and not Path(f"{backup}-shm").exists()
