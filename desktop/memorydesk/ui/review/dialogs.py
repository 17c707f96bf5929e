"""The dialog every review action asks through: which finding and item it acts on, what it
will do, a reason (prefilled with the finding, kept in the history), and for a merge the keeper.
A missing reason (or keeper) is said in red beside the field when the person confirms, as in
every other dialog of the desk (``ui.widgets.prompts.require_reason``); the button stays enabled."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from memorydesk.ui.widgets.prompts import reason_fields, require_reason


class ReasonDialog(QDialog):
    def __init__(self, title: str, text: str, reason: str, parent: QWidget | None = None, *,
                 keepers: list[tuple[str, str]] | None = None, ok_text: str = "OK", about: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("review-reason")
        self.setWindowTitle(title)
        self.about = QLabel(about)
        self.about.setObjectName("review-about")
        self.about.setTextFormat(Qt.TextFormat.PlainText)  # a finding's title is the memory's text, never markup
        self.about.setWordWrap(True)
        self.about.setVisible(bool(about))
        label = QLabel(text)
        label.setObjectName("review-says")
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        self.keeper = QComboBox()
        self.keeper.setObjectName("keeper")
        for label_text, fid in keepers or []:
            self.keeper.addItem(label_text, fid)
        self.keeper.setVisible(bool(keepers))
        self.reason, self.problem = reason_fields()
        self.reason.setText(reason)
        self.problem.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ok = buttons.addButton(ok_text, QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok.setObjectName("ok")
        self.ok.setDefault(True)
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setAutoDefault(False)  # Enter confirms
        self._keepers = bool(keepers)
        self.ok.clicked.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.about)
        layout.addWidget(label)
        if keepers:
            layout.addWidget(QLabel("Keep this fact (the others are superseded by it):"))
            layout.addWidget(self.keeper)
        layout.addWidget(self.reason)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.reason.setFocus()
        self.resize(560, self.sizeHint().height())

    def accept(self) -> None:
        """A keeper the person chose (none is chosen for them) and a reason, or say what is missing."""
        if self._keepers and self.keeper.currentData() is None:
            self.problem.setText("Choose the fact to keep.")
            self.problem.show()
            self.keeper.setFocus()
            return
        if require_reason(self.reason, self.problem):
            super().accept()

    def values(self) -> tuple[str, str | None]:
        return self.reason.text().strip(), self.keeper.currentData()
