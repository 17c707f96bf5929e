"""The memory job's finding 1: the History tab never shows more of a memory text than the history's
command output and exports do — after a redaction its "Before and after" holds the secret
masked and the placeholder, not the note in clear, and a fact redaction's cells name fields,
not stored keys; a personal e-mail in a fact's summary is masked alike in the tab, the
command's text and JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from guihelp import wait_dialog
from test_review_tab import _ready

from fixtures import agent_notes
from memorydesk.memory.service import MemoryService
from memorydesk.store import open_workspace

TOKEN = "ghp_Zq8Lm2Vx7Rt4Ny6Kp1Wd3Hs9Bf5Gc0Jx2Ab"
EMAIL = "priya.raman.home@gmail.com"
DESK = Path(sys.executable).with_name("memory-desk")


@pytest.fixture
def note_path(tmp_path: Path) -> Path:
    path = agent_notes.with_note(tmp_path / "notes.db", f"- release: push with {TOKEN}\n- tests are flaky",
                                 "nothing secret here")
    with open_workspace(path) as ws:
        MemoryService(ws, embedder=False).propose_fact(domain="people", topic="priya",
                                                       content=f"Priya's private address is {EMAIL}.")
    return path


def _history_detail(qtbot, win, what: str) -> str:
    history = win.show_tab("history")
    qtbot.waitUntil(lambda: history.model.rowCount() > 0 and win.ops.pending == 0, timeout=20000)
    col = [k for k, _l in history.model.COLUMNS].index("what")
    row = next(r for r in range(history.model.rowCount()) if history.model.index(r, col).data() == what)
    history.view.selectRow(row)
    qtbot.waitUntil(lambda: "Before and after" in history.detail.toPlainText()
                    and "reading…" not in history.detail.toPlainText() and win.ops.pending == 0, timeout=20000)
    return history.detail.toPlainText()


def test_a_redacted_notes_history_shows_the_secret_masked(open_window, note_path, qtbot) -> None:
    win = open_window(note_path)
    tab = _ready(qtbot, win)
    tab.kind_list.setCurrentRow(1)  # secrets: the token in the note
    tab.select_row(0)
    assert tab.model.finding(0).item_kind == "note"
    tab.actions_.redact.trigger()
    dialog = wait_dialog(qtbot, tab.actions_)
    dialog.ok.click()
    qtbot.waitUntil(lambda: not tab.scanning and win.ops.pending == 0 and tab.model.rowCount() == 0, timeout=30000)
    shown = _history_detail(qtbot, win, "note redact")
    assert TOKEN not in shown and TOKEN[-6:] not in shown
    assert "push with ⟦" in shown and "chars⟧ - tests are flaky" in shown and "push with [redacted: " in shown
    assert "note " in shown and " · content" in shown
    lines = shown.splitlines()
    assert lines.count("Before") == 1 and "id" not in lines and "after" not in lines  # no stored keys


def test_a_personal_email_is_masked_in_the_tab_the_text_and_the_json(open_window, note_path, qtbot) -> None:
    win = open_window(note_path)
    history = win.show_tab("history")
    qtbot.waitUntil(lambda: history.model.rowCount() > 0 and win.ops.pending == 0, timeout=20000)
    col = [k for k, _l in history.model.COLUMNS].index("summary")
    summaries = [history.model.index(r, col).data() for r in range(history.model.rowCount())]
    ours = [s for s in summaries if "priya" in s]
    assert ours and all(EMAIL not in s and "⟦e-mail address · 26 chars⟧" in s for s in ours)
    text = subprocess.run([str(DESK), "history", str(note_path)], capture_output=True, text=True, timeout=120)
    rows = subprocess.run([str(DESK), "history", str(note_path), "--json"], capture_output=True, text=True,
                          timeout=120)
    assert text.returncode == 0 and rows.returncode == 0
    assert EMAIL not in text.stdout and "⟦e-mail address · 26 chars⟧" in text.stdout
    summaries = [r["summary"] for r in json.loads(rows.stdout) if "priya" in r["summary"]]
    assert summaries and all("⟦e-mail address · 26 chars⟧" in s for s in summaries)


def test_the_compare_sides_and_the_conflict_trail_mask_a_secret() -> None:
    """A backup's unredacted key is shown masked, struck through or not (the memory job's findings 1 and 10)."""
    from memorydesk.browse.history.diff import Version
    from memorydesk.ui.compare.items import Item, side_by_side

    key = "sk_live_51Hx9Kq2Lm8Np4Rt6Vw3Yz7BqQ"
    old = Version("fact", "f1", (("id", "f1"), ("topic", "stripe"), ("content", f"Payments use {key} now.")))
    new = Version("fact", "f1", (("id", "f1"), ("topic", "stripe"),
                                 ("content", "Payments use [redacted: Stripe Access Token] now.")))
    left, right = side_by_side(Item("fact", "changed", "f1", "f1", ("content",)), old, new, "backup", "open")
    assert key not in left and key[-6:] not in left and "Access" in left and "34 chars⟧" in left
    gone, _ = side_by_side(Item("fact", "removed", "f1", "f1"), old, None, "backup", "open")
    assert key not in gone and "⟦Stripe Access Token · " in gone
