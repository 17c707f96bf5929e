"""Ctrl+Z and Ctrl+Shift+Z in a text field, as a desktop user expects: a field with typing of
its own to undo (or redo) takes the key first; a field with none lets the window's Edit ▸ Undo
(or Redo) act. A text field claims both keys for itself whether or not it has anything to
undo (it accepts the ``ShortcutOverride``), so without this the window's keys did nothing
while the search box or a form field had the focus."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit, QPlainTextEdit, QTextEdit, QWidget


def _own(field: QWidget, redo: bool) -> bool | None:
    """Whether ``field`` has typing of its own to undo (``redo``: to redo); None when it is no text field."""
    if isinstance(field, QAbstractSpinBox):
        field = field.findChild(QLineEdit) or field
    if isinstance(field, QLineEdit):
        return field.isRedoAvailable() if redo else field.isUndoAvailable()
    if isinstance(field, (QPlainTextEdit, QTextEdit)):
        doc = field.document()
        return doc.isRedoAvailable() if redo else doc.isUndoAvailable()
    return None


def _which(event: QKeyEvent) -> str | None:
    combo = event.keyCombination().toCombined()
    if QKeySequence(combo).matches(QKeySequence("Ctrl+Z")) == QKeySequence.SequenceMatch.ExactMatch:
        return "undo"
    if QKeySequence(combo).matches(QKeySequence("Ctrl+Shift+Z")) == QKeySequence.SequenceMatch.ExactMatch:
        return "redo"
    return None


class WindowUndoKeys(QObject):
    """Installed on the application for one main window (its parent): the keys pass to the
    window's shortcuts when the focused field of that window has nothing of its own to undo."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        QApplication.instance().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(watched, QWidget):
            return False
        which = _which(event)  # type: ignore[arg-type]
        if which is None or watched.window() is not self.window:
            return False
        own = _own(watched, redo=which == "redo")
        if own is None or own:
            return False  # not a field, or the field's own undo goes first
        event.ignore()  # the field does not claim the key: the window's Undo / Redo acts
        return True

    def remove(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
