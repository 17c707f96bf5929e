"""The timeline's one graphics item: every shown run as a bar, drawn at the detail the screen can show.

Data coordinates: x is seconds since the tab's origin (a float; the axis turns it into
local time), y is the display row (one lane per row, row 0 on top). ``paint`` works in
device pixels (it resets the painter's transform after reading it), so nothing is lost
to float rounding at any zoom:

- few bars in view (``VECTOR_LIMIT``): one rectangle each, grouped by colour, least
  severe first; a bar is at least a pixel wide (at-risk two), so none vanishes; runs that
  overlap in a lane sit one above the other on sub-tracks (``Timeline.track``, as many as
  the lane's height holds at three pixels each), and a bar a few pixels wide leaves a
  pixel free at its end, so runs that follow each other do not merge into one bar;
- otherwise a raster at screen resolution from ``Timeline.raster`` — straight from the
  bars, or from the per-lane grid when a pixel spans whole bins — where each pixel keeps
  the most severe state under it; lanes become bands of ``lane_px`` pixels.

Canary runs get a dark mark above the bar; the selected run an outline (at least a few
pixels wide). Hit-testing (click, tooltip) is ``Timeline.hit``, in numpy.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QApplication

from memorydesk.core.health.table import BY_SEVERITY
from memorydesk.lineage.timeline import Timeline
from memorydesk.ui.lineage import colors

VECTOR_LIMIT = 2000
US = 1_000_000


def lane_pad(lane_px: int) -> int:
    """Pixels left free above and below a lane's bars."""
    return max(2, min(4, round(lane_px * 0.2)))


class TimelineItem(pg.GraphicsObject):
    clicked = Signal(object)  # a table run index, or None (empty place)

    def __init__(self) -> None:
        super().__init__()
        self.tl: Timeline | None = None
        self.origin_us = 0
        self.selected: int | None = None
        self.mode = ""  # what the last paint drew: "vector" or "raster"
        self.describe: Callable[[int | None, int], str] = lambda run, t: ""
        self._lut = colors.lut()
        self._brushes = [colors.qcolor(c) for c in BY_SEVERITY]
        self._image: np.ndarray | None = None  # keeps the raster's memory alive while Qt draws it
        self.setAcceptHoverEvents(True)

    def set_timeline(self, tl: Timeline | None, origin_us: int) -> None:
        self.prepareGeometryChange()
        self.tl, self.origin_us = tl, origin_us
        self.update()

    def x_of(self, t_us: float) -> float:
        return (t_us - self.origin_us) / US

    def t_of(self, x: float) -> int:
        return round(self.origin_us + x * US)

    def boundingRect(self) -> QRectF:
        tl = self.tl
        if tl is None or tl.rows == 0:
            return QRectF()
        lo, hi = tl.whole.span()
        pad = max(1.0, (hi - lo) / US * 0.05)
        return QRectF(self.x_of(lo) - pad, 0.0, (hi - lo) / US + 2 * pad, float(tl.rows))

    # -- painting ---------------------------------------------------------------------------------

    def paint(self, p: QPainter, opt, widget=None) -> None:
        tl, vb = self.tl, self.getViewBox()
        if tl is None or vb is None or tl.rows == 0:
            return
        t = p.transform()
        sx, sy, dx, dy = t.m11(), t.m22(), t.dx(), t.dy()
        view = vb.viewRect()
        if sx <= 0 or sy <= 0 or view.width() <= 0:
            return
        left, right = view.left(), view.right()
        r0, r1 = max(0, math.floor(view.top())), min(tl.rows, math.ceil(view.bottom()))
        x_left, x_right = sx * left + dx, sx * right + dx
        width = round(x_right - x_left)
        if r1 <= r0 or width <= 0:
            return
        lane_px = max(1, round(sy))
        pad = lane_pad(lane_px)
        x0_us = self.origin_us + left * US
        pixel_us = (right - left) * US / width
        p.save()
        p.resetTransform()
        p.setClipRect(QRectF(x_left, sy * view.top() + dy, x_right - x_left, sy * view.height()))
        self._shade(p, r0, r1, sy, dy, x_left, width)
        found = tl.in_view(r0, r1, int(x0_us), int(x0_us + pixel_us * width))
        if len(found) <= VECTOR_LIMIT:
            self.mode = "vector"
            self._vectors(p, found, sx, dx, sy, dy, pad)
        else:
            self.mode = "raster"
            self._raster(p, r0, r1, x0_us, pixel_us, width, x_left, sy * r0 + dy, lane_px, pad)
        self._selection(p, sx, dx, sy, dy, pad)
        p.restore()

    def _shade(self, p: QPainter, r0: int, r1: int, sy: float, dy: float, x: float, width: int) -> None:
        shade = QColor(QApplication.palette().text().color())
        shade.setAlpha(14)
        for r in range(r0 + (r0 % 2), r1, 2):
            p.fillRect(QRectF(x, sy * r + dy, width, sy), shade)

    def _vectors(self, p: QPainter, found: np.ndarray, sx: float, dx: float, sy: float, dy: float,
                 pad: int) -> None:
        tl = self.tl
        assert tl is not None
        if not len(found):
            return
        xs = sx * ((tl.start[found] - self.origin_us) / US) + dx
        xe = sx * ((tl.end[found] - self.origin_us) / US) + dx
        value = tl.value[found]
        least = np.where(value >= 5, 2.0, 1.0)
        grow = np.maximum(least - (xe - xs), 0)
        xs, w = xs - grow / 2, np.maximum(xe - xs, least)
        w = np.where(w >= 4, w - 1, w)  # a gap between runs that follow each other
        ys, h = self._track_box(found, sy, dy, pad)
        p.setPen(Qt.PenStyle.NoPen)
        for v in range(1, 6):
            mine = np.flatnonzero(value == v)
            if len(mine):
                p.setBrush(self._brushes[v - 1])
                p.drawRects([QRectF(a, b, c, d) for a, b, c, d in zip(xs[mine].tolist(), ys[mine].tolist(),
                                                                       w[mine].tolist(), h[mine].tolist())])
        marked = np.flatnonzero(tl.canary[found])
        if len(marked):
            p.setBrush(self._canary_color())
            p.drawRects([QRectF(a - 1, b - 3, max(c + 2, 4.0), 2) for a, b, c in
                         zip(xs[marked].tolist(), ys[marked].tolist(), w[marked].tolist())])

    def _track_box(self, found: np.ndarray, sy: float, dy: float, pad: int) -> tuple[np.ndarray, np.ndarray]:
        """Top and height of each bar: the lane's whole height for a run that overlaps no other,
        else its sub-track's share of it among its group of overlapping runs (runs beyond what
        the lane holds share the tracks in turn)."""
        tl = self.tl
        assert tl is not None
        rows = tl.row[found]
        held = max(1, int((sy - 2 * pad) // 3))
        tracks = np.minimum(tl.tracks[found], held) if len(tl.tracks) else np.ones(len(found), np.int32)
        height = max(1.0, sy - 2 * pad) / tracks
        track = tl.track[found] % tracks if len(tl.track) else np.zeros(len(found), np.int32)
        return sy * rows + dy + pad + track * height, np.maximum(height - (tracks > 1), 1.0)

    def _raster(self, p: QPainter, r0: int, r1: int, x0_us: float, pixel_us: float, width: int, x: float,
                y: float, lane_px: int, pad: int) -> None:
        tl = self.tl
        assert tl is not None
        cells = tl.raster(r0, r1, x0_us, pixel_us, width)
        rows = r1 - r0
        image = np.zeros((rows, lane_px, width), np.uint32)
        image[:, pad:max(pad + 1, lane_px - pad), :] = self._lut[cells][:, None, :]
        if tl.canary[tl.row_offsets[r0]:tl.row_offsets[r1]].any():
            marks = tl.canary_cells(r0, r1, x0_us, pixel_us, width)
            image[:, max(0, pad - 3):max(1, pad - 1), :][np.broadcast_to(marks[:, None, :], (
                rows, max(1, pad - 1) - max(0, pad - 3), width))] = self._canary_color().rgba()
        self._image = image.reshape(rows * lane_px, width)
        qimage = QImage(self._image.data, width, rows * lane_px, width * 4, QImage.Format.Format_ARGB32_Premultiplied)
        p.drawImage(QPointF(x, y), qimage)

    def _selection(self, p: QPainter, sx: float, dx: float, sy: float, dy: float, pad: int) -> None:
        tl = self.tl
        if tl is None or self.selected is None:
            return
        pos = tl.position(self.selected)
        if pos is None:
            return
        xs = sx * self.x_of(tl.start[pos]) + dx
        xe = sx * self.x_of(tl.end[pos]) + dx
        grow = max(0.0, 6 - (xe - xs))
        pen = QPen(QApplication.palette().highlight().color(), 2)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        top, height = self._track_box(np.array([pos]), sy, dy, pad) if self.mode == "vector" else (
            np.array([sy * tl.row[pos] + dy + pad]), np.array([sy - 2 * pad]))
        p.drawRect(QRectF(xs - grow / 2 - 1, float(top[0]) - 2, xe - xs + grow + 2, float(height[0]) + 4))

    def _canary_color(self) -> QColor:
        return QColor(QApplication.palette().text().color())

    # -- pointer ----------------------------------------------------------------------------------

    def hit_at(self, x: float, y: float, tolerance_px: float = 3.0) -> int | None:
        """The run at a point in data coordinates (the most severe within a few pixels)."""
        tl = self.tl
        if tl is None or y < 0:
            return None
        pixel = self.pixelWidth() or 0.0
        row, tolerance, t = math.floor(y), int(max(pixel * tolerance_px, 0) * US), self.t_of(x)
        if self.mode == "vector" and 0 <= row < tl.rows:  # overlapping runs are drawn apart: the one at y
            found = tl.in_view(row, row + 1, t - tolerance, t + tolerance)
            sy = 1.0 / (self.pixelHeight() or 1.0)  # pixels per row
            top, height = self._track_box(found, sy, 0.0, lane_pad(max(1, round(sy))))
            inside = found[(y * sy >= top - 1) & (y * sy <= top + height + 1)]
            if len(inside):
                return tl.hit(row, t, tolerance, among=inside)
        return tl.hit(row, t, tolerance)

    def mouseClickEvent(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton:
            return
        ev.accept()
        pos = ev.pos()
        self.clicked.emit(self.hit_at(pos.x(), pos.y()))

    def hoverEvent(self, ev) -> None:
        if ev.isExit():
            self.setToolTip("")
            return
        pos = ev.pos()
        run = self.hit_at(pos.x(), pos.y())
        self.setToolTip(self.describe(run, self.t_of(pos.x())))
