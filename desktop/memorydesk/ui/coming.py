"""A plain page for the tabs that are not built yet."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

PLANNED = {
    "Knowledge Graph": "facts and their episodic edges as a navigable graph",
    "Grants": "the effective role × domain permission matrix, with fail-open cells marked",
    "Conflicts": "which fact replaced which, when and why — restore the loser or confirm",
    "Lineage": "memory moving between tiers, coloured healthy / waiting / at-risk / stale / uncertain",
}


class ComingPage(QWidget):
    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"coming-{title.lower().replace(' ', '-')}")
        label = QLabel(f"<h2>{title}</h2><p>Coming in a later build: {PLANNED.get(title, '')}.</p>")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
