"""An item delegate that lays out each cell in its own text's direction (RTL-safe)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from memorydesk.ui.text import is_rtl


class BidiDelegate(QStyledItemDelegate):
    """Hebrew or Arabic cell text is drawn right-to-left and right-aligned, with an
    ellipsis on the correct (left) side; other text is unchanged."""

    def initStyleOption(self, option: QStyleOptionViewItem,
                        index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        if is_rtl(option.text):
            # leading alignment: the style mirrors it to the right for a right-to-left cell
            option.direction = Qt.LayoutDirection.RightToLeft
            option.displayAlignment = Qt.AlignmentFlag.AlignLeading | Qt.AlignmentFlag.AlignVCenter


class MiddleElideDelegate(BidiDelegate):
    """Long names (``repo:<slug>/domain / topic``) lose their middle, not their end, when cut:
    both the repository and the domain stay readable (the model's tooltip has the whole)."""

    def initStyleOption(self, option: QStyleOptionViewItem,
                        index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle
