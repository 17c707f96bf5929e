"""The audit window's Runs page: every run kept in the workspace (``browse.audit.runs``), its
recall@10 trend (``trend.TrendPlot``), and a way to open or compare them. ``opened`` asks the
window to show a run; ``compare`` to compare two (ids)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from memorydesk.browse.audit.runs import Run
from memorydesk.ui.audit.tables import fill, pct, table, when
from memorydesk.ui.audit.trend import TrendPlot
from memorydesk.ui.widgets.splitter import splitter

#: where a kept run was started, in words (``origin`` as stored)
ORIGIN_WORDS = {"window": "run in the window", "command": "run from the command line"}


class RunsPage(QWidget):
    opened = Signal(str)
    compare = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runs: list[Run] = []
        self.trend = TrendPlot()
        self.trend.opened.connect(self.opened)
        self.table = table("audit-runs", ["Run", "When", "recall@10", "Facts", "What", "Data"], stretch=4)
        self.table.cellDoubleClicked.connect(lambda row, _c: self._open_row(row))
        self.note = QLabel("")
        self.note.setObjectName("audit-runs-note")
        self.note.setWordWrap(True)
        self.open_button = QPushButton("&Open run")
        self.open_button.setObjectName("audit-runs-open")
        self.open_button.clicked.connect(lambda: self._open_row(self.table.currentRow()))
        self.compare_button = QPushButton("Compare with the run &before")
        self.compare_button.setObjectName("audit-runs-compare")
        self.compare_button.clicked.connect(self._compare_before)
        for b in (self.open_button, self.compare_button):
            b.setAutoDefault(False)
        lower = QWidget()
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addWidget(self.note, 1)
        row.addWidget(self.open_button)
        row.addWidget(self.compare_button)
        ll.addLayout(row)
        split = splitter(Qt.Orientation.Vertical, self.trend, lower)
        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)

    def set_runs(self, runs: list[Run], note: str = "") -> None:
        self.runs = runs
        rows, previous = [], None
        for r in runs:
            what = ("every fact" if r.sample is None else f"sample {r.sample:,}, seed {r.seed}") \
                if r.kind == "topics" else "your questions"
            what += f", {ORIGIN_WORDS.get(r.origin, r.origin)}" + ("" if r.complete else ", stopped")
            if r.what_if:
                what += f", what-ifs: {', '.join(r.what_if)}"
            data = "—" if previous is None else ("same" if previous.data_stamp == r.data_stamp else "changed")
            rows.append([r.id, when(r.at), pct(r.recall), f"{r.facts:,}", what, data])
            previous = r
        fill(self.table, rows, ids=[r.id for r in runs])
        if runs:
            self.table.selectRow(len(runs) - 1)
        self.trend.set_runs(runs)
        self.note.setText(note or (f"{len(runs):,} run(s) kept in this workspace." if runs else
                                   "No runs kept yet: each audit run in this window is kept in the workspace."))
        self.open_button.setEnabled(bool(runs))
        self.compare_button.setEnabled(len(runs) >= 2)

    def _open_row(self, row: int) -> None:
        if 0 <= row < len(self.runs):
            self.opened.emit(self.runs[row].id)

    def _compare_before(self) -> None:
        row = self.table.currentRow()
        if row <= 0:
            row = len(self.runs) - 1
        if 1 <= row < len(self.runs):
            self.compare.emit(self.runs[row - 1].id, self.runs[row].id)
