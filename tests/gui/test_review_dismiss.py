"""The memory job's finding 2: one Dismiss covers exactly the finding the person chose — not every
finding of its kind on the same note — and the dialog names the item and says what it covers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from guihelp import give_reason, wait_dialog
from PySide6.QtCore import Qt
from test_review_tab import _ready

from fixtures import agent_notes

DESK = Path(sys.executable).with_name("memory-desk")
NOTE = ("- Anna's mobile: +49 30 901820\n- Ben's mobile: +44 20 7946 0958\n- Chloé's mobile: +33 1 42 68 53 00\n")


@pytest.fixture
def phones(tmp_path: Path) -> Path:
    return agent_notes.with_note(tmp_path / "phones.db", NOTE, "nothing here")


def _review(path: Path) -> list[dict]:
    out = subprocess.run([str(DESK), "review", str(path), "--kind", "personal_data", "--json"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def test_one_dismiss_covers_the_one_finding_chosen(open_window, phones, qtbot) -> None:
    assert len([f for f in _review(phones) if f["item_kind"] == "note"]) == 3
    win = open_window(phones)
    tab = _ready(qtbot, win)
    tab.kind_list.setCurrentRow(next(i for i in range(tab.kind_list.count())
                                     if tab.kind_list.item(i).text().startswith("Personal data")))
    qtbot.waitUntil(lambda: tab.model.rowCount() == 3)
    tab.select_row(1)
    chosen = tab.selected()
    tab.view.setFocus()
    qtbot.keyClick(tab.view, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    dialog = wait_dialog(qtbot, tab.actions_)
    about, says = dialog.about.text(), dialog.findChild(type(dialog.about), "review-says").text()
    assert chosen.title in about and chosen.item_id in about and "agent note" in about
    assert "This finding alone leaves the open queue" in says and "The 2 other findings on this agent note stay open" \
        in says
    give_reason(qtbot, dialog, "a colleague's published work number")
    qtbot.waitUntil(lambda: not tab.scanning and win.ops.pending == 0 and tab.model.rowCount() == 2, timeout=30000)
    states = [f["state"] for f in _review(phones) if f["item_kind"] == "note"]
    assert sorted(states) == ["dismissed", "open", "open"]
    assert all(f.key != chosen.key for f in (tab.model.finding(r) for r in range(tab.model.rowCount())))


def test_purge_from_review_names_the_fact_by_its_real_id(open_window, tmp_path, qtbot) -> None:
    """The memory job's finding 5: the purge dialog opened from a secret in a fact names the fact's id,
    not its topic twice ("staging-db-access (id staging-db-access)")."""
    from test_review_tab import KEY

    from memorydesk.memory.service import MemoryService
    from memorydesk.store import open_workspace

    path = tmp_path / "purge.db"
    with open_workspace(path, create=True) as ws:
        fid = MemoryService(ws, embedder=False).propose_fact(domain="ops", topic="stripe", content=KEY).fact_id
    win = open_window(path)
    tab = _ready(qtbot, win)
    tab.kind_list.setCurrentRow(1)  # Secrets
    tab.select_row(0)
    assert tab.model.finding(0).item_id == fid
    tab.actions_.purge.trigger()
    dialog = wait_dialog(qtbot, tab.actions_)
    assert dialog.also == fid and dialog.expected == "stripe"
    dialog.typed.setText(fid)  # the id is always accepted
    assert dialog.matches()
    dialog.reject()
