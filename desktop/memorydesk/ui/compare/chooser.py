"""File ▸ Compare With…: pick a backup the desk made beside the workspace (newest first), or
any other workspace file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memorydesk.core.moments import local_text


class CompareChooser(QDialog):
    def __init__(self, workspace: Path, found: list[tuple[Path, int]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compare-chooser")
        self.setWindowTitle("Compare With")
        self.workspace = workspace
        self.chosen: Path | None = None
        words = QLabel(f"Compare <b>{workspace.name}</b> with an earlier state of it. Both files are only read."
                       + ("" if found else "<br><br>The desk has made no backup beside this workspace yet; "
                                            "choose another workspace file."))
        words.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("compare-backups")
        for path, at in found:
            item = QListWidgetItem(f"{local_text(at)} — {path.name}")
            item.setData(Qt.ItemDataRole.UserRole, str(path))
            self.list.addItem(item)
        if found:
            self.list.setCurrentRow(0)
        self.list.itemDoubleClicked.connect(lambda _i: self.accept())
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.other = self.buttons.addButton("Other File…", QDialogButtonBox.ButtonRole.ActionRole)
        self.other.setObjectName("compare-other")
        self.other.clicked.connect(self._other)
        self.ok = self.buttons.addButton("Compare", QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok.setObjectName("compare-ok")
        self.ok.setEnabled(bool(found))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(words)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.buttons)
        self.resize(620, 360)

    def _other(self) -> None:
        path, _f = QFileDialog.getOpenFileName(self, "Compare with a workspace file", str(self.workspace.parent),
                                               "Workspace databases (*.db *.sqlite *.sqlite3);;All files (*)")
        if path:
            self.chosen = Path(path)
            self.accept()

    def accept(self) -> None:
        if self.chosen is None and self.list.currentItem() is not None:
            self.chosen = Path(self.list.currentItem().data(Qt.ItemDataRole.UserRole))
        super().accept()
