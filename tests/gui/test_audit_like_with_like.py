"""Compare like with like (issue 34, point 11): once a run is shown, running the audit again in
the window asks the same facts by default (the kept run's sample, whatever changed since), and
Compare's headline counts only the facts asked in both runs, and says so; a new sample is a
choice, and then the headline still counts only the facts the two samples share."""

from __future__ import annotations

import sqlite3
import uuid

from PySide6.QtCore import Qt

from memorydesk.browse.audit import compare as audit_compare
from memorydesk.browse.audit import runs as audit_runs


def _run(dialog, qtbot) -> audit_runs.Run:
    before = dialog.report
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.report is not before and dialog.job is None, timeout=60000)
    return audit_runs.get_run(dialog.session.ws, "latest")


def _ids(ws, run) -> list[str]:
    return sorted(f.fact_id for f in audit_runs.run_facts(ws, run))


def test_a_rerun_asks_the_same_facts_and_compare_counts_only_shared_ones(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    win.act_audit.trigger()
    dialog = win.dialog
    qtbot.addWidget(dialog)
    assert not dialog.again.isEnabled()  # nothing shown yet: nothing to ask again
    dialog.sampled.setChecked(True)
    dialog.sample.setValue(8)
    dialog.seed.setValue(3)
    first = _run(dialog, qtbot)
    assert dialog.again.isEnabled() and dialog.again.isChecked()  # the default for the next run
    assert dialog.again.text() == f"The same facts again (the 8 of run {first.id})"
    # another program writes facts: a new draw of the same seed would now pick other facts
    with sqlite3.connect(sample_path) as conn:
        ws_id = conn.execute("SELECT workspace_id FROM memory_facts_table LIMIT 1").fetchone()[0]
        for n in range(12):
            conn.execute("INSERT INTO memory_facts_table (id, workspace_id, domain, topic, content, confidence, "
                         "memory_type, veracity, created_at, updated_at) VALUES (?, ?, 'ops', ?, ?, 0.5, 'fact', "
                         "'stated', ?, ?)", (str(uuid.uuid4()), ws_id, f"new topic {n}", f"new content {n}",
                                             int(first.at) + 1, int(first.at) + 1))
    second = _run(dialog, qtbot)
    assert _ids(win.ws, second) == _ids(win.ws, first)  # the same facts, asked again
    assert (second.sample, second.seed) == (8, 3)
    page = dialog.compare_page  # with one run it offered that run twice; now it offers the two newest
    qtbot.waitUntil(lambda: (page.run_a.currentData(), page.run_b.currentData()) == (first.id, second.id),
                    timeout=10000)
    compared = audit_compare.compare(win.ws, first.id, second.id)
    assert compared["both"]["facts"] == 8 and not compared["only_in_a"] and not compared["only_in_b"]

    dialog.sampled.setChecked(True)  # a new sample, chosen: other facts
    dialog.seed.setValue(11)
    third = _run(dialog, qtbot)
    shared = set(_ids(win.ws, first)) & set(_ids(win.ws, third))
    assert set(_ids(win.ws, third)) != set(_ids(win.ws, first))
    qtbot.waitUntil(lambda: page.run_b.findData(third.id) >= 0, timeout=10000)  # the kept runs listed again
    dialog.compare_runs(first.id, third.id)
    qtbot.waitUntil(lambda: page.report is not None and page.report["b"]["run"] == third.id, timeout=20000)
    both = page.report["both"]
    assert both["facts"] == len(shared)
    found_a = {f.fact_id for f in audit_runs.run_facts(win.ws, first) if f.stage == "found"}
    found_b = {f.fact_id for f in audit_runs.run_facts(win.ws, third) if f.stage == "found"}
    if shared:
        assert both["a"] == round(len(found_a & shared) / len(shared), 4)
        assert both["b"] == round(len(found_b & shared) / len(shared), 4)
    head = page.head.text()
    assert f"recall@10 on the {len(shared)} facts in both runs" in head
    assert "in one run only, not in the figure above" in head
    dialog.close()
