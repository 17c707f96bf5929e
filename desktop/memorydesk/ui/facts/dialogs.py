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
    """Purging erases content for good; the person types the topic to confirm.

    ``backups``: the names of the backups beside the workspace that still hold the text
    (``memory.purge.backups_holding``); the person chooses to erase it there too (the
    default), to delete those backups, or to keep them."""

    BACKUP_CHOICES = (("erase", "Erase the text in them too"), ("delete", "Delete these backups"),
                      ("keep", "Keep them (the text stays in them)"))

    def __init__(self, topics: list[str], backups: list[str] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fact-purge")
        self.setWindowTitle("Purge facts")
        self.expected = topics[0] if len(topics) == 1 else f"purge {len(topics)} facts"
        backups = backups or []
        self.holding = bool(backups)
        text = QLabel(
            "Purging erases the selected fact(s) from this workspace for good: the text, its search index "
            "entry, its vector, earlier versions and the text kept in the history. The history keeps "
            "only ids, who, when and why. This cannot be undone.")
        text.setWordWrap(True)
        if backups:
            where = QLabel("These backups beside the workspace still hold the text:\n"
                           + "\n".join(f"  • {name}" for name in backups))
        else:
            where = QLabel("No backup beside the workspace holds this text.")
        where.setObjectName("backups")
        where.setWordWrap(True)
        self.backups = QComboBox()
        self.backups.setObjectName("backup-action")
        for key, label in self.BACKUP_CHOICES:
            self.backups.addItem(label, key)
        self.backups.setVisible(self.holding)
        log_note = QLabel("If another program has the file open, the text can stay in the file's write-ahead log "
                          "until that program lets go; Memory Desk then finishes the erase and the status bar "
                          "says where the text still is.")
        log_note.setWordWrap(True)
        confirm = QLabel(f"Type “{self.expected}” to confirm.")
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
        for widget in (text, where, self.backups, log_note, confirm, self.typed, self.reason):
            layout.addWidget(widget)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self.resize(560, 380 if backups else 320)

    def backup_action(self) -> str:
        """What to do with the backups that hold the text: erase, delete or keep."""
        return str(self.backups.currentData()) if self.holding else "keep"
