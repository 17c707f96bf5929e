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


PERSON = "jana.novak@firma.cz"
PHONE = "+420 601 234 567"


@pytest.fixture
def other_file(tmp_path: Path) -> tuple[Path, Path, str]:
    """A workspace and a copy of it taken before a key was redacted from a fact that names a person, and
    before an agent rewrote its note: the copy is not a desk backup (its name says nothing)."""
    path = tmp_path / "w.db"
    with open_workspace(path, create=True) as ws:
        with ws.write() as conn:
            conn.execute(ws.layout.agents.insert().values(
                id="agent-1", name="Cody", title="Coder", agent_md_path="", workspace_id=ws.workspace_id,
                skills="", role="coder", created_at=1_700_000_000))
        svc = MemoryService(ws, embedder=False)
        fid = svc.propose_fact(domain="ops", topic="payments", agent_id="agent-1",
                               content=f"Payments use {KEY}; ask {PERSON} or call {PHONE}.").fact_id
        svc.update_my_notes("agent-1", f"- deploys go through {PERSON}\n- invoices are flaky")
    other = tmp_path / "before.db"
    files.backup_copy(path).rename(other)
    with open_workspace(path) as ws:
        Reviewer(ws, "rita", embedder=False).redact("fact", fid, "a live key")
        MemoryService(ws, embedder=False).update_my_notes("agent-1", f"- deploys go through {PERSON} on Fridays")
    assert not Path(f"{other}-wal").exists() and not Path(f"{other}-shm").exists()
    return path, other, fid


def test_compare_masks_personal_data_shows_a_notes_text_and_leaves_nothing_beside_the_other_file(
        open_window, other_file, qtbot) -> None:
    """Findings 2, 5 and 14 of the second memory job: personal data is masked as the History tab masks it
    (not only secrets), an agent's changed note is shown both sides with the word diff, and the other file —
    not a desk backup — is read without a -wal or -shm left beside it."""
    path, other, fid = other_file
    win = open_window(path)
    view = _open(qtbot, win, other)
    _select(qtbot, view, fid)
    sides = view.old_side.toPlainText() + view.new_side.toPlainText()
    assert "[redacted: " in sides and "payments" in sides  # the fact itself is shown
    assert KEY not in sides and PERSON not in sides and "jana.novak" not in sides
    assert "601 234" not in sides and "234 567" not in sides
    _select(qtbot, view, "agent-1")
    old_html, new_html = view.old_side.toHtml(), view.new_side.toHtml()
    old_text, new_text = view.old_side.toPlainText(), view.new_side.toPlainText()
    assert "invoices are flaky" in old_text and "on Fridays" in new_text  # the note's text, both sides
    assert "line-through" in old_html and "#c8f0c8" in new_html  # the word diff marks what went and came
    assert "jana.novak" not in old_text + new_text and "deploys go through" in new_text
    view.close()
    qtbot.waitUntil(lambda: win.ops.pending == 0, timeout=10000)
    win.close()
    assert not Path(f"{other}-wal").exists() and not Path(f"{other}-shm").exists()
