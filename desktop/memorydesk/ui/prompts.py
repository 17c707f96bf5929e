"""Small window-modal prompts that never block the event loop (``open()``, not ``exec()``).

Each takes a callback for the answer, so tests can drive the real widgets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from PySide6.QtWidgets import QLabel, QLineEdit, QMessageBox, QWidget


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


def confirm_async(parent: QWidget, title: str, text: str, *, yes_text: str = "OK",
                  informative: str = "") -> tuple[QMessageBox, Awaitable[bool]]:
    """``confirm`` for a flow: the box, and an awaitable that gives True for yes."""
    loop = asyncio.get_event_loop()
    answer: asyncio.Future = loop.create_future()
    box = confirm(parent, title, text, lambda: answer.done() or answer.set_result(True), yes_text=yes_text,
                  informative=informative)
    box.finished.connect(lambda _r: answer.done() or answer.set_result(False))  # after confirm's own slot
    return box, answer


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
