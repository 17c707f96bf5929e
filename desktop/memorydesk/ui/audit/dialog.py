"""Tools ▸ Recall Audit…: which facts the agent can never get back, at which step, and what
would fix it.

The audit asks the agent's hybrid recall for each fact's own topic (all active facts, or a
seeded sample), or the questions in a file people collected, and shows recall@10 overall
and by domain, type, age and veracity, how many facts each stage loses, and — labelled as
NOT what the product does — the same under named alternatives. It runs as a job with its
progress and Cancel in the dialog itself (a stopped audit shows what it got through).

The results are kept: closing the dialog only hides it (the window keeps one per open
workspace), and they stay until a new run replaces them — which first offers to save
results that were not saved. Double-click or Enter on a fact opens it in the Facts tab;
Enter never starts a run (no button is the default; Alt+R runs).

Every run is also kept in the workspace (``browse.audit.runs``; not when it is open
read-only): the *Runs* page lists them with their recall@10 trend (a point opens its run),
the *Compare* page puts two side by side. Once a run is shown (just run, or opened from the
Runs page), running again defaults to *the same facts again*: that run's facts (or
questions) asked once more (``Plan.again``), so that Compare sets like against like; a new
sample is a choice. A run started while search's copies of the file are being built waits
for them, and its progress says so (``browse.audit.job``).
"""

from __future__ import annotations

import html
import json
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
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
    QMessageBox,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.audit import runs as audit_runs
from memorydesk.browse.audit.job import Plan, run_audit
from memorydesk.core.errors import BadInput, MemoryDeskError
from memorydesk.core.outputs import refuse_overwriting_input
from memorydesk.core.product.fusion import VARIANTS
from memorydesk.memory.audit_runs import save_run
from memorydesk.search import audit
from memorydesk.search.loss import STAGE_WORDS, STAGES
from memorydesk.ui.audit.compare_page import ComparePage
from memorydesk.ui.audit.model import AuditFactsModel
from memorydesk.ui.audit.runs_page import RunsPage
from memorydesk.ui.audit.tables import when
from memorydesk.ui.session import DeskSession
from memorydesk.ui.widgets.splitter import splitter

log = logging.getLogger("memorydesk.ui")
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
        self.saved = True  # the report shown was saved (or there is none)
        self.job: Any = None  # the run going on, if any
        self.asking: QMessageBox | None = None  # "save the last results first?"
        self.queries_path: Path | None = None
        self.shown_run: audit_runs.Run | None = None  # the kept run shown: what "the same facts again" asks

        self.again = QRadioButton("The same facts again")
        self.again.setObjectName("audit-again")
        self.again.setToolTip("Ask for exactly the facts (or questions) of the run shown, so that Compare "
                              "sets like against like")
        self.again.setEnabled(False)
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
        for button in (self.again, self.all_facts, self.sampled, self.own):
            which.addButton(button)
        self.what_if = {name: QCheckBox(name) for name in VARIANTS}
        for name, box in self.what_if.items():
            box.setObjectName(f"what-if-{name}")
        self.run_button = QPushButton("&Run audit")
        self.run_button.setObjectName("audit-run")
        self.run_button.clicked.connect(self.start_run)
        self.save_button = QPushButton("&Save report…")
        self.save_button.setObjectName("audit-save")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self._save)
        self.progress = QProgressBar()
        self.progress.setObjectName("audit-progress")
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("audit-cancel")
        self.cancel_button.setToolTip("Stop the audit; what it got through is shown")
        self.cancel_button.clicked.connect(self.cancel_run)
        self.cancel_button.hide()

        scope = QGroupBox("Ask the agent's hybrid recall for each fact's own topic")
        grid = QGridLayout(scope)
        grid.addWidget(self.again, 0, 0, 1, 3)
        grid.addWidget(self.all_facts, 1, 0)
        grid.addWidget(self.sampled, 2, 0)
        grid.addWidget(self.sample, 2, 1)
        grid.addWidget(self.seed, 2, 2)
        grid.addWidget(self.own, 3, 0)
        grid.addWidget(self.pick, 3, 1, 1, 2)
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
        self.facts.installEventFilter(self)  # Enter opens the fact, and goes no further
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
        split = splitter(Qt.Orientation.Vertical, self.groups, lower)
        buttons = QHBoxLayout()
        buttons.addWidget(self.progress, 1)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.run_button)
        close = QPushButton("Close")
        close.setObjectName("audit-close")
        close.setToolTip("Close this window; the results stay until the next run (Tools ▸ Recall Audit…)")
        close.clicked.connect(self.close)
        buttons.addWidget(close)
        for button in (self.run_button, self.save_button, self.cancel_button, close, self.pick):
            button.setAutoDefault(False)  # Enter never presses one of them by surprise
            button.setDefault(False)
        this = QWidget()
        tl = QVBoxLayout(this)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addLayout(top)
        tl.addWidget(self.summary)
        tl.addWidget(split, 1)
        self.runs_page = RunsPage()
        self.runs_page.opened.connect(self.open_run)
        self.runs_page.compare.connect(self.compare_runs)
        self.compare_page = ComparePage(session)
        self.pages = QTabWidget()
        self.pages.setObjectName("audit-pages")
        self.pages.addTab(this, "&This run")
        self.pages.addTab(self.runs_page, "R&uns")
        self.pages.addTab(self.compare_page, "&Compare")
        layout = QVBoxLayout(self)
        layout.addWidget(self.pages, 1)
        layout.addLayout(buttons)
        self.resize(1100, 760)
        self.refresh_runs()

    @classmethod
    def shown_for(cls, session: DeskSession, window: QWidget) -> RecallAuditDialog:
        """The window's audit dialog for this workspace, shown and in front: the one kept with
        its results, or a new one (the one of a workspace since closed is dropped)."""
        kept = window.findChild(cls, "recall-audit")
        if kept is not None and kept.session is not session:
            kept.close()
            kept.setParent(None)
            kept.deleteLater()
            kept = None
        if kept is None:
            kept = cls(session, window)
        kept.show()
        kept.activateWindow()
        return kept

    def stale(self) -> bool:
        """Whether the window has moved on to another workspace (then this audit's is closed)."""
        window = self.parent()
        if getattr(window, "session", self.session) is self.session:
            return False
        self.summary.setText("The workspace this audit read is closed. Tools ▸ Recall Audit… audits the one open now.")
        for button in (self.run_button, self.cancel_button):
            button.setEnabled(False)
        return True

    # --- running ------------------------------------------------------------------------

    def _choose_queries(self) -> None:
        path, _f = QFileDialog.getOpenFileName(self, "Questions to audit", "", "JSON (*.json);;All files (*)")
        if path:
            self.queries_path = Path(path)
            self.pick.setText(self.queries_path.name)
            self.own.setChecked(True)

    def start_run(self) -> None:
        """Run, after offering to save results that were not saved (a run replaces them)."""
        if self.job is not None or self.stale():
            return
        if self.report is not None and not self.saved:
            box = QMessageBox(QMessageBox.Icon.Question, "Recall audit",
                              "A new run replaces the results shown, which were not saved.",
                              QMessageBox.StandardButton.Cancel, self)
            box.setObjectName("audit-replace")
            save = box.addButton("Save them first…", QMessageBox.ButtonRole.AcceptRole)
            save.setObjectName("audit-replace-save")
            replace = box.addButton("Replace them", QMessageBox.ButtonRole.DestructiveRole)
            replace.setObjectName("audit-replace-yes")
            box.setDefaultButton(QMessageBox.StandardButton.Cancel)

            def answered(_code: int) -> None:
                clicked = box.clickedButton()
                self.asking = None
                box.deleteLater()
                if clicked is save:
                    self._save()
                if clicked is replace or (clicked is save and self.saved):
                    self.session.ops.start(self.run(), owner=self)

            box.finished.connect(answered)
            self.asking = box
            box.open()
            return
        self.session.ops.start(self.run(), owner=self)

    def cancel_run(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.cancel_button.setEnabled(False)
            self.progress.setFormat("stopping after this fact…")

    def _progressed(self, done: int, total: int, text: str) -> None:
        self.progress.setRange(0, max(total, 0))
        self.progress.setValue(min(done, total) if total else 0)
        if total:
            self.progress.setFormat(f"{done:,} of {total:,} facts" + (f" — {text}" if text else ""))
        else:
            self.progress.setFormat(text or "auditing…")

    async def run(self) -> None:
        names = [name for name, box in self.what_if.items() if box.isChecked()]
        base = self.shown_run if self.again.isChecked() and self.again.isEnabled() else None
        sample = None if self.all_facts.isChecked() else self.sample.value()
        seed = self.seed.value()
        queries = None
        if base is None and self.own.isChecked():
            if self.queries_path is None:
                self.summary.setText("Choose a file of questions first.")
                return
            try:
                queries = audit.load_queries(self.queries_path)
            except BadInput as exc:
                self.summary.setText(f"That file cannot be used: {html.escape(str(exc))}")
                return
        ws = self.session.ws
        if base is not None:  # its sample and seed as the run kept them; its facts read on the worker
            sample, seed = base.sample, base.seed or 0
        plan = Plan(sample=sample, seed=seed, what_if=tuple(names),
                    queries=None if queries is None else tuple((q, tuple(t)) for q, t in queries))

        def work(job: Any) -> tuple[dict[str, Any], audit_runs.Run | None, str]:
            asked = plan if base is None else Plan.again(ws, base, names)
            report = run_audit(ws, asked, progress=job.report, cancelled=lambda: job.cancelled)
            if ws.read_only:
                return report, None, "Not kept in the workspace: it is open read-only."
            try:
                row = save_run(ws, report, origin="window", sample=sample, seed=seed, what_if=names)
                return report, audit_runs.as_run(row), ""
            except MemoryDeskError as exc:
                return report, None, f"Not kept in the workspace: {exc}"
            except Exception as exc:  # noqa: BLE001 - the results are shown whatever keeping them did
                log.exception("the recall audit's run was not kept")
                return report, None, f"Not kept in the workspace (a bug of Memory Desk, logged): {exc}"

        job, awaitable = self.session.ops.job("Recall audit", work)
        self.job = job
        job.progressed.connect(self._progressed)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setRange(0, 0)
        self.progress.setFormat("auditing…")
        for w in (self.progress, self.cancel_button):
            w.show()
        kept = " The results below are the last run's until this one finishes." if self.report is not None else ""
        self.summary.setText(f"Auditing… (Cancel stops it and shows what it got through).{kept}")
        try:
            report, kept, why = await awaitable
        finally:
            self.job = None
            self.run_button.setEnabled(True)
            for w in (self.progress, self.cancel_button):
                w.hide()
        self.show_report(report, kept, why)
        if kept is not None:
            self.session.say_notice(ws.take_notice())
        if kept is not None:
            self.refresh_runs()

    # --- kept runs ----------------------------------------------------------------------

    def refresh_runs(self) -> None:
        ws = self.session.ws

        def read() -> tuple[list[audit_runs.Run], int]:
            return audit_runs.list_runs(ws)

        def show(found: tuple[list[audit_runs.Run], int]) -> None:
            runs, foreign = found
            note = (f"{len(runs):,} run(s) kept in this workspace" if runs else "No runs kept yet") + (
                f"; {foreign:,} taken in another file (a copy's) are not listed." if foreign else ".")
            if not audit_runs.kept(ws) and ws.read_only:
                note = "No runs kept: the workspace is open read-only and has no runs of the desk's."
            self.runs_page.set_runs(runs, note)
            self.compare_page.set_runs(runs)

        self.session.ops.run_for(self, read, show, label="reading the kept audit runs")

    def open_run(self, run_id: str) -> None:
        """Show a kept run on This run (read on the worker)."""
        ws = self.session.ws

        def read() -> tuple[audit_runs.Run, dict[str, Any]]:
            run = audit_runs.get_run(ws, run_id)
            rows = [{"id": f.fact_id, "query": f.query, "lost_at": f.stage, "rank": f.rank, "domain": f.domain,
                     "memory_type": f.memory_type, "age_days": f.age_days, "score_rank": f.score_rank,
                     "undecayed_rank": f.undecayed_rank} for f in audit_runs.run_facts(ws, run)]
            key = "results" if run.kind == "queries" else "facts"
            return run, {"summary": run.summary, key: rows}

        def show(found: tuple[audit_runs.Run, dict[str, Any]]) -> None:
            run, report = found
            self.show_report(report, run, "")
            self.pages.setCurrentIndex(0)

        self.session.ops.run_for(self, read, show, label="opening a kept audit run")

    def compare_runs(self, run_a: str, run_b: str) -> None:
        self.compare_page.choose(run_a, run_b)
        self.pages.setCurrentWidget(self.compare_page)
        self.compare_page.start()

    def show_report(self, report: dict[str, Any], kept: audit_runs.Run | None = None, why: str = "") -> None:
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
        for key, _title in GROUPS:
            _fill(self.group_tables[key], [[label, _pct(v["recall_at_10"]), f"{v['found']:,}", f"{v['facts']:,}"]
                                           for label, v in s.get(key, {}).items()])
        _fill(self.whatif_table, [[name, _pct(v["recall_at_10"]), f"{v['brought_back']:,}", f"{v['newly_lost']:,}"]
                                  for name, v in s.get("what_if", {}).items()])
        if kept is not None:
            lines.append(f"<i>Run {kept.id} of {html.escape(when(kept.at))}, kept in the workspace (the Runs "
                         "page lists every run; Compare puts two side by side). Save report… also writes a file.</i>")
        else:
            lines.append(f"<i>{html.escape(why)} These results stay here until the next run replaces them; "
                         "Save report… keeps them in a file.</i>")
        self.summary.setText("<br>".join(lines))
        self.model.set_rows([{**r, "id": r.get("id", r.get("target"))} for r in rows])
        self.saved = kept is not None  # a kept run loses nothing when another replaces it
        self.shown_run = kept
        self.again.setEnabled(kept is not None)
        if kept is not None:  # the next run asks these facts again, unless the person chooses otherwise
            what = "questions" if kept.kind == "queries" else "facts"
            self.again.setText(f"Every active fact again, as run {kept.id}" if kept.kind == "topics" and
                               kept.sample is None else f"The same {what} again (the {kept.facts:,} of run {kept.id})")
            self.again.setChecked(True)
        elif self.again.isChecked():
            self.sampled.setChecked(True)
        self.save_button.setEnabled(True)

    def _save(self) -> None:
        if self.report is None:
            return
        path, _f = QFileDialog.getSaveFileName(self, "Save the audit", "recall-audit.json", "JSON (*.json)")
        if path:
            try:
                refuse_overwriting_input(path, [self.session.ws.path], "the audit file")
                Path(path).write_text(json.dumps(self.report, ensure_ascii=False, indent=2), encoding="utf-8")
            except BadInput as exc:  # never over the workspace or its side files
                self.summary.setText(html.escape(str(exc)))
                return
            except OSError as exc:
                self.summary.setText(f"The report could not be saved: {html.escape(str(exc))}")
                return
            self.saved = True
            self.session.status.emit(f"Saved the recall audit to {path}")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.facts and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            index = self.facts.currentIndex()
            if index.isValid():
                self._open_fact(index)
            return True  # never on to the dialog (which would press a button)
        return super().eventFilter(watched, event)

    def _open_fact(self, index: Any) -> None:
        entry = self.model.row_at(index.row())
        if entry is not None and not self.stale():
            self.session.navigate("facts", fact=entry["id"])
