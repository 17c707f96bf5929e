"""What goes into a ticket matches the screen (issue 34, point 12): after Restore Loser the
command's JSON and text say what the Conflicts tab says; the history's text and Markdown say
“undone” where the History tab does; Edit ▸ Undo and the Keep dialogs name the facts."""

from __future__ import annotations

import html
import json
import subprocess
import sys
from pathlib import Path

from conflicts_sample import ready, row_of, show, workspace  # noqa: F401 - a fixture
from test_conflicts_tab import decide

from memorydesk.browse import naming
from memorydesk.store import open_workspace
from memorydesk.ui.conflicts.model import column

DESK = Path(sys.executable).with_name("memory-desk")


def _desk(*args: str) -> str:
    out = subprocess.run([str(DESK), *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _names(path: Path, a: str, b: str) -> tuple[naming.PairName, naming.PairName]:
    """The two facts named against each other (the words that tell them apart, author, time)."""
    with open_workspace(path, read_only=True) as ws:
        return naming.conflict_names(ws, a, b)


def test_after_restore_loser_the_command_says_what_the_tab_says(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    _v1, v2, v3 = ids["chain"]
    win = open_window(path)
    tab = ready(qtbot, win)
    show(qtbot, win, tab, row_of(tab, v2, v3))
    decide(qtbot, win, tab, tab.acts.restore, "v2 was right")
    qtbot.waitUntil(lambda: tab.model.index(row_of(tab, v2, v3), column("state")).data() ==
                    "superseded · loser restored", timeout=10000)
    loser, winner = _names(path, v2, v3)
    qtbot.waitUntil(lambda: loser.short in win.act_undo.text(), timeout=10000)
    assert win.act_undo.text() == f"&Undo “Restore {loser.short} over {winner.short}”"
    assert "…region is eu-central-1…" in loser.short and "…region is us-east-1…" in winner.short
    line = next(x for x in json.loads(_desk("conflicts", str(path), "--json", "--fact", v2))
                if {x["fact_a"], x["fact_b"]} == {v2, v3})
    assert line["state"] == "superseded" and line["decision"]["words"] == "loser restored"
    assert line["decision"]["decision"] == "restored" and line["decision"]["by"] == win.session.actor
    text = [x for x in _desk("conflicts", str(path), "--fact", v2).splitlines() if v3 in x]
    assert len(text) == 1 and "superseded · loser restored" in text[0]

    win.act_undo.trigger()  # the decision undone: the tab, the JSON and the history agree again
    qtbot.waitUntil(lambda: tab.model.index(row_of(tab, v2, v3), column("state")).data() == "superseded",
                    timeout=10000)
    line = next(x for x in json.loads(_desk("conflicts", str(path), "--json", "--fact", v2))
                if {x["fact_a"], x["fact_b"]} == {v2, v3})
    assert line["decision"] is None
    history = win.show_tab("history")
    qtbot.waitUntil(lambda: history.model.rowCount() > 0 and win.ops.pending == 0, timeout=10000)
    what = [k for k, _l in history.model.COLUMNS].index("what")
    shown = [history.model.index(r, what).data() for r in range(history.model.rowCount())]
    assert "conflict restore_loser · undone" in shown
    lines = _desk("history", str(path), "--kind", "conflict").splitlines()
    assert any("conflict restore_loser · undone" in x and "v2 was right" in x for x in lines)
    md = _desk("history", str(path), "--kind", "conflict", "--format", "markdown")
    assert "| conflict restore_loser · undone |" in md
    rows = json.loads(_desk("history", str(path), "--kind", "conflict", "--json"))
    assert [r["undone"] for r in rows if r["action"] == "restore_loser"] == [True]


def test_the_keep_dialog_and_edit_undo_name_the_facts(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    a, b = ids["pair"]
    win = open_window(path)
    tab = ready(qtbot, win)
    show(qtbot, win, tab, row_of(tab, a, b))
    tab.acts.keep_b.trigger()
    qtbot.waitUntil(lambda: tab.acts.dialog is not None and tab.acts.dialog.isVisible(), timeout=5000)
    words = tab.acts.dialog.findChild(type(tab.acts.dialog.problem), "explanation").text()
    name_a, name_b = _names(path, a, b)
    assert f"Fact B {html.escape(name_b.shown)} is kept; fact A {html.escape(name_a.shown)} is superseded" in words
    tab.acts.dialog.reject()
    qtbot.waitUntil(lambda: tab.acts.dialog is None, timeout=5000)
    decide(qtbot, win, tab, tab.acts.keep_b, "B is the newer rule")
    qtbot.waitUntil(lambda: "Keep" in win.act_undo.text() and "conflict" not in win.act_undo.text(), timeout=10000)
    assert win.act_undo.text() == f"&Undo “Keep {name_b.short} over {name_a.short}”"
