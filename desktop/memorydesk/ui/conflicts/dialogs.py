"""Dialogs of the Conflicts tab: one decision with its reason, and a burst reviewed together."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.conflicts.bursts import BurstDetail, Displaced
from memorydesk.ui.widgets.prompts import reason_fields
from memorydesk.ui.widgets.text import one_line


class DecisionDialog(QDialog):
    """What the decision will do, in a sentence or two, and why (required: it is the audit trail)."""

    def __init__(self, title: str, explanation: str, button: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conflict-decision")
        self.setWindowTitle(title)
        text = QLabel(explanation + "<br><br>It is recorded with your name, the time and your reason, and "
                      "Edit ▸ Undo reverts it.")
        text.setObjectName("explanation")
        text.setWordWrap(True)
        text.setTextFormat(Qt.TextFormat.RichText)
        self.reason, self.problem = reason_fields()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ok = self.buttons.addButton(button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok.setObjectName("decide")
        self.buttons.accepted.connect(self._check)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(QLabel("Reason"))
        layout.addWidget(self.reason)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.ok.setDefault(True)  # once the buttons are the dialog's: Return decides
        self.reason.setFocus()
        self.resize(520, 240)

    def values(self) -> dict[str, Any]:
        return {"reason": self.reason.text().strip()}

    def _check(self) -> None:
        if not self.values()["reason"]:
            self.problem.setText("Say why: the reason is what the next person reads in the trail.")
            return
        self.accept()


class BurstReviewDialog(QDialog):
    """Every fact the burst's winner displaced, each with a box: checked = restore it (active
    again), unchecked = confirm that it stays superseded. One decision, one history row."""

    def __init__(self, detail: BurstDetail, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("burst-review")
        self.setWindowTitle("Review the burst")
        self.detail = detail
        w = detail.winner
        intro = QLabel(
            f"<b>{len(detail.displaced)}</b> facts were superseded by "
            f"“{one_line(w.topic or w.id, 80)}”. Tick the ones that were still true to restore them "
            "(they become active again; the winner stays). The others are confirmed as superseded.")
        intro.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("displaced")
        self.table.setHorizontalHeaderLabels(["Restore", "Topic", "Content", "Now"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.rows: list[Displaced] = [i for i in detail.displaced if i.exists and i.fact is not None]
        for item in self.rows:
            r = self.table.rowCount()
            self.table.insertRow(r)
            f = item.fact
            assert f is not None
            box = QTableWidgetItem("")
            can = item.still_superseded_by_winner and f.exists
            box.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsSelectable
                         | (Qt.ItemFlag.ItemIsEnabled if can else Qt.ItemFlag.NoItemFlags))
            box.setCheckState(Qt.CheckState.Unchecked)
            if not can:
                box.setToolTip("No longer superseded by the winner: nothing to restore")
            self.table.setItem(r, 0, box)
            for col, text in ((1, f.topic or f.id), (2, f.content or "(missing)"), (3, f.state)):
                cell = QTableWidgetItem(one_line(str(text), 300))
                cell.setToolTip(str(text)[:2000])
                self.table.setItem(r, col, cell)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)  # the text
        self.table.itemChanged.connect(lambda _i: self._count())
        self.reason, self.problem = reason_fields()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ok = self.buttons.addButton("Confirm all", QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok.setObjectName("decide")
        self.buttons.accepted.connect(self._check)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(QLabel("Reason"))
        layout.addWidget(self.reason)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.ok.setDefault(True)
        self.reason.setFocus()
        self.resize(820, 460)

    def set_restore(self, conflict_ids: set[str]) -> None:
        for r, item in enumerate(self.rows):
            box = self.table.item(r, 0)
            if box.flags() & Qt.ItemFlag.ItemIsEnabled:
                box.setCheckState(Qt.CheckState.Checked if item.conflict in conflict_ids
                                  else Qt.CheckState.Unchecked)

    def restore_ids(self) -> list[str]:
        return [item.conflict for r, item in enumerate(self.rows)
                if self.table.item(r, 0).checkState() == Qt.CheckState.Checked]

    def _count(self) -> None:
        n = len(self.restore_ids())
        self.ok.setText(f"Restore {n}, confirm {len(self.rows) - n}" if n else "Confirm all")

    def values(self) -> dict[str, Any]:
        return {"reason": self.reason.text().strip(), "restore": self.restore_ids(),
                "conflicts": [item.conflict for item in self.rows]}

    def _check(self) -> None:
        if not self.values()["reason"]:
            self.problem.setText("Say why: the reason is what the next person reads in the trail.")
            return
        self.accept()
