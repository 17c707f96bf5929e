"""Long work in the status bar: what is being done, a progress bar, and Cancel.

One widget for every ``Job`` (demo build, indexing, an import, a layout, an audit): the
window shows it while a job runs; several jobs queue on the one worker and are shown in
turn.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from memorydesk.ui.operations import Job


class JobProgress(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("job-progress")
        self.label = QLabel("")
        self.label.setObjectName("job-label")
        self.bar = QProgressBar()
        self.bar.setObjectName("job-bar")
        self.bar.setMaximumWidth(220)
        self.bar.setTextVisible(True)
        self.cancel = QPushButton("Cancel")
        self.cancel.setObjectName("job-cancel")
        self.cancel.setToolTip("Stop after the current step; what is done stays done")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel)
        self.jobs: list[Job] = []
        self.cancel.clicked.connect(self._cancel)
        self.hide()

    @property
    def current(self) -> Job | None:
        return self.jobs[0] if self.jobs else None

    def add(self, job: Job) -> None:
        self.jobs.append(job)
        job.progressed.connect(lambda done, total, text, j=job: self._show(j, done, total, text))
        self._show(self.jobs[0], self.jobs[0].done, self.jobs[0].total, self.jobs[0].text)
        self.show()

    def remove(self, job: Job) -> None:
        if job in self.jobs:
            self.jobs.remove(job)
        if self.jobs:
            j = self.jobs[0]
            self._show(j, j.done, j.total, j.text)
        else:
            self.hide()

    def _show(self, job: Job, done: int, total: int, text: str) -> None:
        if job is not self.current:
            return
        waiting = f" (+{len(self.jobs) - 1} waiting)" if len(self.jobs) > 1 else ""
        self.label.setText(f"{job.title}: {text}{waiting}" if text else f"{job.title}{waiting}")
        if total > 0:
            self.bar.setRange(0, total)
            self.bar.setValue(min(done, total))
            self.bar.setFormat(f"{done:,} / {total:,}")
        else:
            self.bar.setRange(0, 0)  # busy, amount unknown
        self.cancel.setEnabled(not job.cancelled)

    def _cancel(self) -> None:
        job = self.current
        if job is not None:
            job.cancel()
            self.cancel.setEnabled(False)
            self.label.setText(f"{job.title}: stopping after the current step…")


def vector_summary(result: Any) -> str:
    """Tools ▸ Index Missing Vectors, in a sentence: done, or where it stopped."""
    if result.cancelled:
        left = result.total - result.done
        return (f"Stopped: {result.done:,} facts indexed, {left:,} still without a vector (run it again to resume; "
                "Edit ▸ Undo clears what was written).")
    return f"{result.done:,} facts indexed; every fact now has a vector (Edit ▸ Undo clears them)."
