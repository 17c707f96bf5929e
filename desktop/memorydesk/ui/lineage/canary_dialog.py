"""Tools ▸ Run canary…: first what the gate will write (Run or Cancel), then its progress
with Stop (what it wrote is removed again), then a result per check."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from memorydesk.core.health.table import Color
from memorydesk.lineage.canary import CanaryStopped, run_gate_apart, what_it_writes
from memorydesk.ui.lineage import colors
from memorydesk.ui.operations import describe_error

TITLE = "Running the canary"


class CanaryReporter(QObject):
    """Made on the UI thread; the gate's callbacks emit from the worker (queued to the dialog)."""

    progressed = Signal(int, int, str)
    checked = Signal(str, bool, str)


class CanaryDialog(QDialog):
    show_runs = Signal()
    run_requested = Signal()  # the person pressed Run
    stop_requested = Signal()  # … or Stop while it runs

    def __init__(self, parent: QWidget | None = None, *, workspace: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("canary-dialog")
        self.setWindowTitle("Run the canary")
        self.setMinimumWidth(560)
        where = f" into <b>{workspace}</b>" if workspace else ""
        self.explain = QLabel(f"The canary checks the real path — store, promote, retrieve, dispatch — end to end, "
                              f"writing{where}. {what_it_writes(keep_receipts=True)}")
        self.explain.setObjectName("canary-explain")
        self.explain.setWordWrap(True)
        self.step = QLabel("Press Run to start, or Cancel to write nothing.")
        self.step.setObjectName("canary-step")
        self.bar = QProgressBar()
        self.bar.setObjectName("canary-progress")
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.checks = QListWidget()
        self.checks.setObjectName("canary-checks")
        self.verdict = QLabel("")
        self.verdict.setObjectName("canary-verdict")
        self.verdict.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        buttons.rejected.connect(self._cancel_or_close)
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self.close_button.setObjectName("canary-close")
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("canary-run")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self._run)
        buttons.addButton(self.run_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("canary-stop")
        self.stop_button.setToolTip("Stop the canary; what it has written is removed again")
        self.stop_button.clicked.connect(self._stop)
        self.stop_button.hide()
        buttons.addButton(self.stop_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.runs_button = QPushButton("Show the canary's runs")
        self.runs_button.setObjectName("canary-show-runs")
        self.runs_button.setEnabled(False)
        self.runs_button.clicked.connect(self._show_runs)
        buttons.addButton(self.runs_button, QDialogButtonBox.ButtonRole.ActionRole)
        layout = QVBoxLayout(self)
        layout.addWidget(self.explain)
        layout.addWidget(self.step)
        layout.addWidget(self.bar)
        layout.addWidget(self.checks, 1)
        layout.addWidget(self.verdict)
        layout.addWidget(buttons)
        self.results: list[tuple[str, bool, str]] = []
        self.finished_with: bool | None = None
        self.running = False

    def _run(self) -> None:
        self.running = True
        self.run_button.hide()
        self.stop_button.show()
        self.stop_button.setEnabled(True)
        self.close_button.setEnabled(False)  # Stop, not Close, while it writes
        self.step.setText("Starting…")
        self.bar.setRange(0, 0)
        self.run_requested.emit()

    def _stop(self) -> None:
        self.stop_button.setEnabled(False)
        self.step.setText("Stopping: removing what the canary wrote…")
        self.stop_requested.emit()

    def _cancel_or_close(self) -> None:
        if not self.running:
            self.reject()

    def _ended(self) -> None:
        self.running = False
        self.stop_button.hide()
        self.close_button.setEnabled(True)
        self.close_button.setText("Close")

    def on_progress(self, done: int, total: int, text: str) -> None:
        self.step.setText(text)
        self.bar.setRange(0, total)
        self.bar.setValue(done)

    def on_check(self, name: str, passed: bool, detail: str) -> None:
        self.results.append((name, passed, detail))
        item = QListWidgetItem(f"{'PASS' if passed else 'FAIL'} {name}: {detail}")  # as the command prints it
        item.setForeground(colors.qcolor(Color.HEALTHY if passed else Color.AT_RISK))
        item.setData(Qt.ItemDataRole.UserRole, passed)
        self.checks.addItem(item)

    def on_finished(self, passed: bool) -> None:
        self._ended()
        self.finished_with = passed
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        failed = [name for name, ok, _ in self.results if not ok]
        self.verdict.setText("<b>The canary passed</b>: every check holds." if passed else
                             f"<b>The canary failed</b>: {', '.join(failed) or 'it could not finish'}.")
        self.runs_button.setEnabled(True)

    def on_failed(self, message: str) -> None:
        self._ended()
        self.finished_with = False
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.verdict.setText(f"<b>The canary could not run</b>: {message}")

    def on_stopped(self, message: str) -> None:
        self._ended()
        self.finished_with = False
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.step.setText("Stopped.")
        self.verdict.setText(f"<b>Stopped</b>: {message[:1].upper() + message[1:]}.")

    def _show_runs(self) -> None:
        self.show_runs.emit()
        self.accept()


async def run_gate_in(dialog: CanaryDialog, session, kinds: frozenset[str]) -> None:
    """The gate as a job for ``dialog`` (Run was pressed): progress and each check in the
    dialog, Stop cancels the job (the gate removes what it wrote), the verdict at the end."""
    if session is None:
        return
    reporter = CanaryReporter(dialog)
    reporter.progressed.connect(dialog.on_progress)
    reporter.checked.connect(dialog.on_check)
    path = session.ws.path
    jobs: list = []

    def started(job) -> None:
        if job.title == TITLE and not jobs:
            jobs.append(job)

    dialog.stop_requested.connect(lambda: jobs and jobs[0].cancel())

    def work(ws, job):
        def progress(done: int, total: int, text: str) -> None:
            job.report(done, total, text)
            reporter.progressed.emit(done, total, text)

        return run_gate_apart(path, progress=progress, keep_receipts=True, cancelled=lambda: job.cancelled,
                              on_check=lambda c: reporter.checked.emit(c.name, c.passed, c.detail))

    session.ops.job_started.connect(started)
    try:
        passed = await session.job(TITLE, work, kinds=kinds)
    except CanaryStopped as exc:
        dialog.on_stopped(str(exc))
        session.status.emit(f"The canary was stopped: {exc}")
        return
    except Exception as exc:
        dialog.on_failed(describe_error(exc))
        raise
    finally:
        session.ops.job_started.disconnect(started)
    dialog.on_finished(passed)
    session.status.emit("The canary passed." if passed else "The canary failed: see its checks.")
