"""The forget receipt in a dialog: the verdict, a row per path (gone / still returns it / cannot
tell, with what and why), and what a person does with it — check again, keep it with the
history (a reason is asked; one history row), export it as JSON or Markdown for the ticket.

``check_forgotten`` runs the check on the worker (``browse.forget.check.forget_check``) and opens
the dialog; ``CheckRequest`` says what to check (facts by id, items by id, or a typed text) and
holds, in memory only, the text of what the window purged just before.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.forget.subject import Remembered
from memorydesk.core.errors import MemoryDeskError
from memorydesk.core.forget.receipt import CANNOT_TELL, GONE, STILL, WORDS, Answer, Receipt
from memorydesk.core.outputs import refuse_overwriting_input
from memorydesk.ui.session import DeskSession
from memorydesk.ui.widgets.prompts import ask_reason
from memorydesk.ui.widgets.rows_model import RowsModel

COLOURS = {GONE: "#1e8449", STILL: "#b03a2e", CANNOT_TELL: "#b7950b"}


@dataclass(frozen=True)
class CheckRequest:
    """What to check; ``remembered`` is the text the window read before it purged (never stored)."""

    fact_ids: tuple[str, ...] = ()
    text: str | None = None
    item_kind: str | None = None
    item_ids: tuple[str, ...] = ()
    remembered: dict[str, Remembered] = field(default_factory=dict)

    def run(self, ws: Any) -> Receipt:
        from memorydesk.browse.forget.check import forget_check

        return forget_check(ws, fact_ids=self.fact_ids, text=self.text, item_kind=self.item_kind,
                            item_ids=self.item_ids, remembered=self.remembered)


class AnswersModel(RowsModel[Answer]):
    COLUMNS = (("label", "Path"), ("verdict", "Verdict"), ("what", "What"), ("why", "Why"))

    def cell(self, row: Answer, name: str, role: int) -> Any:
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if name == "verdict":
                return WORDS[row.verdict]
            if name == "what":
                return "; ".join(f.words(3 if role == Qt.ItemDataRole.DisplayRole else 50) for f in row.found) or "—"
            return getattr(row, name) or "—"
        if role == Qt.ItemDataRole.ForegroundRole and name == "verdict":
            return QBrush(QColor(COLOURS[row.verdict]))
        if role == Qt.ItemDataRole.UserRole:
            return row.key
        return None


class ForgetDialog(QDialog):
    def __init__(self, parent: QWidget | None, session: DeskSession, request: CheckRequest, receipt: Receipt) -> None:
        super().__init__(parent)
        self.setObjectName("forget-dialog")
        self.setWindowTitle("Is it forgotten?")
        self.session, self.request, self.receipt = session, request, receipt
        self.kept = False
        self.verdict = QLabel()
        self.verdict.setObjectName("forget-verdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.notes = QLabel()
        self.notes.setObjectName("forget-notes")
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.model = AnswersModel(self)
        self.view = QTableView()
        self.view.setObjectName("forget-paths")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        self.view.setWordWrap(True)  # What and Why wrap in their cells, never cut
        self.view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)  # End reaches the last row
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for col, width in enumerate((300, 110, 300)):
            self.view.setColumnWidth(col, width)
        header.sectionResized.connect(lambda *_a: self.view.resizeRowsToContents())
        self.status = QLabel()
        self.status.setObjectName("forget-status")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.again = self._button("Check Again", "forget-again", self._again)
        self.keep = self._button("Keep With the History…", "forget-keep", self._keep)
        self.export_json = self._button("Export JSON…", "forget-export-json", lambda: self.export_dialog("json"))
        self.export_md = self._button("Export Markdown…", "forget-export-markdown",
                                      lambda: self.export_dialog("markdown"))
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.verdict)
        layout.addWidget(self.notes)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.show_receipt(receipt)
        self.fit_screen()

    def fit_screen(self) -> None:
        """As large as its rows need, within 90 % of the screen it opens on (every row in view at
        1920×1080; at 1280×800 the table scrolls)."""
        screen = (self.parentWidget().screen() if self.parentWidget() is not None else self.screen())
        room = screen.availableGeometry()
        width = min(int(room.width() * 0.9), 1500)
        self.resize(width, 400)
        self.view.resizeRowsToContents()
        rows = sum(self.view.rowHeight(r) for r in range(self.model.rowCount()))
        chrome = self.sizeHint().height() - self.view.sizeHint().height()
        need = chrome + self.view.horizontalHeader().height() + rows + 2 * self.view.frameWidth() + 8
        self.resize(width, min(int(room.height() * 0.9), max(need, 480)))

    def _button(self, text: str, name: str, slot: Any) -> QPushButton:
        button = self.buttons.addButton(text, QDialogButtonBox.ButtonRole.ActionRole)
        button.setObjectName(name)
        button.setAutoDefault(False)
        button.clicked.connect(lambda _c=False: slot())
        return button

    def show_receipt(self, receipt: Receipt) -> None:
        self.receipt, self.kept = receipt, False
        colour = COLOURS[receipt.verdict]
        self.verdict.setText(f"<b style='color:{colour}'>{html.escape(receipt.summary())}</b><br>"
                             f"<small>checked {len(receipt.answers)} paths in {receipt.elapsed_ms / 1000:.2f} s · "
                             f"receipt {receipt.receipt_id} · data stamp {html.escape(receipt.data_stamp)}</small>")
        self.notes.setText("\n".join(receipt.notes))
        self.notes.setVisible(bool(receipt.notes))
        self.model.set_rows(list(receipt.answers))
        self.view.resizeRowsToContents()
        self.keep.setEnabled(not self.session.read_only)
        self.keep.setToolTip(self.session.write_block or "Keep this receipt in the workspace's history (one row)")

    # -- actions -----------------------------------------------------------------------------------------
    def _again(self) -> None:
        self.status.setText("Checking again…")
        self.session.ops.start(self._check_again(), owner=self)

    async def _check_again(self) -> None:
        request = self.request
        receipt = await self.session.read(request.run, label="checking every way back")
        self.show_receipt(receipt)
        self.status.setText("Checked again.")

    def _keep(self) -> None:
        self.session.ops.start(self._keep_flow(), owner=self)

    async def _keep_flow(self) -> None:
        dialog, answer = ask_reason(self, "Keep the forget receipt", "Keep this forget receipt with the workspace's "
                                    "history?", yes_text="Keep", name="forget-keep-reason",
                                    informative="The receipt is content-free: ids, paths, verdicts and times. Say "
                                                "why — the ticket that asked for the deletion, say.")
        self.reason_dialog = dialog
        reason = await answer
        self.reason_dialog = None
        if reason is None:
            return
        from memorydesk.memory.reviewer import Reviewer  # loaded by the first write

        result = await self.session.write("keeping the forget receipt", Reviewer.keep_forget_receipt, self.receipt,
                                          reason)
        self.kept = True
        self.keep.setEnabled(False)
        self.status.setText(result.message)

    def export_dialog(self, fmt: str) -> None:
        suffix = ".md" if fmt == "markdown" else ".json"
        path, _f = QFileDialog.getSaveFileName(self, "Export the forget receipt", f"{self.receipt.receipt_id}{suffix}",
                                               "Markdown (*.md)" if fmt == "markdown" else "JSON (*.json)")
        if path:
            self.export_to(Path(path), fmt)

    def export_to(self, path: Path, fmt: str) -> bool:
        """Write the receipt to ``path`` (never over the workspace or its side files)."""
        text = self.receipt.to_markdown() if fmt == "markdown" else \
            json.dumps(self.receipt.to_json(), ensure_ascii=False, indent=2) + "\n"
        try:
            refuse_overwriting_input(path, [self.session.ws.path], "the forget receipt")
            path.write_text(text, encoding="utf-8")
        except MemoryDeskError as exc:
            self.status.setText(str(exc))
            return False
        except OSError as exc:
            self.status.setText(f"The receipt could not be written: {exc}")
            return False
        self.status.setText(f"Exported the receipt to {path.name}")
        return True


async def check_forgotten(session: DeskSession, owner: QWidget, request: CheckRequest) -> ForgetDialog:
    """Run the check on the worker, then show its receipt."""
    receipt = await session.read(request.run, label="checking every way back")
    dialog = ForgetDialog(owner, session, request, receipt)
    dialog.finished.connect(lambda _r: dialog.deleteLater())
    dialog.open()
    return dialog
