"""The overview strip under the timeline: every lane merged into one strip over the whole span
(the most severe state wins a pixel), the part in view outlined; a click or drag moves the view."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QImage, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QApplication, QWidget

from memorydesk.lineage import raster
from memorydesk.ui.lineage import colors


class OverviewStrip(QWidget):
    """Every lane merged into one strip over the whole span (the most severe state wins a
    pixel), with the part in view outlined; a click or drag moves the view there."""

    moved = Signal(float)  # the data x to centre on

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("lineage-overview")
        self.setFixedHeight(16)
        self.setToolTip("All lanes merged: the most severe state in each pixel. Click to move there.")
        self.values = np.zeros(0, np.uint8)
        self.t0 = 0.0  # data x of the first bin
        self.bin = 1.0  # data x per bin
        self.view = (0.0, 0.0)
        self._lut = colors.lut()
        self._row: np.ndarray | None = None

    def set_data(self, values: np.ndarray, t0: float, bin_width: float) -> None:
        self.values, self.t0, self.bin = values, t0, max(bin_width, 1e-9)
        self.update()

    def set_view(self, x0: float, x1: float) -> None:
        self.view = (x0, x1)
        self.update()

    def span(self) -> tuple[float, float]:
        return self.t0, self.t0 + self.bin * len(self.values)

    def pixels(self, width: int) -> np.ndarray:
        lo, hi = self.span()
        if not len(self.values) or width <= 0:
            return np.zeros(max(width, 0), np.uint8)
        return raster.from_grid(self.values[None, :], self.bin, self.t0, lo, (hi - lo) / width, width)[0]

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QApplication.palette().base())
        width = self.width()
        if len(self.values) and width > 0:
            self._row = self._lut[self.pixels(width)][None, :].copy()
            image = QImage(self._row.data, width, 1, width * 4, QImage.Format.Format_ARGB32_Premultiplied)
            p.drawImage(QRectF(0, 2, width, self.height() - 4), image)
            lo, hi = self.span()
            a = (self.view[0] - lo) / (hi - lo) * width
            b = (self.view[1] - lo) / (hi - lo) * width
            p.setPen(QPen(QApplication.palette().text().color(), 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(QRectF(a, 0.5, max(2.0, b - a), self.height() - 1))
        p.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._move(event.position().x())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._move(event.position().x())

    def _move(self, x: float) -> None:
        lo, hi = self.span()
        if self.width() > 0 and hi > lo:
            self.moved.emit(lo + (hi - lo) * x / self.width())
