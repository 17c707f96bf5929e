"""The parts every filter bar has: drop-downs, the count of what is shown, and a small busy
bar beside it while a count or sort runs.

Drop-downs are named (tests and shortcuts find them), hold (label, value) items, and take
their width from a number of characters rather than their longest item, so filter bars fit
at 900 px.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QLabel, QProgressBar


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
