"""The audit window's Compare page: two kept runs side by side, as ``memory-desk audit compare``
says it (``browse.audit.compare``): recall@10 then and now, per group, the facts newly lost and
brought back with the stage that changed and the likely cause, the facts in only one run.
The comparison runs on the worker; double-click (or Enter) on a fact opens it in the Facts tab."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.audit import compare as audit_compare
from memorydesk.browse.audit.runs import Run
from memorydesk.core.errors import MemoryDeskError
from memorydesk.search.loss import STAGE_WORDS
from memorydesk.ui.audit.tables import fill, pct, table, when
from memorydesk.ui.session import DeskSession
from memorydesk.ui.widgets.splitter import splitter


def run_label(run: Run) -> str:
    what = "every fact" if run.sample is None else f"sample {run.sample:,}"
    if run.kind == "queries":
        what = "your questions"
    return f"{run.id} — {when(run.at)} — {pct(run.recall)} ({what})"


class ComparePage(QWidget):
    def __init__(self, session: DeskSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.report: dict[str, Any] | None = None
        self.runs: list[Run] = []
        self.run_a = QComboBox()
        self.run_a.setObjectName("compare-a")
        self.run_b = QComboBox()
        self.run_b.setObjectName("compare-b")
        self.go = QPushButton("Co&mpare")
        self.go.setObjectName("compare-go")
        self.go.setAutoDefault(False)
        self.go.clicked.connect(self.start)
        self.head = QLabel("Keep two runs (every run in this window is kept), then compare them.")
        self.head.setObjectName("compare-head")
        self.head.setWordWrap(True)
        self.head.setTextFormat(Qt.TextFormat.RichText)
        self.groups = table("compare-groups", ["Group (facts in both runs)", "recall@10 then", "now", "change",
                                               "facts"])
        self.lost = table("compare-lost", ["Fact", "then", "now", "likely cause"], stretch=3)
        self.back = table("compare-back", ["Fact", "then", "now", "likely cause"], stretch=3)
        self.only = table("compare-only", ["Fact", "in run", "stage", "what became of it"], stretch=3)
        self.lists = QTabWidget()
        self.lists.setObjectName("compare-lists")
        for widget, title in ((self.lost, "Newly lost"), (self.back, "Brought back"), (self.only, "In one run only")):
            self.lists.addTab(widget, title)
            widget.cellDoubleClicked.connect(lambda row, _col, w=widget: self._open(w, row))
        pick = QHBoxLayout()
        pick.addWidget(QLabel("Then:"))
        pick.addWidget(self.run_a, 1)
        pick.addWidget(QLabel("Now:"))
        pick.addWidget(self.run_b, 1)
        pick.addWidget(self.go)
        split = splitter(Qt.Orientation.Vertical, self.groups, self.lists, stretch=(0, 2))
        layout = QVBoxLayout(self)
        layout.addLayout(pick)
        layout.addWidget(self.head)
        layout.addWidget(split, 1)
        layout.addWidget(QLabel("<i>Double-click a fact to open it in the Facts tab.</i>"))

    def set_runs(self, runs: list[Run]) -> None:
        """The kept runs to choose from, newest last; by default the two newest."""
        keep = (self.run_a.currentData(), self.run_b.currentData())
        if keep[0] == keep[1]:  # one run chosen twice (there was only one): the two newest now
            keep = (None, None)
        self.runs = runs
        for box in (self.run_a, self.run_b):
            box.blockSignals(True)
            box.clear()
            for run in runs:
                box.addItem(run_label(run), run.id)
            box.blockSignals(False)
        a = self.run_a.findData(keep[0]) if keep[0] else -1
        b = self.run_b.findData(keep[1]) if keep[1] else -1
        self.run_a.setCurrentIndex(a if a >= 0 else max(len(runs) - 2, 0))
        self.run_b.setCurrentIndex(b if b >= 0 else len(runs) - 1)
        self.go.setEnabled(len(runs) >= 2)

    def choose(self, run_a: str, run_b: str) -> None:
        self.run_a.setCurrentIndex(self.run_a.findData(run_a))
        self.run_b.setCurrentIndex(self.run_b.findData(run_b))

    def start(self) -> None:
        a, b = self.run_a.currentData(), self.run_b.currentData()
        if a is None or b is None:
            return
        if a == b:
            self.head.setText("Choose two different runs.")
            return
        self.session.ops.start(self._compare(a, b), owner=self)

    async def _compare(self, a: str, b: str) -> None:
        ws = self.session.ws
        self.go.setEnabled(False)
        self.head.setText("Comparing…")
        try:
            report = await self.session.ops.call(lambda: audit_compare.compare(ws, a, b), label="comparing two runs",
                                                 quiet=True)
        except MemoryDeskError as exc:
            self.head.setText(html.escape(str(exc)))
            return
        finally:
            self.go.setEnabled(len(self.runs) >= 2)
        self.show_report(report)

    def show_report(self, report: dict[str, Any]) -> None:
        self.report = report
        a, b = report["a"], report["b"]
        first, second = audit_compare.headline(report, pct)
        lines = [f"<b>{html.escape(first)}</b> — run {a['run']} ({when(a['at'])}) and run {b['run']} "
                 f"({when(b['at'])}).", html.escape(second) + ".",
                 f"{report['in_both']:,} facts in both runs: {len(report['newly_lost']):,} newly lost, "
                 f"{len(report['brought_back']):,} brought back; "
                 f"{len(report['only_in_a']) + len(report['only_in_b']):,} in one run only."]
        lines += [f"<i>{html.escape(n)}</i>" for n in report["notes"]]
        self.head.setText("<br>".join(lines))
        fill(self.groups, [[f"{g['group'].replace('_', ' ')}: {g['label']}",
                            pct(g["a"]["recall"]), pct(g["b"]["recall"]),
                            "—" if g["change"] is None else f"{g['change'] * 100:+.1f}",
                            f"{g['a']['facts']:,}"] for g in report["groups"]])
        for widget, key in ((self.lost, "newly_lost"), (self.back, "brought_back")):
            fill(widget, [[e["id"], STAGE_WORDS[e["from"]], STAGE_WORDS[e["to"]], e["why"]] for e in report[key]],
                 ids=[e["id"] for e in report[key]])
        only = [(e, a["run"]) for e in report["only_in_a"]] + [(e, b["run"]) for e in report["only_in_b"]]
        fill(self.only, [[e["id"], run, STAGE_WORDS[e["stage"]], e["why"]] for e, run in only],
             ids=[e["id"] for e, _run in only])
        for n, (key, title) in enumerate((("newly_lost", "Newly lost"), ("brought_back", "Brought back"))):
            self.lists.setTabText(n, f"{title} ({len(report[key]):,})")
        self.lists.setTabText(2, f"In one run only ({len(only):,})")

    def _open(self, widget: QTableWidget, row: int) -> None:
        item = widget.item(row, 0)
        if item is not None:
            self.session.navigate("facts", fact=item.data(Qt.ItemDataRole.UserRole) or item.text())
