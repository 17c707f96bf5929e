"""The parts every filter bar has: drop-downs, the count of what is shown, and a small busy
bar beside it while a count or sort runs.

Drop-downs are named (tests and shortcuts find them), hold (label, value) items, and take
their width from a number of characters rather than their longest item, so filter bars fit
at 900 px.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QComboBox, QLabel, QProgressBar, QStyle, QStyleOptionComboBox, QStylePainter


def combo(name: str, items: list[tuple[str, Any]], chars: int = 9) -> QComboBox:
    box = QComboBox()
    box.setObjectName(name)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(chars)
    for label, value in items:
        box.addItem(label, value)
    return box


def counts_label() -> QLabel:
    label = QLabel("")
    label.setObjectName("counts")
    return label


def busy_bar() -> QProgressBar:
    """An indeterminate bar, hidden until work starts."""
    bar = QProgressBar()
    bar.setObjectName("busy")
    bar.setRange(0, 0)
    bar.setTextVisible(False)
    bar.setFixedSize(60, 10)
    bar.hide()
    return bar


class ElidedCombo(QComboBox):
    """A drop-down that shows its current item shortened in the middle when the room the bar gives
    it is less than the item needs (a long sourceVersion), instead of widening the bar past the
    window; its list shows every item whole."""

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        option.currentText = self.fontMetrics().elidedText(option.currentText, Qt.TextElideMode.ElideMiddle,
                                                           max(0, field.width() - 4))
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
