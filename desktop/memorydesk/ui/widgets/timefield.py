"""A typed local time that means exactly what was typed: ``2026-11-13 21:40:00``.

A line edit rather than a sectioned date-time spinner (which took a typed whole time
section by section and silently kept parts of the old one). Accepted, in the computer's
local time unless an offset or ``Z`` is given: ``YYYY-MM-DD HH:MM:SS``, ``YYYY-MM-DD HH:MM``,
``YYYY-MM-DD`` (midnight), a ``T`` instead of the space, fractions of a second. The time
is taken on Enter or when the field loses focus; one that cannot be read is said next to
the field, in red, and the last good time stays in force.
"""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QWidget

from memorydesk.core.errors import BadInput
from memorydesk.core.moments import read_local

FORMAT = "%Y-%m-%d %H:%M:%S"


def parse_local(text: str) -> datetime:
    """The UTC moment a typed time names (ValueError with a sentence when it names none):
    ``core.moments.read_local``, which refuses a wall-clock time the clocks skipped."""
    try:
        return read_local(text)[0]
    except BadInput as exc:
        raise ValueError(str(exc)) from None


def local_text(moment: datetime) -> str:
    text = moment.astimezone().strftime(FORMAT)
    return text + (f".{moment.microsecond:06d}".rstrip("0") if moment.microsecond else "")


class TimeField(QWidget):
    """``moment()`` is the last time read; ``edited`` fires when a typed time is taken."""

    edited = Signal(object)  # datetime (UTC)

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QLineEdit()
        self.edit.setObjectName(name)
        self.edit.setPlaceholderText("YYYY-MM-DD HH:MM:SS")
        self.edit.setMinimumWidth(self.edit.fontMetrics().horizontalAdvance("2026-11-13 21:40:00.000") + 16)
        self.error = QLabel("")
        self.error.setObjectName(name + "-error")
        self.error.setStyleSheet("color: #c0392b")
        self.error.setVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.edit)
        layout.addWidget(self.error)
        self._moment = datetime.now(UTC).replace(microsecond=0)
        self.edit.setText(local_text(self._moment))
        self.edit.editingFinished.connect(self.take)

    def moment(self) -> datetime:
        return self._moment

    def set_moment(self, moment: datetime) -> None:
        """Show ``moment`` (no ``edited``)."""
        self._moment = moment.astimezone(UTC)
        self.edit.setText(local_text(self._moment))
        self._say("")

    def take(self) -> bool:
        """Read the typed text; True when it named a new time (``edited`` has fired)."""
        try:
            moment = parse_local(self.edit.text())
        except ValueError as exc:
            self._say(str(exc))
            return False
        self._say("")
        if moment == self._moment:
            return False
        self._moment = moment
        self.edited.emit(moment)
        return True

    def _say(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))
        self.edit.setStyleSheet("QLineEdit { border: 1px solid #c0392b }" if text else "")
        self.edit.setToolTip(text)
