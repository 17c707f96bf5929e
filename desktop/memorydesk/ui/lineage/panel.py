"""The timeline panel: lanes × time (the one graphics item), lane names, a local-time axis, a
scroll bar over the lanes with "N of M lanes shown — K more below", and the all-lanes
overview strip under it.

Mouse: the wheel scrolls lanes, Ctrl+wheel zooms time at the pointer, Shift+wheel (or a
sideways wheel) and dragging pan time; a click selects the run under the pointer (the
most severe one there); a click on the overview jumps there.
Keyboard (on the timeline): ←/→ pan, +/− zoom around the selected run (else the pointer,
else the middle), ↑/↓ and PgUp/PgDn scroll lanes,
Home shows everything, [ and ] step to the previous/next run of the lane, N and Shift+N
to the next/previous at-risk run.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QCursor, QImage, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QScrollBar, QVBoxLayout, QWidget

from memorydesk.core.health.arrays import SEVERITY
from memorydesk.core.health.scalar import Color
from memorydesk.lineage import raster
from memorydesk.lineage.timeline import Timeline
from memorydesk.ui.lineage import colors
from memorydesk.ui.lineage.axes import LaneAxis, TimeAxis
from memorydesk.ui.lineage.item import US, TimelineItem

AT_RISK_VALUE = SEVERITY[Color.AT_RISK] + 1
TRACK_PX = 5  # the height a sub-track of overlapping runs is given when the lanes leave room


class LaneViewBox(pg.ViewBox):
    scrolled = Signal(float)  # rows (positive: down)

    def __init__(self) -> None:
        super().__init__(enableMenu=False, invertY=True, defaultPadding=0)
        self.setMouseEnabled(x=True, y=False)

    def wheelEvent(self, ev, axis=None) -> None:
        steps = ev.delta() / 120
        mods = ev.modifiers()
        if mods & Qt.KeyboardModifier.ControlModifier:
            center = self.mapToView(ev.pos())
            self.scaleBy(x=0.8 ** steps, center=center)
        elif mods & Qt.KeyboardModifier.ShiftModifier or ev.orientation() == Qt.Orientation.Horizontal:
            self.translateBy(x=-steps * 0.1 * self.viewRect().width())
        else:
            self.scrolled.emit(-steps * 3)
        ev.accept()


class TimelinePlot(pg.PlotWidget):
    """The plot widget, taking the keyboard (the panel decides what the keys do)."""

    def __init__(self, panel: TimelinePanel, **kwargs) -> None:
        super().__init__(**kwargs)
        self.panel = panel
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def keyPressEvent(self, ev: QKeyEvent) -> None:
        if not self.panel.key(ev.key(), ev.modifiers()):
            super().keyPressEvent(ev)


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


class TimelinePanel(QWidget):
    run_clicked = Signal(object)  # table run index or None
    view_changed = Signal()  # the time range in view moved

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.base_px = max(18, self.fontMetrics().height() + 6)
        self.lane_px = float(self.base_px)  # taller when few lanes hold many overlapping runs (``_lane_height``)
        self.top = 0.0
        self.tl: Timeline | None = None
        self.vb = LaneViewBox()
        self.time_axis = TimeAxis()
        self.lane_axis = LaneAxis()
        self.plot = TimelinePlot(self, viewBox=self.vb, axisItems={"bottom": self.time_axis, "left": self.lane_axis},
                                 background=QApplication.palette().base().color())
        self.plot.setObjectName("lineage-timeline")
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.getPlotItem().layout.setContentsMargins(0, 2, 6, 0)
        self.item = TimelineItem()
        self.item.clicked.connect(self.run_clicked)
        self.plot.addItem(self.item)
        self.now_line = pg.InfiniteLine(angle=90, movable=False,
                                        pen=pg.mkPen(QApplication.palette().text().color(), width=1,
                                                     style=Qt.PenStyle.DashLine))
        self.now_line.setToolTip("evaluated at")
        self.plot.addItem(self.now_line)
        self.vb.disableAutoRange()
        self.vb.scrolled.connect(lambda rows: self.scroll_to(self.top + rows))
        self.vb.sigResized.connect(lambda *_a: self._fit_rows())
        self.vb.sigXRangeChanged.connect(lambda *_a: self._x_moved())
        self.scroll = QScrollBar(Qt.Orientation.Vertical)
        self.scroll.setObjectName("lineage-lane-scroll")
        self.scroll.valueChanged.connect(lambda v: self.scroll_to(float(v), from_bar=True))
        self.lanes_label = QLabel("")
        self.lanes_label.setObjectName("lineage-lanes")
        self.overview = OverviewStrip()
        self.overview.moved.connect(self.center_on)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self.plot, 1)
        row.addWidget(self.scroll)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.lanes_label)
        layout.addLayout(row, 1)
        layout.addWidget(self.overview)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.lane_axis.setWidth(int(min(260, max(130, self.width() * 0.2))))

    # -- data -------------------------------------------------------------------------------------

    def set_timeline(self, tl: Timeline, origin_us: int, *, keep_view: bool) -> None:
        first = self.tl is None or not keep_view
        self.tl = tl
        self.item.set_timeline(tl, origin_us)
        self.time_axis.origin_s = origin_us / US
        self.lane_axis.rows = tl.rows
        self.lane_axis.lane_of = lambda r: tl.table.lanes[int(tl.row_lane[r])] if 0 <= r < tl.rows else None
        self.now_line.setValue(self.item.x_of(tl.now_us))
        lo, hi = tl.whole.span()
        span = max((hi - lo) / US, 60.0)
        self.vb.setLimits(xMin=self.item.x_of(lo) - span, xMax=self.item.x_of(hi) + span, minXRange=1.0,
                          maxXRange=3 * span)
        self.set_grid()
        if first:
            self.top = 0.0
            self.fit_all()
        self._fit_rows()
        self.lane_axis.picture = None
        self.lane_axis.update()

    def set_grid(self) -> None:
        tl = self.tl
        if tl is None or not len(tl.overview):
            self.overview.set_data(np.zeros(0, np.uint8), 0.0, 1.0)
            return
        self.overview.set_data(tl.overview, self.item.x_of(tl.t0), tl.bin_us / US)
        self.item.update()

    # -- view -------------------------------------------------------------------------------------

    def visible_rows(self) -> float:
        return max(1.0, self.vb.height() / self.lane_px) if self.vb.height() > 0 else 1.0

    def fit_all(self) -> None:
        tl = self.tl
        if tl is None:
            return
        lo, hi = tl.whole.span()
        if hi <= lo:
            lo, hi = lo - 1800 * US, hi + 1800 * US
        margin = (hi - lo) * 0.02
        self.vb.setXRange(self.item.x_of(lo - margin), self.item.x_of(hi + margin), padding=0)

    def x_range(self) -> tuple[float, float]:
        rect = self.vb.viewRect()
        return rect.left(), rect.right()

    def scroll_to(self, top: float, from_bar: bool = False) -> None:
        rows = self.tl.rows if self.tl else 0
        top = float(min(max(0, round(top)), max(0, rows - math.floor(self.visible_rows()))))
        self.top = top
        if not from_bar:
            self.scroll.blockSignals(True)
            self.scroll.setValue(int(top))
            self.scroll.blockSignals(False)
        self.vb.setYRange(top, top + self.visible_rows(), padding=0)
        self._update_label()

    def _lane_height(self) -> float:
        """A lane's height in pixels: the text's, or — when the lanes leave room — enough for its
        overlapping runs to sit apart on their sub-tracks (``TRACK_PX`` each)."""
        tl = self.tl
        if tl is None or not tl.rows or self.vb.height() <= 0 or not len(tl.row_tracks):
            return float(self.base_px)
        want = int(tl.row_tracks.max()) * TRACK_PX + 8
        return float(max(self.base_px, min(want, self.vb.height() / tl.rows)))

    def _fit_rows(self) -> None:
        self.lane_px = self._lane_height()
        rows = self.tl.rows if self.tl else 0
        page = math.floor(self.visible_rows())
        self.scroll.blockSignals(True)
        self.scroll.setRange(0, max(0, rows - page))
        self.scroll.setPageStep(max(1, page))
        self.scroll.blockSignals(False)
        self.scroll_to(self.top)

    def _update_label(self) -> None:
        rows = self.tl.rows if self.tl else 0
        shown = int(min(max(rows - self.top, 0), math.floor(self.visible_rows())))
        below = int(max(0, rows - self.top - shown))
        above = int(self.top)
        text = f"{shown:,} of {rows:,} lanes shown"
        if below:
            text += f" — {below:,} more below"
        if above:
            text += f" ({above:,} above)"
        self.lanes_label.setText(text)

    def lanes_text(self) -> str:
        return self.lanes_label.text()

    def _x_moved(self) -> None:
        x0, x1 = self.x_range()
        self.overview.set_view(x0, x1)
        self.view_changed.emit()

    def center_on(self, x: float) -> None:
        x0, x1 = self.x_range()
        half = (x1 - x0) / 2
        self.vb.setXRange(x - half, x + half, padding=0)

    def show_run(self, run: int) -> None:
        """Scroll and pan (not zoom) so the run is in view, and select it."""
        tl = self.tl
        if tl is None:
            return
        self.item.selected = run
        pos = tl.position(run)
        if pos is not None:
            row = int(tl.row[pos])
            if not self.top <= row < self.top + math.floor(self.visible_rows()):
                self.scroll_to(row - math.floor(self.visible_rows()) // 2)
            x0, x1 = self.x_range()
            xs, xe = self.item.x_of(tl.start[pos]), self.item.x_of(tl.end[pos])
            if xe < x0 or xs > x1:
                self.center_on((xs + xe) / 2)
        self.item.update()

    # -- keyboard ---------------------------------------------------------------------------------

    def key(self, key: int, mods: Qt.KeyboardModifier) -> bool:
        k = Qt.Key
        x0, x1 = self.x_range()
        width = x1 - x0
        page = math.floor(self.visible_rows())
        if key == k.Key_Left:
            self.vb.translateBy(x=-0.1 * width)
        elif key == k.Key_Right:
            self.vb.translateBy(x=0.1 * width)
        elif key in (k.Key_Plus, k.Key_Equal):
            self.zoom(0.5)
        elif key in (k.Key_Minus, k.Key_Underscore):
            self.zoom(2.0)
        elif key == k.Key_Up:
            self.scroll_to(self.top - 1)
        elif key == k.Key_Down:
            self.scroll_to(self.top + 1)
        elif key == k.Key_PageUp:
            self.scroll_to(self.top - page)
        elif key == k.Key_PageDown:
            self.scroll_to(self.top + page)
        elif key in (k.Key_Home, k.Key_0):
            self.scroll_to(0)
            self.fit_all()
        elif key in (k.Key_BracketLeft, k.Key_BracketRight):
            self.step_in_lane(1 if key == k.Key_BracketRight else -1)
        elif key == k.Key_N:
            self.step_at_risk(-1 if mods & Qt.KeyboardModifier.ShiftModifier else 1)
        else:
            return False
        return True

    def zoom_anchor(self) -> float:
        """Where + and − zoom around: the selected run (its middle, or the part of it in view),
        else the pointer when it is over the timeline, else the middle of the view."""
        x0, x1 = self.x_range()
        tl = self.tl
        pos = tl.position(self.item.selected) if tl is not None and self.item.selected is not None else None
        if pos is not None:
            xs, xe = self.item.x_of(tl.start[pos]), self.item.x_of(tl.end[pos])
            a, b = max(xs, x0), min(xe, x1)
            return (a + b) / 2 if a <= b else (xs + xe) / 2
        here = self.plot.mapFromGlobal(QCursor.pos())
        if self.plot.rect().contains(here) and self.plot.underMouse():
            scene = self.plot.mapToScene(here)
            if self.vb.sceneBoundingRect().contains(scene):
                return float(self.vb.mapSceneToView(scene).x())
        return (x0 + x1) / 2

    def zoom(self, factor: float) -> None:
        """Zoom time by ``factor`` (< 1 in) around :meth:`zoom_anchor`, keeping it in view."""
        x0, x1 = self.x_range()
        anchor = self.zoom_anchor()
        if not x0 <= anchor <= x1:  # the selected run is out of view: zoom into it, not an empty stretch
            half = (x1 - x0) * factor / 2
            self.vb.setXRange(anchor - half, anchor + half, padding=0)
            return
        self.vb.scaleBy(x=factor, center=QPointF(anchor, 0))

    def step_in_lane(self, direction: int) -> None:
        tl = self.tl
        if tl is None or not tl.runs_shown:
            return
        pos = tl.position(self.item.selected) if self.item.selected is not None else None
        if pos is None:
            row = int(self.top)
            x0, _x1 = self.x_range()
            lo, hi = int(tl.row_offsets[row]), int(tl.row_offsets[row + 1])
            t = self.item.t_of(x0)
            pos = lo + int(np.searchsorted(tl.start[lo:hi], t)) if direction > 0 else lo
            pos = min(pos, hi - 1)
        else:
            row = int(tl.row[pos])
            pos = min(max(pos + direction, int(tl.row_offsets[row])), int(tl.row_offsets[row + 1]) - 1)
        self.select_position(pos)

    def step_at_risk(self, direction: int) -> None:
        tl = self.tl
        if tl is None:
            return
        risky = np.flatnonzero(tl.value == AT_RISK_VALUE)
        if not len(risky):
            return
        pos = tl.position(self.item.selected) if self.item.selected is not None else None
        if pos is None:
            target = risky[0] if direction > 0 else risky[-1]
        else:
            i = np.searchsorted(risky, pos, "right" if direction > 0 else "left")
            target = risky[i % len(risky)] if direction > 0 else risky[(i - 1) % len(risky)]
        self.select_position(int(target))

    def select_position(self, pos: int) -> None:
        tl = self.tl
        if tl is None:
            return
        run = int(tl.idx[pos])
        self.show_run(run)
        self.run_clicked.emit(run)

