"""The import dialog: the workspace it writes into (named at the top), a MemoryOS folder, the
zone it ran in (chosen, never guessed), the short-term capacity MemoryOS ran with (optional:
it dates each move by MemoryOS's own rule and lets the import see an interrupted migration),
the import as a job (progress here and in the status bar, Cancel until it writes), then what
was found — counts, the anomaly table (long sentences wrap), what an import of the files cannot
see — and a way to the imported runs in Lineage, the at-risk run of an interrupted migration
first (its button, or a double click on its anomaly).

The import runs on the worker through ``DeskSession.job`` into the open workspace, so
its commits are the desk's own and the change reaches the tabs that show facts, tiers
and receipts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memorydesk.core.changes import Kind
from memorydesk.core.errors import MemoryDeskError
from memorydesk.lineage.memoryos import ImportResult, import_directory, zone_names
from memorydesk.lineage.memoryos.report import CANNOT_SEE, counted, fill_line
from memorydesk.ui.importer import remember
from memorydesk.ui.importer.form import ImportForm
from memorydesk.ui.importer.model import AnomalyModel
from memorydesk.ui.operations import Cancelled, Job
from memorydesk.ui.session import DeskSession

TITLE = "Import MemoryOS directory"
#: the widest the dialog grows by itself, as a share of the screen (a long error wraps instead)
MAX_SHARE = 0.9
KINDS = frozenset({Kind.FACT, Kind.TIER, Kind.RECEIPT})


def summary_text(result: ImportResult) -> str:
    lines = [f"{user} (lane {user} × {result.lanes.get(user, '?')}): {c.stm} STM · "
             f"{counted(c.mtm_sessions, 'session')} · {c.pages_text()} · {c.lpm_knowledge} knowledge · "
             f"profile {c.profile}" for user, c in result.users.items()]
    lines += [f"assistant {name}: {a.lpm_knowledge} knowledge" for name, a in result.assistants.items()]
    lines += [f"{user}: {fill_line(c.stm_fill, c.mtm_pages)}" for user, c in result.users.items()]
    lines.append(f"{counted(len(result.receipts), 'receipt')} in {counted(len(result.runs), 'run')}")
    lines += [f"{user}'s interrupted migration is the at-risk run {run}." for user, run in result.at_risk_runs.items()]
    count = len(result.anomalies)
    lines.append(f"{counted(count, 'anomaly', 'anomalies')}." if count else "No anomalies.")
    lines.append(result.outcome()[:1].upper() + result.outcome()[1:] + ".")
    return "\n".join(lines)


class ImportDialog(QDialog):
    imported = Signal(object)  # the ImportResult

    def __init__(self, session: DeskSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("import-memoryos")
        self.setWindowTitle("Import MemoryOS Directory")
        self.resize(820, 240)  # grows when there is a report to show
        self.session = session
        self.result: ImportResult | None = None
        self.running = False
        self.job: Job | None = None

        self._sized = False  # fitted to its content once shown (``showEvent``)
        self.form = ImportForm(session, zone_names())
        self.form.changed.connect(self._form_changed)
        self.form.choose.clicked.connect(self.choose_folder)
        # the form's parts, named as the dialog's own (a test, a shortcut, a person's eye finds them here)
        for name in ("target", "folder", "choose", "zone", "capacity", "carried", "keep_values", "carried_box"):
            setattr(self, name, getattr(self.form, name))

        self.stage = QLabel("")
        self.stage.setObjectName("stage")
        self.stage.setWordWrap(True)  # a long error wraps; it never widens the dialog past the screen
        self.stage.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bar = QProgressBar()
        self.bar.setObjectName("progress")
        self.bar.hide()
        self.summary = QLabel("")
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model = AnomalyModel(self)
        self.table = QTableView()
        self.table.setObjectName("anomalies")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)  # a long anomaly sentence wraps in its row
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a path keeps its page id in view
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        rows = self.table.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.hide()
        self.table.doubleClicked.connect(self._open_anomaly)
        self.blind = QLabel(CANNOT_SEE)
        self.blind.setObjectName("cannot-see")
        self.blind.setWordWrap(True)
        self.blind.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.blind.setStyleSheet("color: palette(placeholder-text)")
        self.blind.hide()

        self.import_button = QPushButton("Import")
        self.import_button.setObjectName("import")
        self.import_button.setDefault(True)
        self.lineage_button = QPushButton("Open Imported Runs in Lineage")
        self.lineage_button.setObjectName("open-lineage")
        self.lineage_button.setEnabled(False)
        self.at_risk_button = QPushButton("Show the At-Risk Run")
        self.at_risk_button.setObjectName("open-at-risk")
        self.at_risk_button.setToolTip("The interrupted migration's run in the Lineage tab, explained")
        self.at_risk_button.hide()
        self.close_button = QPushButton("Close")
        self.close_button.setObjectName("close")
        buttons = QHBoxLayout()
        buttons.addWidget(self.at_risk_button)
        buttons.addWidget(self.lineage_button)
        buttons.addStretch(1)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.close_button)

        layout = QVBoxLayout(self)
        layout.addWidget(self.form)
        layout.addWidget(self.stage)
        layout.addWidget(self.bar)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.blind)
        layout.addStretch(0)
        layout.addLayout(buttons)

        self.import_button.clicked.connect(self.start)
        self.lineage_button.clicked.connect(self.open_lineage)
        self.at_risk_button.clicked.connect(self.open_at_risk)
        self.close_button.clicked.connect(self.reject)
        self.form.restore()
        self._update()

    def _form_changed(self) -> None:
        self._update()
        if self._sized:  # a note appeared (carried-over values): the dialog makes room for its lines
            self.fit_height()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            self.fit_height()

    @property
    def stm_capacity(self) -> int | None:
        return self.form.stm_capacity

    @property
    def zone_name(self) -> str:
        return self.form.zone_name

    def ready(self) -> tuple[bool, str]:
        if self.running:
            return False, "an import is running"
        if self.session.read_only:
            return False, f"nothing can be imported: {self.session.write_block}"
        if not self.folder.text().strip():
            return False, "choose MemoryOS's data folder"
        return self.form.ready()

    def _update(self, *_args: Any) -> None:
        ok, why = self.ready()
        self.import_button.setEnabled(ok)
        self.import_button.setToolTip("" if ok else why[:1].upper() + why[1:])
        self.form.setEnabled(not self.running)

    def choose_folder(self) -> None:
        start = self.folder.text().strip() or remember.last()["folder"]
        folder = QFileDialog.getExistingDirectory(self, "MemoryOS data folder", start)
        if folder:
            self.folder.setText(folder)

    # --- the import --------------------------------------------------------------------------

    def start(self) -> None:
        if self.ready()[0]:
            self.session.ops.start(self.run_import(), owner=self)

    def _job_started(self, job: Job) -> None:
        if job.title == TITLE and self.job is None:
            self.job = job
            job.progressed.connect(self._progressed)

    def _progressed(self, done: int, total: int, text: str) -> None:
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(min(done, total))
        self.stage.setText(text[:1].upper() + text[1:] + "…")

    async def run_import(self) -> ImportResult | None:
        folder, zone, capacity = Path(self.folder.text().strip()).expanduser(), self.zone_name, self.stm_capacity
        remember.remember(folder=str(folder), timezone=zone, stm_capacity=str(capacity or ""))
        self.running, self.job, self.result = True, None, None
        self.lineage_button.setEnabled(False)
        self.at_risk_button.hide()
        self.summary.setText("")
        self.model.set_rows([])
        self.table.hide()
        self.blind.hide()
        self.bar.show()
        self.stage.setText(f"Importing {folder.name or folder}…")
        self._update()

        def work(ws: Any, job: Job) -> ImportResult:
            def progress(done: int, total: int, what: str) -> None:
                job.check()  # Cancel stops it here, before anything is written
                job.report(done, total, what)

            return import_directory(folder, ws, zone, progress=progress, stm_capacity=capacity)

        self.session.ops.job_started.connect(self._job_started)
        try:
            result = await self.session.job(TITLE, work, kinds=KINDS, label="importing the MemoryOS directory")
        except Cancelled:
            self.stage.setText("Stopped before anything was written.")
            return None
        except MemoryDeskError as exc:
            self.stage.setText(f"Nothing was imported: {exc}")
            return None
        finally:
            self.session.ops.job_started.disconnect(self._job_started)
            self.running = False
            self.bar.hide()
            self._update()
        self.show_result(result)
        return result

    def show_result(self, result: ImportResult) -> None:
        self.result = result
        self.stage.setText(f"Imported {result.data_dir} (times read in {result.timezone}).")
        self.summary.setText(summary_text(result))
        self.model.set_rows(result.anomalies)
        self.table.setVisible(bool(result.anomalies))
        self.blind.show()
        if result.anomalies:
            self.grow_to(1120, 640)
            self.fit_columns()
        self.fit_height()
        self.lineage_button.setEnabled(bool(result.runs))
        self.at_risk_button.setVisible(bool(result.at_risk_runs))
        if result.at_risk_runs:
            self.at_risk_button.setText("Show the At-Risk Run" if len(result.at_risk_runs) == 1
                                        else f"Show the {len(result.at_risk_runs)} At-Risk Runs")
        self.session.status.emit(result.outcome())
        self.imported.emit(result)

    def grow_to(self, width: int, height: int) -> None:
        """At least this big, but never wider or taller than the screen allows."""
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        most_w = int(screen.width() * MAX_SHARE) if screen else width
        most_h = int(screen.height() * MAX_SHARE) if screen else height
        self.resize(min(max(self.width(), width), most_w), min(max(self.height(), height), most_h))

    def fit_height(self) -> None:
        """Tall enough for every line at its width — the notes, the counts, "No anomalies.", the outcome —
        (a wrapped label squeezed below its height draws over its neighbours), within the screen."""
        layout = self.layout()
        layout.invalidate()  # what was just shown or hidden counts
        layout.activate()
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        width = min(self.width(), int(screen.width() * MAX_SHARE)) if screen else self.width()  # as it will be
        need = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else layout.totalSizeHint().height()
        if need > self.height() or width != self.width():
            self.grow_to(width, need)

    def fit_columns(self) -> None:
        """Kind and user as wide as they are; file and path too, up to a share of the width
        (elided in the middle beyond it); the detail takes the rest, wrapped."""
        width = self.table.viewport().width()
        metrics = self.table.fontMetrics()
        for column in range(4):
            texts = [str(self.model.data(self.model.index(r, column)) or "") for r in range(self.model.rowCount())]
            texts.append(str(self.model.headerData(column, Qt.Orientation.Horizontal) or ""))
            widest = max(metrics.horizontalAdvance(t) for t in texts) + 16
            share = {2: 0.2, 3: 0.24}.get(column, 0.16)
            self.table.setColumnWidth(column, min(widest, int(width * share)))

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        if self.table.isVisible():
            self.fit_columns()

    def reject(self) -> None:
        """Close; an import still reading stops (one already writing finishes)."""
        if self.running and self.job is not None:
            self.job.cancel()
        super().reject()

    def open_lineage(self) -> None:
        """Show the Lineage tab at the imported lanes and runs (an at-risk one selected first), and
        close the dialog."""
        result = self.result
        if result is None:
            return
        lanes = [{"user": user, "assistant": assistant} for user, assistant in sorted(result.lanes.items())]
        first = list(result.at_risk_runs.values())
        self.session.navigate("lineage", scope=lanes, runs=first + [r for r in result.runs if r not in first])
        self.accept()

    def open_at_risk(self, run: str | None = None) -> None:
        """Show an interrupted migration's at-risk run in the Lineage tab, explained."""
        result = self.result
        if result is None or not result.at_risk_runs:
            return
        run = run or next(iter(result.at_risk_runs.values()))
        user = next(u for u, r in result.at_risk_runs.items() if r == run)
        self.session.navigate("lineage", scope=[{"user": user, "assistant": result.lanes.get(user, "")}], run=run)
        self.accept()

    def _open_anomaly(self, index) -> None:
        anomaly = self.model.row_at(index.row())
        if anomaly is not None and anomaly.extra.get("run_id"):
            self.open_at_risk(anomaly.extra["run_id"])
