"""At 1280×800 nothing the person needs is cut off (issue 34, point 13): History's before and
after is a field-by-field table that fits its pane (not raw JSON running off its edge), and the
run detail's version labels are whole however long a version is. The backup path after the
first change: tests/gui/test_open_changes_nothing.py."""

from __future__ import annotations

from datetime import timedelta

import desk_sample
from guihelp import wait_idle

from fixtures.receipts import NOW, complete_lineage
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage.run_detail import explain
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store import open_workspace
from memorydesk.ui.lineage.detail import Swimlane

FACT = desk_sample.fid(4)


def test_histories_before_and_after_is_a_field_by_field_table(open_window, sample_path, qtbot) -> None:
    with open_workspace(sample_path) as ws:
        r = Reviewer(ws, "Ann", embedder=False)
        r.edit_fact(FACT, domain="codebase", topic="topic 4", content="corrected content of fact 4",
                    confidence=0.75, reason="typo")
        r.set_policy_active(desk_sample.fid(802), True, reason="back in use")
    win = open_window(sample_path)
    win.resize(1280, 800)
    tab = win.show_tab("history")
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: tab.model.rowCount() >= 2, timeout=10000)

    def shown(action: str) -> str:
        row = next(r for r in range(tab.model.rowCount()) if tab.model.row_at(r).action == action
                   and tab.model.row_at(r).actor == "Ann")
        tab.view.setCurrentIndex(tab.model.index(row, 0))
        qtbot.waitUntil(lambda: "reading…" not in tab.detail.toPlainText() and win.ops.pending == 0, timeout=10000)
        return tab.detail.toPlainText()

    edit = shown("edit")  # the two versions share a topic: each is named by its first words too
    assert "fact “topic 4: content” · content\ncontent of fact 4\ncorrected content of fact 4" in edit
    assert "fact “topic 4: content” · confidence\n0.5\n0.75" in edit
    assert "· superseded_by\nactive (not superseded)\nsuperseded by fact “topic 4: corrected”" in edit
    assert "new_row" not in edit and "{" not in edit  # no stored JSON
    assert tab.detail.horizontalScrollBar().maximum() == 0  # nothing runs off the pane's right edge
    activated = shown("activate")
    assert "policy “Use Jenkins.” · active" in activated and "inactive" in activated
    assert tab.detail.horizontalScrollBar().maximum() == 0


def test_version_labels_are_whole_in_the_run_detail_or_whole_in_its_tooltip(qtbot) -> None:
    lane = Swimlane()
    qtbot.addWidget(lane)
    for version in ("qa-2025-05-01#17", "qa-" + "long-version-name-" * 6):  # an imported version can be long
        receipts = [receipt_from_json(r, line=n) for n, r in enumerate(complete_lineage(version=version), 1)]
        lane.set_detail(explain(receipts, NOW, timedelta(hours=24)))
        wide = lane.fontMetrics().horizontalAdvance(version)
        if wide + 10 <= Swimlane.LABEL_MAX:
            assert lane.label_width() >= wide + 6  # whole, not cut at a fixed 58 px
        else:
            assert lane.label_width() == Swimlane.LABEL_MAX  # elided in the middle, whole in the tooltip
        assert lane.sizeHint().width() >= lane.label_width() + Swimlane.CELL_W * 5
        assert version in lane.toolTip()
