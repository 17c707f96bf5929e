"""The page a view shows when the read that fills it failed: what went wrong, in a person's
words, and a button to read again (instead of "loading…" for ever)."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget


class ReadFailed(QWidget):
    """``show_error(what, message)`` says it; ``Read Again`` calls ``again``."""

    def __init__(self, again: Callable[[], None], name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{name}-failed")
        self.text = QLabel()
        self.text.setObjectName(f"{name}-failed-text")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.again = QPushButton("Read Again")
        self.again.setObjectName(f"{name}-read-again")
        self.again.clicked.connect(lambda _checked=False: again())
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.text)
        layout.addWidget(self.again, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(1)

    def show_error(self, what: str, message: str) -> None:
        self.text.setText(f"<h3>{html.escape(what)}</h3><p>{html.escape(message)}</p>")
