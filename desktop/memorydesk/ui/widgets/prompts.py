"""Small window-modal prompts that never block the event loop (``open()``, not ``exec()``).

Each takes a callback for the answer (or gives an awaitable), so tests can drive the real
widgets. Every change a person makes asks why, in the dialog that confirms it: the
``reason_fields`` rows, checked by ``require_reason`` (an empty reason is refused in
place, the dialog stays open), or all of it at once in a ``ReasonDialog`` /
``ask_reason`` for a confirmation that names what it acts on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from memorydesk.core.errors import BadInput
from memorydesk.core.inputs import check_reason

#: what an empty reason is told, next to the field
REASON_NEEDED = "Say why: the reason is kept in the history with the change."


def confirm(parent: QWidget, title: str, text: str, on_yes: Callable[[], None], *,
            yes_text: str = "OK", informative: str = "") -> QMessageBox:
    box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.Cancel, parent)
    box.setObjectName("confirm")
    yes = box.addButton(yes_text, QMessageBox.ButtonRole.AcceptRole)
    yes.setObjectName("confirm-yes")
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    if informative:
        box.setInformativeText(informative)

    def done(_result: int) -> None:
        if box.clickedButton() is yes:
            on_yes()
        box.deleteLater()

    box.finished.connect(done)
    box.open()
    return box


def show_error(parent: QWidget, title: str, text: str) -> QMessageBox:
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("error")
    box.finished.connect(lambda _r: box.deleteLater())
    box.open()
    return box


def reason_fields() -> tuple[QLineEdit, QLabel]:
    """The two rows every edit dialog ends with: why (kept in the history), and what is wrong."""
    reason = QLineEdit()
    reason.setObjectName("reason")
    reason.setPlaceholderText("Why (kept in the history)")
    problem = QLabel("")
    problem.setObjectName("problem")
    problem.setStyleSheet("color: #c0392b")
    return reason, problem


def require_reason(reason: QLineEdit, problem: QLabel) -> bool:
    """True when a reason was given (``core.inputs.check_reason``, the rule every place that asks why
    follows); otherwise say so next to the field and put the cursor there."""
    try:
        check_reason(reason.text())
        return True
    except BadInput:
        pass
    problem.setText(REASON_NEEDED)
    problem.show()
    reason.setFocus()
    return False


class ReasonDialog(QDialog):
    """A confirmation that asks why: ``text`` names what it acts on, ``informative`` says what
    follows, the reason field is required (refused in place while empty). Enter in the field
    presses the confirming button, which checks the reason; Esc cancels.

    ``add(widget)`` puts more above the reason row (a dialog built on this one)."""

    def __init__(self, parent: QWidget | None, title: str, text: str, *, yes_text: str = "OK",
                 informative: str = "", name: str = "reason-dialog") -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setWindowTitle(title)
        self.text = QLabel(text)
        self.text.setObjectName("reason-text")
        self.text.setTextFormat(Qt.TextFormat.PlainText)  # topics are people's text, never markup
        self.text.setWordWrap(True)
        self.informative = QLabel(informative)
        self.informative.setObjectName("reason-informative")
        self.informative.setTextFormat(Qt.TextFormat.PlainText)
        self.informative.setWordWrap(True)
        self.informative.setVisible(bool(informative))
        self.reason, self.problem = reason_fields()
        self.problem.hide()  # shown with what is wrong (no empty line until then)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.yes = self.buttons.addButton(yes_text, QDialogButtonBox.ButtonRole.AcceptRole)
        self.yes.setObjectName("reason-yes")
        self.yes.setDefault(True)
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setAutoDefault(False)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.body = QVBoxLayout()
        form = QFormLayout()
        form.addRow("Reason", self.reason)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(self.informative)
        layout.addLayout(self.body)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.reason.setFocus()
        self.resize(520, self.sizeHint().height())  # as tall as its words, no taller

    def add(self, widget: QWidget) -> None:
        self.body.addWidget(widget)

    def showEvent(self, event) -> None:  # Qt's name
        """Tall enough for its wrapped words and whatever a dialog built on it added, at its width."""
        needed = self.layout().heightForWidth(self.width())
        if needed > self.height():
            self.resize(self.width(), needed)
        super().showEvent(event)

    def reason_text(self) -> str:
        return self.reason.text().strip()

    def accept(self) -> None:
        if require_reason(self.reason, self.problem):
            super().accept()


def ask_reason(parent: QWidget, title: str, text: str, *, yes_text: str = "OK",
               informative: str = "", name: str = "reason-dialog") -> tuple[ReasonDialog, Awaitable[str | None]]:
    """A ``ReasonDialog`` opened window-modally, and an awaitable that gives the reason
    (trimmed, never empty) when confirmed, None when cancelled."""
    loop = asyncio.get_event_loop()
    answer: asyncio.Future = loop.create_future()
    dialog = ReasonDialog(parent, title, text, yes_text=yes_text, informative=informative, name=name)

    def done(code: int) -> None:
        if not answer.done():
            answer.set_result(dialog.reason_text() if code == QDialog.DialogCode.Accepted.value else None)
        dialog.deleteLater()

    dialog.finished.connect(done)
    dialog.open()
    return dialog, answer
