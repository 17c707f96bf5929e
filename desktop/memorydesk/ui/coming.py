"""Plain pages for the tabs that are not built yet (each replaced by its own package)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from memorydesk.ui.tab import DeskTab


class ComingTab(DeskTab):
    planned = ""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        label = QLabel(f"<h2>{self.title}</h2><p>Coming in a later build: {self.planned}.</p>")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(label)


class GrantsComing(ComingTab):
    name, title = "grants", "Grants"
    planned = "the effective role × domain permission matrix, with fail-open cells marked"
