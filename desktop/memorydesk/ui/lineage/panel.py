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
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QCursor, QKeyEvent
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QScrollBar, QVBoxLayout, QWidget

from memorydesk.core.health.table import SEVERITY, Color
from memorydesk.lineage.timeline import Timeline
from memorydesk.ui.lineage.axes import LaneAxis, TimeAxis
from memorydesk.ui.lineage.item import US, TimelineItem
from memorydesk.ui.lineage.overview import OverviewStrip

AT_RISK_VALUE = SEVERITY[Color.AT_RISK] + 1


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
        self.placed: float | None = None  # where the tab last put the line (``place_line``)
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
        self._fit_lane_names()

    def _fit_lane_names(self) -> None:
        """The lane names' column: as wide as the longest name, between a fifth of the panel (at least
        130 px) and three tenths of it (at most 300 px); beyond that a name is shortened."""
        least = max(130.0, self.width() * 0.2)
        most = max(least, min(300.0, self.width() * 0.3))
        need = self.lane_axis.widest() + 16
        self.lane_axis.setWidth(int(min(most, max(least, need))))

    # -- data -------------------------------------------------------------------------------------

    def set_timeline(self, tl: Timeline, origin_us: int, *, keep_view: bool) -> None:
        first = self.tl is None or not keep_view
        # a view that reached the end of the runs shown keeps reaching it when newer runs arrive (following
        # the clock, a live lane is not left out of view)
        at_end = not first and self._shows_end()
        self.tl = tl
        self.item.set_timeline(tl, origin_us)
        self.time_axis.origin_s = origin_us / US
        self.lane_axis.rows = tl.rows
        self.lane_axis.lane_of = lambda r: tl.table.lanes[int(tl.row_lane[r])] if 0 <= r < tl.rows else None
        self.lane_axis.set_lanes([tl.table.lanes[int(tl.row_lane[r])] for r in range(tl.rows)])
        self._fit_lane_names()
        self.place_line(tl.now_us)  # at the time judged, maybe seconds behind the clock: not a drag
        lo, hi = tl.whole.span()
        span = max((hi - lo) / US, 60.0)
        self.vb.setLimits(xMin=self.item.x_of(lo) - span, xMax=self.item.x_of(hi) + span, minXRange=1.0,
                          maxXRange=3 * span)
        self.set_grid()
        if first:
            self.top = 0.0
            self.fit_all()
        elif at_end:
            self.keep_end()
        self._fit_rows()
        self.lane_axis.picture = None
        self.lane_axis.update()

    def place_line(self, t_us: int) -> None:
        """The evaluated-time line put at ``t_us`` by the tab (``placed``: a move to anywhere else is a drag)."""
        self.now_line.setValue(self.item.x_of(t_us))
        self.placed = self.now_line.value()

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

    def shown_span(self) -> tuple[int, int]:
        """From the first receipt to the last of the runs shown (every run when none is shown)."""
        tl = self.tl
        if tl is None:
            return 0, 0
        if tl.runs_shown:
            return int(tl.start.min()), int(tl.end.max())
        return tl.whole.span()

    def fit_all(self) -> None:
        """Every run shown in view (Home): the span of the runs the filters leave, not of every lane."""
        if self.tl is None:
            return
        lo, hi = self.shown_span()
        if hi <= lo:
            lo, hi = lo - 1800 * US, hi + 1800 * US
        margin = (hi - lo) * 0.02
        self.vb.setXRange(self.item.x_of(lo - margin), self.item.x_of(hi + margin), padding=0)

    def _shows_end(self) -> bool:
        """The view reaches the last receipt of the runs shown."""
        _x0, x1 = self.x_range()
        return self.tl is not None and x1 >= self.item.x_of(self.shown_span()[1])

    def keep_end(self) -> None:
        """Widen the view to the right so the last receipt shown is in it again (the left edge stays)."""
        x0, x1 = self.x_range()
        end = self.item.x_of(self.shown_span()[1])
        if end > x1:
            self.vb.setXRange(x0, end + (end - x0) * 0.02, padding=0)

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
        overlapping runs to sit apart on sub-tracks each as tall as a lone lane (a single lane with
        six overlapping runs fills the room it has, not 38 pixels of it)."""
        tl = self.tl
        if tl is None or not tl.rows or self.vb.height() <= 0 or not len(tl.row_tracks):
            return float(self.base_px)
        tracks = int(tl.row_tracks.max())
        want = tracks * self.base_px + 8 if tracks > 1 else self.base_px
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
        """Zoom time by ``factor`` (< 1 in) around :meth:`zoom_anchor`, keeping it in view. A selected
        run stays where it is when it still fits; one the zoom would cut at an edge is moved just
        enough to be whole in view (or, longer than the view, shown from its start)."""
        x0, x1 = self.x_range()
        anchor = self.zoom_anchor()
        if not x0 <= anchor <= x1:  # the selected run is out of view: zoom into it, not an empty stretch
            half = (x1 - x0) * factor / 2
            self.vb.setXRange(anchor - half, anchor + half, padding=0)
        else:
            self.vb.scaleBy(x=factor, center=QPointF(anchor, 0))
        tl = self.tl
        pos = tl.position(self.item.selected) if tl is not None and self.item.selected is not None else None
        if pos is None:
            return
        a, b = self.x_range()
        xs, xe = self.item.x_of(tl.start[pos]), self.item.x_of(tl.end[pos])
        room = (b - a) * 0.02
        if xe - xs > (b - a) - 2 * room:  # longer than the view: from its start
            self.vb.setXRange(xs - room, xs - room + (b - a), padding=0)
        elif xs < a + room:
            self.vb.setXRange(xs - room, xs - room + (b - a), padding=0)
        elif xe > b - room:
            self.vb.setXRange(xe + room - (b - a), xe + room, padding=0)

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

