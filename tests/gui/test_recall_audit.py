"""Can the agent get it back? The agent view's misses and funnel, the detail pane's answer,
and Tools ▸ Recall Audit, on real widgets — checked against the search's own diagnosis."""

from __future__ import annotations

import time

import desk_sample
from guihelp import row_of_topic, wait_idle
from PySide6.QtCore import Qt

from memorydesk.search import audit
from memorydesk.search.agent import keyword_search, search
from memorydesk.search.loss import STAGE_WORDS, lost_at
from memorydesk.ui.facts.model import COLUMNS
from memorydesk.ui.facts.recall import HEADS


def test_the_agent_view_says_what_it_misses_and_why(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    tab.filters.set_search("content fact", agent_view=True)  # 20 facts match: the 10 cannot hold them all
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: tab.model.agent_view, timeout=10000)
    hits = tab.agent_result.ids
    missed = [fid for fid in keyword_search(win.ws, "content fact").ids if fid not in hits][0]
    text = tab.misses.text()
    assert tab.misses.isVisible() and "What the agent misses" in text
    assert f"Best keyword match: <a href='fact:{missed}'>" in text
    # each hit's "after MMR" value is the one MMR compared
    column = [name for name, _label in COLUMNS].index("mmr")
    for row in range(tab.model.rowCount()):
        hit = tab.model.hit(tab.model.fact(row).id)[1]
        assert tab.model.index(row, column).data() == f"{hit.mmr_value:.5f}"
    tab.select_row(0)
    qtbot.waitUntil(lambda: "Its place after each step" in tab.detail.why.text(), timeout=10000)


def test_a_missed_fact_shows_its_stage(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    tab.filters.set_search("content fact", agent_view=True)
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: tab.model.agent_view, timeout=10000)
    assert tab._missed, tab.misses.text()  # 20 facts say "content of fact n": the 10 cannot hold them all
    fact_id, missed = next(iter(tab._missed.items()))
    expected = lost_at(search(win.ws, "content fact", now=tab.agent_now), fact_id)
    assert missed.loss.stage == expected.stage != "found"
    tab.misses.linkActivated.emit(f"fact:{fact_id}")
    qtbot.waitUntil(lambda: tab.detail.fact_id == fact_id, timeout=10000)
    assert "not among the agent's 10" in tab.detail.why.text()


def test_the_detail_pane_answers_can_the_agent_get_it_back(open_window, sample_path, qtbot) -> None:
    win = open_window(sample_path)
    tab = win.tab("facts")
    tab.select_row(row_of_topic(tab, "topic 4"))
    qtbot.waitUntil(lambda: tab.detail.fact_id == desk_sample.fid(4), timeout=10000)
    page = tab.detail.recall
    tab.detail.pages.setCurrentWidget(tab.detail.pages.widget(3))
    qtbot.waitUntil(lambda: "For its own topic" in page.own.text(), timeout=15000)
    own = lost_at(search(win.ws, "topic 4", now=time.time()), desk_sample.fid(4))
    assert {"found": f"Found: #{own.rank}", "not_candidate": "Not a candidate", **HEADS}[own.stage] in page.own.text()
    qtbot.keyClicks(page.query, "wednesday deploy")
    qtbot.keyClick(page.query, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "this query" in page.answer.text(), timeout=15000)
    typed = lost_at(search(win.ws, "wednesday deploy", now=time.time()), desk_sample.fid(4))
    words = {"found": f"Found: #{typed.rank}", "not_candidate": "Not a candidate", **HEADS}
    assert words[typed.stage] in page.answer.text()


def test_the_recall_audit_window(open_window, sample_path, qtbot, qtmodeltester) -> None:
    win = open_window(sample_path)
    win.act_audit.trigger()
    dialog = win.dialog
    qtbot.addWidget(dialog)
    assert dialog.isVisible()
    dialog.all_facts.setChecked(True)
    dialog.what_if["no-decay"].setChecked(True)
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=60000)
    expected = audit.audit_workspace(win.ws, now=dialog.report["summary"]["now"], what_if=["no-decay"])
    assert dialog.report == expected
    assert dialog.model.rowCount() == expected["summary"]["facts"] == 26
    qtmodeltester.check(dialog.model)
    assert f"{100 * expected['summary']['recall_at_10']:.1f} %" in dialog.summary.text()
    assert dialog.whatif_table.rowCount() == 1 and dialog.whatif_table.item(0, 0).text() == "no-decay"
    stage = next(iter(expected["summary"]["stages"]))
    dialog.stage.setCurrentIndex(dialog.stage.findData(stage))
    assert dialog.model.rowCount() == expected["summary"]["stages"][stage]
    assert dialog.model.index(0, 0).data() == STAGE_WORDS[stage]
    target = dialog.model.row_at(0)["id"]
    dialog.facts.doubleClicked.emit(dialog.model.index(0, 0))
    qtbot.waitUntil(lambda: win.tab("facts").detail.fact_id == target, timeout=10000)
    dialog.close()
