"""The window's status bar: a message longer than the room left of the status fields is drawn
cut with “…” (whole in the bar's tooltip), never up against or under those fields; the
message itself (``currentMessage``) stays whole."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QStatusBar, QWidget

GAP = 16  # between the message and the first status field


class ElidingStatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.permanent: list[QWidget] = []
        self.messageChanged.connect(self._tip)

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:  # noqa: N802 - Qt's name
        self.permanent.append(widget)
        super().addPermanentWidget(widget, stretch)

    def room(self) -> QRect:
        """Where the message may be drawn: from the left edge to the first visible status field."""
        right = min((w.geometry().left() for w in self.permanent if w.isVisible()), default=self.width())
        return QRect(6, 0, max(right - GAP - 6, 0), self.height())

    def shown_text(self) -> str:
        return self.fontMetrics().elidedText(self.currentMessage(), Qt.TextElideMode.ElideRight, self.room().width())

    def _tip(self, text: str) -> None:
        self.setToolTip(text if text and self.shown_text() != text else "")

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        if not self.currentMessage():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.ColorRole.WindowText))
        painter.drawText(self.room(), int(Qt.AlignmentFlag.AlignLeading | Qt.AlignmentFlag.AlignVCenter),
                         self.shown_text())
        painter.end()
