"""Tools ▸ Index Missing Vectors: embed facts that have no vector, with progress and cancel.

The work runs on the desk's operation worker (``memory.vector_index``); progress comes
back through a queued signal, and Cancel sets an event the worker checks between
batches. Whatever was indexed stays indexed; running it again resumes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from memorydesk.memory.vector_index import BATCH, IndexProgress, index_missing_vectors, missing_count
from memorydesk.store.workspace import Workspace
from memorydesk.ui.operations import Operations


class VectorIndexJob(QObject):
    progressed = Signal(int, int)  # done, total — emitted on the worker, delivered on the UI thread
    finished = Signal(object)  # the final IndexProgress

    def __init__(self, parent: QWidget, ws: Workspace, ops: Operations,
                 on_done: Callable[[IndexProgress], None] | None = None, batch: int = BATCH) -> None:
        super().__init__(parent)
        self.ws, self.ops, self.on_done, self.batch = ws, ops, on_done, batch
        self.cancel_event = threading.Event()
        self.dialog = QProgressDialog("Counting facts without a vector…", "Cancel", 0, 0, parent)
        self.dialog.setObjectName("vector-progress")
        self.dialog.setWindowTitle("Index missing vectors")
        self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.dialog.setMinimumDuration(0)
        self.dialog.setAutoClose(False)
        self.dialog.setAutoReset(False)
        self.dialog.canceled.connect(self.cancel)
        self.progressed.connect(self._show)
        self.last: IndexProgress | None = None

    def start(self) -> None:
        ws, cancelled, batch = self.ws, self.cancel_event.is_set, self.batch

        def work() -> IndexProgress:
            total = missing_count(ws)
            self.progressed.emit(0, total)
            return index_missing_vectors(ws, batch=batch, cancelled=cancelled,
                                         progress=lambda p: self.progressed.emit(p.done, p.total))

        self.dialog.show()
        self.ops.run_for(self, work, self._done, on_failure=lambda _e: self.dialog.close(),
                         label="indexing missing vectors")

    def cancel(self) -> None:
        self.cancel_event.set()
        self.dialog.setLabelText("Stopping after the current batch…")

    def _show(self, done: int, total: int) -> None:
        self.dialog.setMaximum(max(total, 1))
        self.dialog.setValue(min(done, max(total, 1)))
        self.dialog.setLabelText(f"Embedding facts without a vector: {done:,} of {total:,}")

    def _done(self, result: IndexProgress) -> None:
        self.last = result
        self.dialog.close()
        self.finished.emit(result)
        if self.on_done is not None:
            self.on_done(result)


def summary(result: IndexProgress) -> str:
    if result.cancelled:
        left = result.total - result.done
        return f"Stopped: {result.done:,} facts indexed, {left:,} still without a vector (run it again to resume)."
    return f"{result.done:,} facts indexed; every fact now has a vector."
