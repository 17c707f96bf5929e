"""An item delegate that lays out each cell in its own text's direction (RTL-safe)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from memorydesk.ui.widgets.text import is_rtl


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


PARTS_ROLE = int(Qt.ItemDataRole.UserRole) + 7  # (domain, rest): a cell that shows "domain / rest"


class DomainDelegate(BidiDelegate):
    """A "domain / topic" cell that is cut to fit: a ``repo:<slug>/name`` domain keeps its
    repository whole (what tells two repositories' conventions apart) and loses the end of its
    name, another domain its middle; the topic loses its end. The model's tooltip has the
    whole. Cells without ``PARTS_ROLE`` are cut in the middle."""

    def initStyleOption(self, option: QStyleOptionViewItem,
                        index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle
        parts = index.data(PARTS_ROLE)
        if not parts:
            return
        domain, rest = parts
        metrics = option.fontMetrics
        room = option.rect.width() - 10  # the cell's text margins
        whole = f"{domain} / {rest}"
        if room <= 0 or metrics.horizontalAdvance(whole) <= room:
            return
        sep = " / "
        repo, slash, name = domain.partition("/")
        scoped = domain.startswith("repo:") and slash
        left = max(int(room * (0.65 if scoped else 0.5)), room - metrics.horizontalAdvance(sep + rest))
        if scoped and metrics.horizontalAdvance(repo + slash + "…") <= left:
            head = repo + slash
            cut = head + metrics.elidedText(name, Qt.TextElideMode.ElideRight, left - metrics.horizontalAdvance(head))
        else:
            cut = metrics.elidedText(domain, Qt.TextElideMode.ElideMiddle, left)
        tail = metrics.elidedText(rest, Qt.TextElideMode.ElideRight, room - metrics.horizontalAdvance(cut + sep))
        option.text = cut + sep + tail
