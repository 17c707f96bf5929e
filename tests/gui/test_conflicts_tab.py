"""The Conflicts tab, driven as a person would: the folded lazy list with dangling rows
marked, the trail of one conflict, decisions with a reason (and Edit ▸ Undo), bursts
reviewed together, navigation both ways with the Facts tab, and the export."""

from __future__ import annotations

import json
import threading
from dataclasses import replace

from conflicts_sample import ready, row_of, settle, show, workspace  # noqa: F401 - a fixture
from guihelp import focus, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from memorydesk.store import guard
from memorydesk.ui.conflicts.model import column


def test_the_list_folds_marks_and_passes_the_model_tester(open_window, sample_db, qtbot, qtmodeltester,
                                                         expected) -> None:
    win = open_window(sample_db, read_only=True)
    tab = ready(qtbot, win)
    m = tab.model
    qtmodeltester.check(m)
    assert m.rowCount() == expected["counts"]["conflicts_total"] - 1
    assert tab.filters.counts.text() == f"{m.rowCount()} lines ({expected['counts']['conflicts_total']} rows)"
    folded = [r for r in range(m.rowCount()) if m.index(r, column("count")).data() == "×2"]
    assert len(folded) == 1 and m.index(folded[0], column("type")).data() == "cross-agent"
    dangling = [r for r in range(m.rowCount()) if "dangling" in m.index(r, column("state")).data()]
    assert len(dangling) == expected["counts"]["conflicts_referencing_missing_fact"]
    for r in dangling:
        cells = [m.index(r, column(side)) for side in ("a", "b")]
        missing = [c for c in cells if c.data().startswith("missing fact")]
        assert len(missing) == 1
        assert missing[0].data(Qt.ItemDataRole.DecorationRole) is not None
        assert missing[0].data(Qt.ItemDataRole.ForegroundRole).color().red() > 150
    assert all(not a.isEnabled() for a in tab.acts.writes)  # read-only: every decision is off, and says why
    assert "read-only" in tab.acts.restore.toolTip()


def test_the_trail_shows_both_facts_the_decision_and_the_chain(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    win = open_window(path)
    tab = ready(qtbot, win)
    v1, v2, v3 = ids["chain"]
    trail = show(qtbot, win, tab, row_of(tab, v1, v2))
    text = tab.trail.toPlainText()
    assert trail.a.id == v1
    assert "eu-west-1" in text and "eu-central-1" in text
    assert "line-through" in tab.trail.toHtml() and "The recorded winner (B) is what the rule gives today" in text
    assert "0.600" in text and "× 1.000" in text and "= 0.800" in text
    assert f"in force now: {v3[:8]}… (active)" in text and "A → B on" in text and "agent ada (its write)" in text
    assert "Related conflicts (1)" in text
    # the winner v2 was superseded since: the restore still works, on the version in force (v3)
    assert tab.acts.restore.isEnabled() and tab.acts.confirm.isEnabled()
    assert f"{v3[:8]}… — the version of B in force now — is superseded by it" in tab.acts.restore.toolTip()


def decide(qtbot, win, tab, action, reason: str) -> None:
    focus(qtbot, tab.view)
    qtbot.keyClick(tab.view, action.shortcut()[0].key(), action.shortcut()[0].keyboardModifiers())
    qtbot.waitUntil(lambda: tab.acts.dialog is not None and tab.acts.dialog.isVisible(), timeout=5000)
    dialog = tab.acts.dialog
    dialog.ok.click()  # no reason yet: refused, says why
    assert dialog.isVisible() and "Say why" in dialog.problem.text()
    qtbot.keyClicks(dialog.reason, reason)
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: tab.acts.dialog is None, timeout=5000)
    settle(qtbot, win, tab)


def test_keep_both_by_keyboard_then_undo(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    win = open_window(path)
    tab = ready(qtbot, win)
    row = row_of(tab, *ids["pair"])
    show(qtbot, win, tab, row)
    assert tab.model.index(row, column("state")).data() == "open"
    assert tab.acts.keep_both.isEnabled() and not tab.acts.restore.isEnabled()
    decide(qtbot, win, tab, tab.acts.keep_both, "both rules hold")
    row = row_of(tab, *ids["pair"])
    assert tab.model.index(row, column("state")).data() == "kept both"
    qtbot.waitUntil(lambda: "both rules hold" in tab.trail.toPlainText(), timeout=5000)
    assert not tab.acts.keep_both.isEnabled()
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: tab.model.line(row_of(tab, *ids["pair"])) is not None
                    and tab.model.line(row_of(tab, *ids["pair"])).state == "open", timeout=10000)


def test_restore_the_loser_from_the_toolbar_then_undo(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    win = open_window(path)
    tab = ready(qtbot, win)
    _v1, v2, v3 = ids["chain"]
    show(qtbot, win, tab, row_of(tab, v2, v3))
    assert tab.acts.restore.isEnabled()
    decide(qtbot, win, tab, tab.acts.restore, "v2 was right")
    qtbot.waitUntil(lambda: tab.trail.trail is not None and tab.trail.trail.a.state == "active",
                    timeout=5000)
    assert tab.trail.trail.b.superseded_by == v2
    facts = win.show_tab("facts")
    wait_idle(qtbot, win)

    def listed() -> set[str] | None:
        rows = [facts.model.fact(r) for r in range(facts.model.rowCount())]
        return None if None in rows else {f.id for f in rows}

    qtbot.waitUntil(lambda: listed() is not None, timeout=10000)
    assert v2 in listed() and v3 not in listed()  # the Facts tab followed (it lists active facts)
    win.show_tab("conflicts")
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: tab.trail.trail is not None and tab.trail.trail.a.state == "superseded",
                    timeout=10000)


def test_a_burst_is_listed_and_reviewed_together(open_window, workspace, qtbot, qtmodeltester) -> None:
    path, ids = workspace
    win = open_window(path)
    tab = ready(qtbot, win)
    tab.pages.setCurrentIndex(1)
    qtbot.waitUntil(lambda: tab.burst_model.rowCount() == 2 and tab.trail.burst is not None, timeout=10000)
    qtmodeltester.check(tab.burst_model)
    assert tab.pages.tabText(1) == "Bursts (2)"
    tab.burst_view.selectRow(1)
    qtbot.waitUntil(lambda: tab.trail.burst is not None and tab.trail.burst.winner.id == ids["burst_winner"],
                    timeout=5000)
    assert "one write superseded 4 facts" in tab.trail.toPlainText()
    tab.acts.review_burst.trigger()
    qtbot.waitUntil(lambda: tab.acts.dialog is not None and tab.acts.dialog.isVisible(), timeout=5000)
    dialog = tab.acts.dialog
    assert dialog.table.rowCount() == 4
    first = dialog.rows[0]
    dialog.set_restore({first.conflict})
    assert dialog.ok.text() == "Restore 1, confirm 3"
    qtbot.keyClicks(dialog.reason, "the summary lost a detail")
    dialog.ok.click()
    qtbot.waitUntil(lambda: tab.acts.dialog is None, timeout=5000)
    settle(qtbot, win, tab)
    qtbot.waitUntil(lambda: tab.trail.burst is not None and tab.burst_model.rowCount() == 2, timeout=10000)
    restored = next(d for d in tab.trail.burst.displaced if d.conflict == first.conflict)
    assert restored.fact.state == "active" and tab.burst_model.burst(1).reviewed == 4


def test_navigation_both_ways_with_the_facts_tab(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    win = open_window(path)
    facts = win.tab("facts")
    winner = ids["burst_winner"]
    facts.select_fact(winner)
    qtbot.waitUntil(lambda: [f.id for f in facts.selected_facts()] == [winner], timeout=10000)
    facts.acts.conflicts.trigger()  # Show Its Conflicts (in the list's context menu)
    tab = win.tab("conflicts")
    assert win.tabs.currentWidget() is tab
    qtbot.waitUntil(lambda: tab.model.rowCount() == 4 and tab.trail.trail is not None, timeout=15000)
    assert tab.filters.fact.text() == winner
    assert all(winner in (tab.model.line(r).fact_a, tab.model.line(r).fact_b) for r in range(4))
    assert tab.trail.trail.conflict.fact_b == winner
    loser = tab.trail.trail.a.id
    focus(qtbot, tab.view)
    qtbot.keyClick(tab.view, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert win.tabs.currentWidget() is facts
    qtbot.waitUntil(lambda: [f.id for f in facts.selected_facts()] == [loser], timeout=15000)
    assert facts.filters.state.currentData() == "all"  # widened: the loser is superseded


def test_export_copies_the_trail_and_a_content_free_variant(open_window, workspace, qtbot) -> None:
    path, ids = workspace
    win = open_window(path)
    tab = ready(qtbot, win)
    show(qtbot, win, tab, row_of(tab, *ids["pair"]))
    tab.acts.copy_json.trigger()
    doc = json.loads(QApplication.clipboard().text())
    assert doc["kind"] == "conflict_trail" and doc["conflict"]["fact_a"] in ids["pair"]
    tab.acts.copy_free_md.trigger()
    free = QApplication.clipboard().text()
    assert "Keep pull requests" not in free and "pr-size" not in free and ids["pair"][0] in free
    assert "Copied the trail as content-free Markdown" in win.statusBar().currentMessage()


def test_the_ui_thread_never_reads_the_database(open_window, workspace, qtbot, ui_thread_guarded) -> None:
    path, ids = workspace
    guard.allow(threading.get_ident())
    win = open_window(path)
    guard.forbid(threading.get_ident())
    tab = ready(qtbot, win)
    show(qtbot, win, tab, row_of(tab, *ids["pair"]))
    decide(qtbot, win, tab, tab.acts.keep_both, "both")
    tab.pages.setCurrentIndex(1)
    qtbot.waitUntil(lambda: tab.trail.burst is not None, timeout=10000)
    tab.filters.text.setText("escalation")
    qtbot.waitUntil(lambda: tab.model.rowCount() == 4, timeout=10000)
    assert ui_thread_guarded == []


def test_right_to_left_facts_are_laid_out_right_to_left(qtbot) -> None:
    from memorydesk.ui.conflicts.trail import TrailView

    view = TrailView()
    qtbot.addWidget(view)
    from memorydesk.browse.conflicts.trail_types import (
        Decision,
        Restore,
        RowRef,
        Trail,
        TrailChain,
        TrailConflict,
        TrailFact,
    )

    hebrew = TrailFact("h1", True, "superseded", content="הפריסה לייצור ביום שלישי בשעה 10", domain="ops",
                       topic="פריסה", weight=1.0, confidence=0.6, veracity="stated", veracity_read_as="stated",
                       superseded_by="h2")
    newer = replace(hebrew, id="h2", state="active", content="הפריסה לייצור ביום רביעי בשעה 10", confidence=0.9,
                    superseded_by=None)
    conflict = TrailConflict("c1", 1, "contradiction", "superseded", "h2", "h1", "h2", 1, 1, None,
                             (RowRef("c1", 1, 1),), 1, 1, state="superseded")
    trail = Trail(conflict, hebrew, newer, Decision("h2", note="n"), TrailChain(), TrailChain(), (),
                  Restore(False, ""), (), ())
    view.show_trail(trail)
    doc = view.document()
    block = doc.begin()
    directions = {}
    while block.isValid():
        if "ביום" in block.text():
            fmt = block.blockFormat()
            directions[block.text()] = (fmt.layoutDirection(), bool(fmt.alignment() & Qt.AlignmentFlag.AlignRight))
        block = block.next()
    assert len(directions) == 2
    assert set(directions.values()) == {(Qt.LayoutDirection.RightToLeft, True)}  # set, not guessed


def test_a_harmonize_pass_by_another_process_folds_into_the_line(open_window, workspace, qtbot) -> None:
    import subprocess
    import sys
    import textwrap

    path, ids = workspace
    win = open_window(path)
    tab = ready(qtbot, win)
    row = row_of(tab, *ids["pair"])
    assert tab.model.line(row).count == 3
    lines = tab.model.rowCount()
    a, b = ids["pair"]
    script = textwrap.dedent(f"""
        import sqlite3
        con = sqlite3.connect({str(path)!r}, timeout=5)
        ws = con.execute("SELECT workspace_id FROM memory_facts_table LIMIT 1").fetchone()[0]
        with con:
            con.execute("INSERT INTO memory_conflicts_table (id, workspace_id, fact_a_id, fact_b_id, conflict_type, "
                        "created_at) VALUES ('from-outside', ?, ?, ?, 'cross_agent', 1790000000)", (ws, {a!r}, {b!r}))
        con.close()
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=30)
    qtbot.waitUntil(lambda: tab.model.line(0) is not None and tab.model.line(0).count == 4, timeout=15000)
    assert tab.model.rowCount() == lines  # the same line, one more row
    assert tab.model.line(0).ids[0] == "from-outside"
