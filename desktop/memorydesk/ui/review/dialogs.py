"""The dialog every review action asks through: what it will do, a reason (prefilled with the
finding, kept in the history), and for a merge the keeper."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel, QLineEdit, QVBoxLayout, QWidget


class ReasonDialog(QDialog):
    def __init__(self, title: str, text: str, reason: str, parent: QWidget | None = None, *,
                 keepers: list[tuple[str, str]] | None = None, ok_text: str = "OK") -> None:
        super().__init__(parent)
        self.setObjectName("review-reason")
        self.setWindowTitle(title)
        label = QLabel(text)
        label.setWordWrap(True)
        self.keeper = QComboBox()
        self.keeper.setObjectName("keeper")
        for label_text, fid in keepers or []:
            self.keeper.addItem(label_text, fid)
        self.keeper.setVisible(bool(keepers))
        self.reason = QLineEdit(reason)
        self.reason.setObjectName("reason")
        self.reason.setPlaceholderText("Why (kept in the history)")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ok = buttons.addButton(ok_text, QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok.setObjectName("ok")
        self.reason.textChanged.connect(self._update)
        self.keeper.currentIndexChanged.connect(self._update)
        self._keepers = bool(keepers)
        self._update()
        self.ok.clicked.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        if keepers:
            layout.addWidget(QLabel("Keep this fact (the others are superseded by it):"))
            layout.addWidget(self.keeper)
        layout.addWidget(self.reason)
        layout.addWidget(buttons)
        self.resize(520, 200 if keepers else 160)

    def _update(self, *_args) -> None:
        """OK needs a reason, and for a merge a keeper the person chose (none is chosen for them)."""
        chosen = not self._keepers or self.keeper.currentData() is not None
        self.ok.setEnabled(bool(self.reason.text().strip()) and chosen)

    def values(self) -> tuple[str, str | None]:
        return self.reason.text().strip(), self.keeper.currentData()
