"""The detail pane's "Can the agent get this back?" page: where the agent's hybrid recall
loses the selected fact for its own topic, and for a query the person types.

The page only asks (``asked`` signal: fact id, query); the tab runs the search on the
worker and hands the answer back (``show``). Its own topic is asked when the page is
shown for a new fact, so selecting facts costs no search while the page is hidden.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from memorydesk.ui.facts.recall import Asked, asked_html


class RecallPage(QWidget):
    asked = Signal(str, str)  # fact id, query

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recall-page")
        self.fact_id: str | None = None
        self.topic = ""
        self._asked_own: str | None = None  # the fact whose own topic was asked last
        self._typed: str | None = None  # a typed query waiting for its answer
        self.own = QLabel("")
        self.own.setObjectName("recall-own")
        self.answer = QLabel("")
        self.answer.setObjectName("recall-answer")
        for label in (self.own, self.answer):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.query = QLineEdit()
        self.query.setObjectName("recall-query")
        self.query.setPlaceholderText("A question an agent might ask…")
        self.ask_button = QPushButton("Ask as the agent")
        self.ask_button.setObjectName("recall-ask")
        self.ask_button.setToolTip("Run the agent's hybrid search for this text (a preview) and say where this "
                                   "fact ends up")
        self.query.returnPressed.connect(self.ask)
        self.ask_button.clicked.connect(self.ask)
        row = QHBoxLayout()
        row.addWidget(self.query, 1)
        row.addWidget(self.ask_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(QLabel("<b>Can the agent get this back?</b>"))
        layout.addWidget(self.own)
        layout.addLayout(row)
        layout.addWidget(self.answer)
        layout.addStretch(1)

    def set_fact(self, fact_id: str | None, topic: str) -> None:
        if fact_id != self.fact_id:
            self.own.setText("<i>Asking the agent's recall…</i>" if fact_id else "")
            self.answer.setText("")
        self.fact_id, self.topic = fact_id, topic
        self.ask_own()

    def ask_own(self) -> None:
        """Ask for the fact's own topic, once per fact, when the page is on screen."""
        if self.fact_id and self.isVisible() and self._asked_own != self.fact_id:
            self._asked_own = self.fact_id
            self.asked.emit(self.fact_id, self.topic)

    def ask(self) -> None:
        text = self.query.text().strip()
        if self.fact_id and text:
            self._typed = text
            self.answer.setText("<i>Asking…</i>")
            self.asked.emit(self.fact_id, text)

    def show_answer(self, answer: Asked) -> None:
        if answer.fact_id != self.fact_id:
            return
        if answer.query == self._typed:
            self._typed = None
            self.answer.setText(asked_html(answer, own_topic=False))
        elif answer.query == self.topic:
            self.own.setText(asked_html(answer, own_topic=True))

    def showEvent(self, event) -> None:  # noqa: ANN001 - Qt's signature
        super().showEvent(event)
        self.ask_own()
