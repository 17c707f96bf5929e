"""Tools ▸ Run canary…: the operator gate with its progress and a result per check."""

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

from memorydesk.core.health import Color
from memorydesk.ui.lineage import colors

EXPLAIN = ("The canary writes memories with a random id and no personal content down the real path — store, "
           "promote, retrieve, dispatch — in two user scopes × two assistant scopes, in two processes (a restart "
           "in between), then checks each step and removes its memories. Its receipts stay in the workspace, "
           "marked canary, so its runs show on the timeline.")


class CanaryReporter(QObject):
    """Made on the UI thread; the gate's callbacks emit from the worker (queued to the dialog)."""

    progressed = Signal(int, int, str)
    checked = Signal(str, bool, str)


class CanaryDialog(QDialog):
    show_runs = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("canary-dialog")
        self.setWindowTitle("Run the canary")
        self.setMinimumWidth(560)
        explain = QLabel(EXPLAIN)
        explain.setWordWrap(True)
        self.step = QLabel("Starting…")
        self.step.setObjectName("canary-step")
        self.bar = QProgressBar()
        self.bar.setObjectName("canary-progress")
        self.bar.setRange(0, 0)
        self.checks = QListWidget()
        self.checks.setObjectName("canary-checks")
        self.verdict = QLabel("")
        self.verdict.setObjectName("canary-verdict")
        self.verdict.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.runs_button = QPushButton("Show the canary's runs")
        self.runs_button.setObjectName("canary-show-runs")
        self.runs_button.setEnabled(False)
        self.runs_button.clicked.connect(self._show_runs)
        buttons.addButton(self.runs_button, QDialogButtonBox.ButtonRole.ActionRole)
        layout = QVBoxLayout(self)
        layout.addWidget(explain)
        layout.addWidget(self.step)
        layout.addWidget(self.bar)
        layout.addWidget(self.checks, 1)
        layout.addWidget(self.verdict)
        layout.addWidget(buttons)
        self.results: list[tuple[str, bool, str]] = []
        self.finished_with: bool | None = None

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
        self.finished_with = passed
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        failed = [name for name, ok, _ in self.results if not ok]
        self.verdict.setText("<b>The canary passed</b>: every check holds." if passed else
                             f"<b>The canary failed</b>: {', '.join(failed) or 'it could not finish'}.")
        self.runs_button.setEnabled(True)

    def on_failed(self, message: str) -> None:
        self.finished_with = False
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.verdict.setText(f"<b>The canary could not run</b>: {message}")

    def _show_runs(self) -> None:
        self.show_runs.emit()
        self.accept()
