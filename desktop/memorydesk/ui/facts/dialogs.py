"""Dialogs of the Facts tab: edit (saved as a supersession) and purge (type the topic)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from memorydesk.ui.prompts import reason_fields


class FactEditDialog(QDialog):
    """Domain, topic, content, confidence (5 % steps) and a reason. Saving supersedes the fact."""

    def __init__(self, fact: dict[str, Any], domains: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fact-edit")
        self.setWindowTitle("Edit fact")
        self.fact_id = fact["id"]
        self.domain = QComboBox()
        self.domain.setObjectName("domain")
        self.domain.setEditable(True)
        self.domain.addItems(domains)
        self.domain.setCurrentText(fact["domain"])
        self.topic = QLineEdit(fact["topic"])
        self.topic.setObjectName("topic")
        self.content = QPlainTextEdit(fact["content"])
        self.content.setObjectName("content")
        self.confidence = QSlider(Qt.Orientation.Horizontal)
        self.confidence.setObjectName("confidence")
        self.confidence.setRange(0, 20)
        self.confidence.setValue(round(float(fact["confidence"]) * 20))
        self.confidence_label = QLabel()
        self.confidence.valueChanged.connect(self._show_confidence)
        self._show_confidence()
        self.reason, self.problem = reason_fields()
        conf = QHBoxLayout()
        conf.addWidget(self.confidence, 1)
        conf.addWidget(self.confidence_label)
        form = QFormLayout()
        form.addRow("Domain", self.domain)
        form.addRow("Topic", self.topic)
        form.addRow("Content", self.content)
        form.addRow("Confidence", conf)
        form.addRow("Reason", self.reason)
        note = QLabel("Saving does not change this fact in place: it creates a new version (veracity "
                      "“stated”) and marks this one as superseded by it. Undo restores it.")
        note.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._check)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.resize(560, 420)

    def _show_confidence(self) -> None:
        self.confidence_label.setText(f"{self.confidence.value() * 5} %")

    def values(self) -> dict[str, Any]:
        return {"domain": self.domain.currentText().strip(), "topic": self.topic.text().strip(),
                "content": self.content.toPlainText().strip(), "confidence": self.confidence.value() / 20,
                "reason": self.reason.text().strip()}

    def _check(self) -> None:
        v = self.values()
        missing = [name for name in ("domain", "topic", "content") if not v[name]]
        if missing:
            self.problem.setText(f"{', '.join(missing).capitalize()} may not be empty.")
            return
        self.accept()


class PurgeDialog(QDialog):
    """Purging erases content for good; the person types the topic to confirm."""

    def __init__(self, topics: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fact-purge")
        self.setWindowTitle("Purge facts")
        self.expected = topics[0] if len(topics) == 1 else f"purge {len(topics)} facts"
        text = QLabel(
            "Purging erases the content of the selected fact(s) for good: the text, its search index "
            "entry, its vector, earlier versions and the text kept in the history. The history keeps "
            f"only ids, who, when and why. This cannot be undone.\n\nType “{self.expected}” to confirm.")
        text.setWordWrap(True)
        self.typed = QLineEdit()
        self.typed.setObjectName("typed")
        self.reason = QLineEdit()
        self.reason.setObjectName("reason")
        self.reason.setPlaceholderText("Why (kept in the history)")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.purge = self.buttons.addButton("Purge", QDialogButtonBox.ButtonRole.DestructiveRole)
        self.purge.setObjectName("purge")
        self.purge.setEnabled(False)
        self.typed.textChanged.connect(lambda t: self.purge.setEnabled(t.strip() == self.expected.strip()))
        self.purge.clicked.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.typed)
        layout.addWidget(self.reason)
        layout.addWidget(self.buttons)
        self.resize(520, 240)
