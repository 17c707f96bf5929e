"""What the first change did to the file, said where it stays readable: a bar above the tabs.

The first change to a file adds the desk's tables after a backup copy (``store.workspace``);
where the backup is matters (it is the way back), and a path does not fit a status bar at
1280 px, which also clears itself after seconds. The bar wraps the sentence, lets the path be
selected and copied, and stays until the person closes it (or another workspace opens).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


class NoticeBar(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("notice-bar")
        self.setStyleSheet("#notice-bar { background: #e8f1fb; border-bottom: 1px solid #9dbbe0; }")
        self.text = QLabel("")
        self.text.setObjectName("notice-text")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                          | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.close_button = QPushButton("Close")
        self.close_button.setObjectName("notice-close")
        self.close_button.setToolTip("Hide this note (the backup stays where it says)")
        self.close_button.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 4, 10, 4)
        row.addWidget(self.text, 1)
        row.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def say(self, text: str) -> None:
        self.text.setText(text)
        self.text.setToolTip(html.escape(text))
        self.show()
