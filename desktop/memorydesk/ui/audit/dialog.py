"""Tools ▸ Recall Audit…: which facts the agent can never get back, at which step, and what
would fix it.

The audit asks the agent's hybrid recall for each fact's own topic (all active facts, or a
seeded sample), or the questions in a file people collected, and shows recall@10 overall
and by domain, type, age and veracity, how many facts each stage loses, and — labelled as
NOT what the product does — the same under named alternatives. It runs as a job (progress
and Cancel in the status bar; a stopped audit shows what it got through). Double-click a
fact to open it in the Facts tab.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memorydesk.core.errors import BadInput
from memorydesk.core.fusion import VARIANTS
from memorydesk.core.outputs import refuse_overwriting_input
from memorydesk.search import audit
from memorydesk.search.loss import STAGE_WORDS, STAGES
from memorydesk.ui.audit.model import AuditFactsModel
from memorydesk.ui.session import DeskSession

GROUPS = (("by_domain", "By domain"), ("by_memory_type", "By type"), ("by_age", "By age"),
          ("by_veracity", "By veracity"))


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def _table(name: str, headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    table.setAlternatingRowColors(True)
    return table


def _fill(table: QTableWidget, rows: list[list[str]]) -> None:
    table.setRowCount(len(rows))
    for r, values in enumerate(rows):
        for c, value in enumerate(values):
            item = QTableWidgetItem(value)
            if c:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, c, item)


class RecallAuditDialog(QDialog):
    def __init__(self, session: DeskSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recall-audit")
        self.setWindowTitle("Recall audit — can the agent get its facts back?")
        self.session = session
        self.report: dict[str, Any] | None = None
        self.queries_path: Path | None = None

        self.all_facts = QRadioButton("Every active fact")
        self.sampled = QRadioButton("A sample of")
        self.sampled.setChecked(True)
        self.sample = QSpinBox()
        self.sample.setObjectName("audit-sample")
        self.sample.setRange(1, 1_000_000)
        self.sample.setValue(1000)
        self.sample.setSuffix(" facts")
        self.seed = QSpinBox()
        self.seed.setObjectName("audit-seed")
        self.seed.setRange(0, 1_000_000)
        self.seed.setPrefix("seed ")
        self.own = QRadioButton("Your own questions:")
        self.pick = QPushButton("Choose a file…")
        self.pick.setObjectName("audit-queries")
        self.pick.setToolTip('A JSON list of {"query": "text", "expect": ["fact id", …]}')
        self.pick.clicked.connect(self._choose_queries)
        which = QButtonGroup(self)
        for button in (self.all_facts, self.sampled, self.own):
            which.addButton(button)
        self.what_if = {name: QCheckBox(name) for name in VARIANTS}
        for name, box in self.what_if.items():
            box.setObjectName(f"what-if-{name}")
        self.run_button = QPushButton("Run audit")
        self.run_button.setObjectName("audit-run")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(lambda: self.session.ops.start(self.run(), owner=self))
        self.save_button = QPushButton("Save report…")
        self.save_button.setObjectName("audit-save")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self._save)

        scope = QGroupBox("Ask the agent's hybrid recall for each fact's own topic")
        grid = QGridLayout(scope)
        grid.addWidget(self.all_facts, 0, 0)
        grid.addWidget(self.sampled, 1, 0)
        grid.addWidget(self.sample, 1, 1)
        grid.addWidget(self.seed, 1, 2)
        grid.addWidget(self.own, 2, 0)
        grid.addWidget(self.pick, 2, 1, 1, 2)
        alternatives = QGroupBox("What would fix it — also run under (NOT what the product does)")
        alt = QHBoxLayout(alternatives)
        for box in self.what_if.values():
            alt.addWidget(box)
        top = QHBoxLayout()
        top.addWidget(scope, 1)
        top.addWidget(alternatives, 1)

        self.summary = QLabel("Choose what to audit and press Run. Searches are previews: nothing is recorded.")
        self.summary.setObjectName("audit-summary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.groups = QTabWidget()
        self.group_tables = {key: _table(f"audit-{key}", [title[3:].capitalize(), "recall@10", "found", "facts"])
                             for key, title in GROUPS}
        for key, title in GROUPS:
            self.groups.addTab(self.group_tables[key], title)
        self.whatif_table = _table("audit-what-if", ["Alternative (not what the product does)", "recall@10",
                                                     "brings back", "newly lost"])
        self.groups.addTab(self.whatif_table, "What if…")
        self.stage = QComboBox()
        self.stage.setObjectName("audit-stage")
        self.stage.addItem("Every audited fact", None)
        for stage in STAGES:
            self.stage.addItem(STAGE_WORDS[stage], stage)
        self.model = AuditFactsModel(self)
        self.stage.currentIndexChanged.connect(lambda _i: self.model.set_stage(self.stage.currentData()))
        self.facts = QTableView()
        self.facts.setObjectName("audit-facts")
        self.facts.setModel(self.model)
        self.facts.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.facts.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.facts.verticalHeader().setVisible(False)
        self.facts.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.facts.doubleClicked.connect(self._open_fact)
        self.facts.activated.connect(self._open_fact)
        lower = QWidget()
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel("Facts:"))
        row.addWidget(self.stage)
        row.addStretch(1)
        row.addWidget(QLabel("<i>Double-click (or Enter) opens a fact in the Facts tab.</i>"))
        ll.addLayout(row)
        ll.addWidget(self.facts, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.groups)
        split.addWidget(lower)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.run_button)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        layout.addLayout(buttons)
        self.resize(1100, 760)

    # --- running ------------------------------------------------------------------------

    def _choose_queries(self) -> None:
        path, _f = QFileDialog.getOpenFileName(self, "Questions to audit", "", "JSON (*.json);;All files (*)")
        if path:
            self.queries_path = Path(path)
            self.pick.setText(self.queries_path.name)
            self.own.setChecked(True)

    async def run(self) -> None:
        names = [name for name, box in self.what_if.items() if box.isChecked()]
        sample = None if self.all_facts.isChecked() else self.sample.value()
        seed = self.seed.value()
        queries = None
        if self.own.isChecked():
            if self.queries_path is None:
                self.summary.setText("Choose a file of questions first.")
                return
            try:
                queries = audit.load_queries(self.queries_path)
            except BadInput as exc:
                self.summary.setText(f"That file cannot be used: {html.escape(str(exc))}")
                return
        self.run_button.setEnabled(False)
        self.summary.setText("Auditing… (progress and Cancel in the status bar)")

        def work(ws: Any, job: Any) -> dict[str, Any]:
            progress, stop = job.report, (lambda: job.cancelled)
            if queries is not None:
                return audit.audit_queries(ws, queries, what_if=names, progress=progress, cancelled=stop)
            return audit.audit_workspace(ws, sample=sample, seed=seed, what_if=names, progress=progress,
                                         cancelled=stop)

        try:
            report = await self.session.job("Recall audit", work)
        finally:
            self.run_button.setEnabled(True)
        self.show_report(report)

    def show_report(self, report: dict[str, Any]) -> None:
        self.report = report
        s = report["summary"]
        rows = report.get("facts", report.get("results", []))
        total = s.get("facts", s.get("targets", 0))
        stages = " · ".join(f"{STAGE_WORDS[k]} {v:,}" for k, v in s["stages"].items())
        partial = "" if s.get("complete", True) else " <b>(stopped: the facts audited before Cancel)</b>"
        lines = [f"<b>recall@10 {_pct(s['recall_at_10'])}</b> — {s['found']:,} of {total:,} come back in the agent's "
                 f"top 10 when it is asked for their own topic{partial}.", stages]
        if "unreachable" in s:
            lines.append(f"{s['unreachable']['count']:,} can be reached by no query at all (no embedding and no "
                         "a–z/0–9 keyword term).")
        self.summary.setText("<br>".join(lines))
        for key, _title in GROUPS:
            _fill(self.group_tables[key], [[label, _pct(v["recall_at_10"]), f"{v['found']:,}", f"{v['facts']:,}"]
                                           for label, v in s.get(key, {}).items()])
        _fill(self.whatif_table, [[name, _pct(v["recall_at_10"]), f"{v['brought_back']:,}", f"{v['newly_lost']:,}"]
                                  for name, v in s.get("what_if", {}).items()])
        self.model.set_rows([{**r, "id": r.get("id", r.get("target"))} for r in rows])
        self.save_button.setEnabled(True)

    def _save(self) -> None:
        if self.report is None:
            return
        path, _f = QFileDialog.getSaveFileName(self, "Save the audit", "recall-audit.json", "JSON (*.json)")
        if path:
            try:
                refuse_overwriting_input(path, [self.session.ws.path], "the audit file")
            except BadInput as exc:  # never over the workspace or its side files
                self.session.status.emit(str(exc))
                return
            Path(path).write_text(json.dumps(self.report, ensure_ascii=False, indent=2), encoding="utf-8")
            self.session.status.emit(f"Saved the recall audit to {path}")

    def _open_fact(self, index: Any) -> None:
        entry = self.model.row_at(index.row())
        if entry is not None:
            self.session.navigate("facts", fact=entry["id"])
