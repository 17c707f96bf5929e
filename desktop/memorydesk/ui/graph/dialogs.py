"""The one dialog of the graph tab: deleting edges, with a reason kept in the history."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from memorydesk.ui.prompts import reason_fields


class EdgeDeleteDialog(QDialog):
    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("edge-delete")
        self.setWindowTitle("Delete edges")
        words = QLabel(text + "<br><br>Agents stop reaching one fact from the other through the graph voice. "
                              "Undo puts the rows back exactly as they were.")
        words.setWordWrap(True)
        self.reason, self.problem = reason_fields()
        form = QFormLayout()
        form.addRow("Reason", self.reason)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.delete = self.buttons.addButton("Delete", QDialogButtonBox.ButtonRole.AcceptRole)
        self.delete.setObjectName("edge-delete-yes")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(words)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.resize(480, 220)
