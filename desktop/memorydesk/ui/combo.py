"""A filter's drop-down: named (tests and shortcuts find it), (label, value) items, and a width
set by a number of characters rather than by its longest item, so filter bars fit at 900 px."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox


def combo(name: str, items: list[tuple[str, Any]], chars: int = 9) -> QComboBox:
    box = QComboBox()
    box.setObjectName(name)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(chars)
    for label, value in items:
        box.addItem(label, value)
    return box
