"""How a grant cell looks: the permission is the fill colour, the source is the shape.

- an exact row: a solid fill (write green, read blue, none red);
- fail-open (no row): no fill at all — diagonal hatching on the background and a
  dashed outline, so "nobody decided this" is visible without reading a word;
- the bare name's row: the fill, plus a teal corner flag on the left;
- an unknown role or permission string: the fill, plus an amber corner flag with "!";
- ambiguous (several rows match): the fill, a purple double outline and a "?" flag.

The same painter draws the legend, so the legend cannot drift from the cells.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPainter, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import (
    QApplication,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

from memorydesk.core.product.grants import Source
from memorydesk.core.product.vocab import Permission

FILL = {Permission.WRITE: QColor("#bfe5c8"), Permission.READ: QColor("#cfdcf1"), Permission.NONE: QColor("#f3c4bd")}
INK = {Permission.WRITE: QColor("#1e6b3a"), Permission.READ: QColor("#2f4f85"), Permission.NONE: QColor("#9b2b1f")}
FLAG = {Source.BARE_NAME: QColor("#138d90"), Source.UNKNOWN_VALUE: QColor("#d9822b"),
        Source.AMBIGUOUS: QColor("#8e44ad")}
HATCH = QColor("#8a94a6")
TEXT = {Permission.WRITE: "write", Permission.READ: "read", Permission.NONE: "none"}
#: data role carrying (Permission, Source) of a cell; and whether a filter dims it
CELL_ROLE = int(Qt.ItemDataRole.UserRole) + 1
DIM_ROLE = int(Qt.ItemDataRole.UserRole) + 2
Index = QModelIndex | QPersistentModelIndex


def _flag(p: QPainter, r: QRectF, color: QColor, left: bool, mark: str) -> None:
    p.save()
    size = min(r.height() * 0.55, 14.0)
    if left:
        tri = QPolygonF([r.topLeft(), QPointF(r.left() + size, r.top()), QPointF(r.left(), r.top() + size)])
    else:
        tri = QPolygonF([r.topRight(), QPointF(r.right() - size, r.top()), QPointF(r.right(), r.top() + size)])
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color)
    p.drawPolygon(tri)
    if mark:
        font = QFont(p.font())
        font.setBold(True)
        font.setPixelSize(max(7, int(size * 0.62)))
        p.setFont(font)
        p.setPen(QColor("white"))
        box = QRectF(r.right() - size * 0.62, r.top(), size * 0.62, size * 0.62)
        p.drawText(box, int(Qt.AlignmentFlag.AlignCenter), mark)
    p.restore()


def paint_cell(p: QPainter, rect: QRectF, permission: Permission, source: Source, *, dim: bool = False,
               text: bool = True, base: QColor | None = None) -> None:
    """Draw one cell (or a legend swatch) in ``rect``."""
    p.save()
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    if dim:
        p.setOpacity(0.22)
    r = rect.adjusted(1.5, 1.5, -1.5, -1.5)
    ink = INK[permission]
    if source is Source.FAIL_OPEN:
        p.fillRect(r, base if base is not None else QApplication.palette().color(QPalette.ColorRole.Base))
        p.fillRect(r, QBrush(HATCH, Qt.BrushStyle.BDiagPattern))
        pen = QPen(HATCH, 1.2, Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(r)
        ink = QColor("#4a5263")
    else:
        p.fillRect(r, FILL[permission])
        if source is Source.AMBIGUOUS:
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(QPen(FLAG[Source.AMBIGUOUS], 1.6))
            p.drawRect(r)
            p.drawRect(r.adjusted(3, 3, -3, -3))
    if source is Source.BARE_NAME:
        _flag(p, r, FLAG[source], True, "")
    elif source is Source.UNKNOWN_VALUE:
        _flag(p, r, FLAG[source], False, "!")
    elif source is Source.AMBIGUOUS:
        _flag(p, r, FLAG[source], False, "?")
    if text:
        font = QFont(p.font())
        font.setItalic(source is Source.FAIL_OPEN)
        font.setBold(permission is Permission.WRITE and source is not Source.FAIL_OPEN)
        p.setFont(font)
        p.setPen(ink)
        p.drawText(r, int(Qt.AlignmentFlag.AlignCenter), TEXT[permission])
    p.restore()


class CellDelegate(QStyledItemDelegate):
    """Paints grant cells (``CELL_ROLE``) and a selection outline; no editing."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        code = index.data(CELL_ROLE)
        if code is None:
            super().paint(painter, option, index)
            return
        permission, source = code
        rect = QRectF(option.rect)
        painter.save()
        painter.fillRect(option.rect, option.palette.color(QPalette.ColorRole.Base))
        paint_cell(painter, rect, permission, source, dim=bool(index.data(DIM_ROLE)))
        state = option.state
        if state & QStyle.StateFlag.State_Selected:
            color = option.palette.color(QPalette.ColorRole.Highlight)
            painter.setPen(QPen(color, 2.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect.adjusted(1.5, 1.5, -1.5, -1.5))
            overlay = QColor(color)
            overlay.setAlpha(40)
            painter.fillRect(rect.adjusted(2, 2, -2, -2), overlay)
        if state & QStyle.StateFlag.State_HasFocus:
            painter.setPen(QPen(option.palette.color(QPalette.ColorRole.Text), 1, Qt.PenStyle.DotLine))
            painter.drawRect(rect.adjusted(3.5, 3.5, -3.5, -3.5))
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        metrics = option.fontMetrics
        return QSize(metrics.horizontalAdvance("write") + 24, metrics.height() + 10)


class Legend(QWidget):
    """The legend: a swatch drawn by ``paint_cell`` and a word for each entry, wrapping onto
    more lines when the widget is narrow (its height follows its width)."""

    GAP = 10

    def __init__(self, entries: Sequence[tuple[Permission, Source, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entries = list(entries)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def _swatch(self) -> QSize:
        m = self.fontMetrics()
        return QSize(m.horizontalAdvance("write") + 22, m.height() + 8)

    def _places(self, width: int) -> list[tuple[QRectF, QRectF]]:
        swatch, m = self._swatch(), self.fontMetrics()
        x = y = 0
        out = []
        for _p, _s, text in self.entries:
            w = swatch.width() + 4 + m.horizontalAdvance(text)
            if x and x + w > width:
                x, y = 0, y + swatch.height() + 4
            out.append((QRectF(x, y, swatch.width(), swatch.height()),
                        QRectF(x + swatch.width() + 4, y, w - swatch.width() - 4, swatch.height())))
            x += w + self.GAP
        return out

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        places = self._places(max(width, 1))
        return int(places[-1][0].bottom()) + 1 if places else 0

    def sizeHint(self) -> QSize:
        places = self._places(10_000)
        return QSize(int(places[-1][1].right()) if places else 0, self._swatch().height() + 1)

    def minimumSizeHint(self) -> QSize:
        return QSize(self._swatch().width() * 2, self._swatch().height() + 1)

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        for (box, label), (permission, source, text) in zip(self._places(self.width()), self.entries):
            paint_cell(painter, box, permission, source, base=self.palette().color(QPalette.ColorRole.Base))
            painter.setPen(self.palette().color(QPalette.ColorRole.WindowText))
            painter.drawText(label, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), text)
        painter.end()


def fit_domain_header(view: QTableView, names: list[str]) -> None:
    """The domain names' column as wide as the widest name needs — measured as the header draws
    the selected row's name, in bold (italic too: a name without a domain row) — up to a share
    of the view; only a longer name is cut, in the middle."""
    header = view.verticalHeader()
    font = QFont(header.font())
    font.setBold(True)
    font.setItalic(True)
    metrics = QFontMetrics(font)
    longest = sorted(names, key=len, reverse=True)[:40]
    widest = max((metrics.horizontalAdvance(name) for name in longest), default=80)
    margin = 2 * header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header) + 12
    cap = max(110, min(420, int(view.width() * 0.3)))
    header.setFixedWidth(min(widest + margin, cap))
