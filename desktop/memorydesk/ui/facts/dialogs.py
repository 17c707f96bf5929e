"""Dialogs of the Facts tab: edit (saved as a supersession) and purge (type the fact's name).

Both ask why; an empty reason is refused in place (``prompts.require_reason``)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.detail import FactRecord
from memorydesk.browse.naming import FactName, listed
from memorydesk.ui.widgets.prompts import reason_fields, require_reason


@dataclass(frozen=True)
class FactEdit:
    """What the edit dialog hands back: a field the person changed as typed (trimmed), every
    other field exactly as the fact holds it (confidence 0–1)."""

    domain: str
    topic: str
    content: str
    confidence: float
    reason: str


class FactEditDialog(QDialog):
    """Domain, topic, content, confidence (in per cent) and a reason. Saving supersedes the fact.

    A field the person leaves alone comes back exactly as the fact holds it: its text untrimmed,
    its confidence unrounded (the box shows two decimals of a per cent; 0.5912 stays 0.5912)."""

    def __init__(self, fact: FactRecord, domains: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fact-edit")
        self.setWindowTitle("Edit fact")
        self.fact_id = fact.id
        self.original = fact
        self.domain = QComboBox()
        self.domain.setObjectName("domain")
        self.domain.setEditable(True)
        self.domain.addItems(domains)
        self.domain.setCurrentText(fact.domain)
        self.topic = QLineEdit(fact.topic)
        self.topic.setObjectName("topic")
        self.content = QPlainTextEdit(fact.content)
        self.content.setTabChangesFocus(True)  # Tab moves on to the next field
        self.content.setObjectName("content")
        self.confidence = QDoubleSpinBox()
        self.confidence.setObjectName("confidence")
        self.confidence.setRange(0.0, 100.0)
        self.confidence.setDecimals(2)
        self.confidence.setSingleStep(5.0)
        self.confidence.setSuffix(" %")
        self.confidence.setValue(float(fact.confidence) * 100)
        self.confidence_set = False  # the person changed the box (the stored value is used until then)
        self.confidence.valueChanged.connect(lambda _v: setattr(self, "confidence_set", True))
        # what each text field shows at first: one still showing it was not changed by the person
        self.shown = (self.domain.currentText(), self.topic.text(), self.content.toPlainText())
        self.reason, self.problem = reason_fields()
        form = QFormLayout()
        form.addRow("Domain", self.domain)
        form.addRow("Topic", self.topic)
        form.addRow("Content", self.content)
        form.addRow("Confidence", self.confidence)
        form.addRow("Reason", self.reason)
        note = QLabel("Saving does not change this fact in place: it creates a new version (veracity "
                      "“stated”, no author agent) and marks this one as superseded by it. Every field you "
                      "leave alone is kept exactly as it is. Undo restores it.")
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

    def values(self) -> FactEdit:
        fact, shown = self.original, self.shown
        now = (self.domain.currentText(), self.topic.text(), self.content.toPlainText())
        domain, topic, content = (kept if typed == first else typed.strip()
                                  for typed, first, kept in zip(now, shown, (fact.domain, fact.topic, fact.content),
                                                                strict=True))
        confidence = round(self.confidence.value() / 100, 6) if self.confidence_set else float(fact.confidence)
        return FactEdit(domain, topic, content, confidence, self.reason.text().strip())

    def _check(self) -> None:
        v = self.values()
        fields = (("domain", v.domain), ("topic", v.topic), ("content", v.content))
        missing = [name for name, text in fields if not text.strip()]
        if missing:
            self.problem.setText(f"{', '.join(missing).capitalize()} may not be empty.")
            return
        if not 0.0 <= v.confidence <= 1.0:
            self.problem.setText(f"This fact's confidence ({v.confidence:g}) is outside 0–1, which the product "
                                 "refuses to read; set one in the Confidence box.")
            return
        if require_reason(self.reason, self.problem):
            self.accept()


class PurgeDialog(QDialog):
    """Purging erases content for good; the person types what tells the fact apart to confirm.

    One fact: its name (``browse.naming``: its topic, or topic plus its first words when
    other facts share the topic), or its id; several: “purge N facts”. A reason is needed.
    Enter never closes the dialog silently: it purges when everything is given, and says
    what is missing otherwise; only Esc or Cancel cancel.

    ``backups``: the names of the backups beside the workspace that still hold the text
    (``memory.actions.purge.backups_holding``); the person chooses to erase it there too (the
    default), to delete those backups, or to keep them."""

    BACKUP_CHOICES = (("erase", "Erase the text in them too"), ("delete", "Delete these backups"),
                      ("keep", "Keep them (the text stays in them)"))

    def __init__(self, names: list[FactName] | list[str], backups: list[str] | None = None,
                 parent: QWidget | None = None, *, noun: str = "fact", erases: str = "", also: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("fact-purge")
        self.setWindowTitle(f"Purge {noun}s" if len(names) > 1 else f"Purge {noun}")
        facts = [n if isinstance(n, FactName) else FactName(n, n, n, 1) for n in names]
        self.expected = facts[0].name if len(facts) == 1 else f"purge {len(facts)} facts"
        self.also = facts[0].id if len(facts) == 1 else None  # the id is always unique
        backups = backups or []
        self.holding = bool(backups)
        what = QLabel(f"Purge {noun + ' ' if len(facts) == 1 else f'{len(facts):,} {noun}s: '}{listed(facts, 8)}")
        what.setObjectName("purge-what")
        what.setTextFormat(Qt.TextFormat.PlainText)
        what.setWordWrap(True)
        text = QLabel(erases or (
            "Purging erases the selected fact(s) from this workspace for good: the text, its search index "
            "entry, its vector, earlier versions and the text kept in the history"
            + (f" — and with them {also}" if also else "") + ". The history keeps "
            "only ids, who, when and why. This cannot be undone."))
        text.setObjectName("purge-erases")
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
        shared = facts[0].shared if len(facts) == 1 else 1
        why = f" (its topic alone is shared by {shared:,} facts)" if shared > 1 and self.expected != facts[0].topic \
            else ""
        or_id = f", or its id {self.also}," if self.also and self.also != self.expected else ""
        confirm = QLabel(f"Type “{self.expected}”{why}{or_id} to confirm.")
        confirm.setObjectName("purge-phrase")
        confirm.setTextFormat(Qt.TextFormat.PlainText)
        confirm.setWordWrap(True)
        confirm.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.typed = QLineEdit()
        self.typed.setObjectName("typed")
        self.reason, self.problem = reason_fields()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setAutoDefault(False)
        self.purge = self.buttons.addButton("Purge", QDialogButtonBox.ButtonRole.DestructiveRole)
        self.purge.setObjectName("purge")
        self.purge.setAutoDefault(False)
        self.purge.setEnabled(False)
        self.typed.textChanged.connect(lambda _t: (self.purge.setEnabled(self.matches()), self.problem.setText("")))
        self.purge.clicked.connect(self.try_purge)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Confirm", self.typed)
        form.addRow("Reason", self.reason)
        layout = QVBoxLayout(self)
        for widget in (what, text, where, self.backups, log_note, confirm):
            layout.addWidget(widget)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.typed.setFocus()
        self.resize(600, self.heightForWidth(600) if self.hasHeightForWidth() else self.sizeHint().height())

    def matches(self) -> bool:
        typed = " ".join(self.typed.text().split())
        return typed == " ".join(self.expected.split()) or (self.also is not None and typed == self.also)

    def try_purge(self) -> None:
        """Purge when the name is typed and a reason given; else say what is missing, in place."""
        if not self.matches():
            self.problem.setText(f"Type “{self.expected}” exactly to purge (Esc cancels).")
            self.typed.setFocus()
            return
        if require_reason(self.reason, self.problem):
            self.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        plain = not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and plain:
            self.try_purge()
            return
        super().keyPressEvent(event)

    def backup_action(self) -> str:
        """What to do with the backups that hold the text: erase, delete or keep."""
        return str(self.backups.currentData()) if self.holding else "keep"
