"""Tier flow, for operators: transitions per hour at each tier boundary over the time in
view (all in grey, the at-risk runs' share in red), one band per boundary, and where the
top lanes' memories are at the evaluated time (STM, MTM, LPM, or lost: the source left
STM with no target).

Some receipts date a move by an upper bound, not by when it happened (``import memoryos``
without the short-term capacity, and every promotion it infers: see ``Timeline.bounded``).
The chart hatches those transitions and says how many there are; the occupancy hatches the
memories that may already have moved on, and says how many — a bound is never shown as an
instant without saying so."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QApplication, QLabel, QStackedWidget, QVBoxLayout, QWidget

from memorydesk.core.health.table import Color
from memorydesk.lineage.runs import BOUNDARIES, PLACES
from memorydesk.ui.lineage import colors
from memorydesk.ui.lineage.axes import TimeAxis, elide, lane_labels

PLACE_COLORS = ("#9cc3e6", "#4a86c5", "#1f4e79", colors.HEX[Color.AT_RISK])
BAND = 0.85  # of a band's height, for its busiest bin
LEFT_MIN = 90  # the charts' label column, at the least
NO_TRANSITIONS = "No tier transitions in the time shown: nothing to draw."
NO_OCCUPANCY = "No memory in any tier at the evaluated time: nothing to draw."


def _with_note(plot: QWidget, name: str, text: str) -> tuple[QStackedWidget, QLabel]:
    """A chart and, in its place when it has nothing to draw, a sentence saying so (not an
    empty axis from 1970 or a bare 0–1 scale)."""
    note = QLabel(text)
    note.setObjectName(name)
    note.setAlignment(Qt.AlignmentFlag.AlignCenter)
    note.setWordWrap(True)
    note.setEnabled(False)  # drawn in the palette's quiet colour
    stack = QStackedWidget()
    stack.addWidget(plot)
    stack.addWidget(note)
    stack.setCurrentWidget(note)  # nothing to draw until data comes
    return stack, note


def _plot(widget: pg.PlotWidget, left_width: int) -> pg.PlotItem:
    widget.setMenuEnabled(False)
    widget.setMouseEnabled(x=False, y=False)
    widget.hideButtons()
    axis = widget.getAxis("left")
    axis.setWidth(left_width)
    axis.setStyle(tickLength=0, textFillLimits=[(0, 1.0)], hideOverlappingLabels=False)
    return widget.getPlotItem()


def _parts(name: str) -> tuple[str, str]:
    """A lane's name (``Timeline.lane_name``) back into its two scopes."""
    user, _sep, assistant = name.partition(" / ")
    return user, assistant


class FlowPanel(QWidget):
    resized = Signal()
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        pal = QApplication.palette()
        base, text = pal.base().color(), pal.text().color()
        self.caption = QLabel("<b>Transitions per hour</b> — at-risk share in red")
        self.caption.setObjectName("lineage-flow-caption")
        self.caption.setWordWrap(True)
        self.time_axis = TimeAxis()
        self.rates = pg.PlotWidget(background=base, axisItems={"bottom": self.time_axis})
        self.rates.setObjectName("lineage-flow")
        _plot(self.rates, 120)
        grey = QColor(text)
        grey.setAlpha(80)
        red = colors.qcolor(Color.AT_RISK)
        self.curves: list[tuple[pg.PlotDataItem, pg.PlotDataItem]] = []
        self.bound_curves: list[pg.PlotDataItem] = []
        hatch = QBrush(text, Qt.BrushStyle.BDiagPattern)
        for k in range(len(BOUNDARIES)):
            base_y = len(BOUNDARIES) - 1 - k
            total = self.rates.plot([], [], stepMode="center", fillLevel=base_y, pen=pg.mkPen(grey), brush=grey)
            risky = self.rates.plot([], [], stepMode="center", fillLevel=base_y, pen=pg.mkPen(red), brush=red)
            bound = self.rates.plot([], [], stepMode="center", fillLevel=base_y, pen=pg.mkPen(None), brush=hatch)
            self.curves.append((total, risky))
            self.bound_curves.append(bound)
        self.bound_note = QLabel("")
        self.bound_note.setObjectName("lineage-flow-bounds")
        self.bound_note.setWordWrap(True)
        self.bound_note.setVisible(False)
        self.rates.setYRange(0, len(BOUNDARIES), padding=0)
        self.occupancy_caption = QLabel("<b>Tier occupancy</b> at the evaluated time, top lanes")
        self.occupancy_caption.setWordWrap(True)
        self.occupancy = pg.PlotWidget(background=base)
        self.occupancy.setObjectName("lineage-occupancy")
        _plot(self.occupancy, 120)
        self.bars: list[pg.BarGraphItem] = []
        legend = " ".join(f'<span style="color:{c}">■</span> {p}' for p, c in zip(PLACES, PLACE_COLORS))
        self.occupancy_legend = QLabel(legend)
        self.occupancy_legend.setWordWrap(True)
        self.occupancy_legend.setToolTip("lost: the short-term source is gone and no MTM or LPM commit is recorded")
        self.occupancy_bounds = QLabel("")
        self.occupancy_bounds.setObjectName("lineage-occupancy-bounds")
        self.occupancy_bounds.setWordWrap(True)
        self.occupancy_bounds.setVisible(False)
        self.hatch = hatch
        self.setMinimumWidth(240)
        self.rates_stack, self.rates_note = _with_note(self.rates, "lineage-flow-empty", NO_TRANSITIONS)
        self.occupancy_stack, self.occupancy_note = _with_note(self.occupancy, "lineage-occupancy-empty",
                                                               NO_OCCUPANCY)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addWidget(self.bound_note)
        layout.addWidget(self.rates_stack, 3)
        layout.addWidget(self.occupancy_caption)
        layout.addWidget(self.occupancy_legend)
        layout.addWidget(self.occupancy_bounds)
        layout.addWidget(self.occupancy_stack, 2)
        self.last_rates: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.last_bounded: np.ndarray | None = None
        self.last_occupancy: tuple[list[str], np.ndarray] | None = None
        self.last_maybe: np.ndarray | None = None
        self._ticks: dict[pg.AxisItem, list[tuple[float, str]]] = {}  # each chart's labels, whole

    def set_transitions(self, edges_x: np.ndarray, total: np.ndarray, at_risk: np.ndarray, hours: int,
                        x_range: tuple[float, float], origin_s: float, bounded: np.ndarray | None = None) -> None:
        """Rates per hour (``total``/``at_risk``/``bounded``: one row per boundary) over bins with
        ``edges_x``; ``bounded``: the transitions dated by an upper bound (hatched, and said)."""
        self.last_rates = (edges_x, total, at_risk)
        bounded = np.zeros_like(total) if bounded is None else bounded
        self.last_bounded = bounded
        drawn = total.size > 0 and float(total.sum()) > 0
        self.rates_stack.setCurrentWidget(self.rates if drawn else self.rates_note)
        self.time_axis.origin_s = origin_s
        per = "hour" if hours == 1 else f"hour, in bins of {hours} h"
        self.caption.setText(f"<b>Transitions per {per}</b> — at-risk share in red")
        ticks = []
        for k, (curve, risky) in enumerate(self.curves):
            base_y = len(BOUNDARIES) - 1 - k
            top = float(total[k].max()) if total.shape[1] else 0.0
            scale = BAND / top if top > 0 else 0.0
            curve.setData(edges_x, base_y + total[k] * scale)
            risky.setData(edges_x, base_y + at_risk[k] * scale)
            self.bound_curves[k].setData(edges_x, base_y + bounded[k] * scale)
            ticks.append((base_y + 0.45, f"{BOUNDARIES[k]} {top:.2g}/h"))
        moved, dated = round(float(total.sum()) * hours), round(float(bounded.sum()) * hours)
        self.bound_note.setText(
            f"▨ {dated:,} of the {moved:,} transitions in view are dated by an upper bound, not by when they "
            "happened (a MemoryOS import: promotions always, moves without the short-term capacity): each "
            "happened at or before where it is drawn." if dated else "")
        self.bound_note.setVisible(bool(dated))
        axis = self.rates.getAxis("left")
        self._ticks[axis] = ticks
        self._label(axis)
        self.rates.setXRange(*x_range, padding=0)

    def _label(self, axis: pg.AxisItem) -> None:
        """A chart's label column as wide as its longest label (``STM→MTM 0.077/h`` whole), up to two
        fifths of the panel; beyond that a label is shortened (in its middle; lanes told apart)."""
        ticks = self._ticks.get(axis, [])
        metrics = QFontMetrics(axis.font())
        need = max((metrics.horizontalAdvance(text) for _y, text in ticks), default=0) + 16
        width = int(max(LEFT_MIN, min(need, self.width() * 0.4)))
        axis.setWidth(width)
        if axis is self.occupancy.getAxis("left"):
            labels = lane_labels(axis, [_parts(text) for _y, text in ticks], width=width)
            axis.setTicks([[(y, labels[_parts(text)]) for y, text in ticks]])
        else:
            axis.setTicks([[(y, elide(axis, text, width=width)) for y, text in ticks]])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        for axis in self._ticks:  # the labels fitted to the panel's new width
            self._label(axis)
        self.resized.emit()  # the occupancy chart may have room for another number of lanes

    def occupancy_rows(self) -> int:
        """How many lanes the occupancy chart has room for (a readable bar each)."""
        # the stack's height: the chart itself has none of its own while the note stands in for it
        return int(min(12, max(3, (self.occupancy_stack.height() - 30) // 18)))

    def set_occupancy(self, names: list[str], counts: np.ndarray, maybe: np.ndarray | None = None) -> None:
        """Stacked bars, one per lane (the first on top): memories per place; ``maybe``: of those,
        how many may have moved on already (their next move is dated by an upper bound): hatched."""
        self.last_occupancy = (names, counts)
        maybe = np.zeros_like(counts) if maybe is None else maybe
        self.last_maybe = maybe
        unsure = int(np.asarray(maybe).sum())
        parts = [f"{int(maybe[:, k].sum()):,} in {place} may already be in {PLACES[k + 1]}"
                 for k, place in enumerate(PLACES[:2]) if len(maybe) and maybe[:, k].sum()]
        self.occupancy_bounds.setText(f"▨ {'; '.join(parts)}: their moves are dated by upper bounds." if unsure
                                      else "")
        self.occupancy_bounds.setVisible(bool(unsure))
        plot = self.occupancy.getPlotItem()
        for bar in self.bars:
            plot.removeItem(bar)
        self.bars = []
        n = len(names)
        drawn = n > 0 and float(np.asarray(counts).sum()) > 0
        self.occupancy_stack.setCurrentWidget(self.occupancy if drawn else self.occupancy_note)
        if not drawn:
            return
        y = n - 1 - np.arange(n, dtype=float)
        left = np.zeros(n)
        for k, color in enumerate(PLACE_COLORS):
            width = counts[:, k].astype(float)
            bar = pg.BarGraphItem(x0=left.copy(), y=y, width=width, height=0.7, brush=color, pen=pg.mkPen(None))
            plot.addItem(bar)
            self.bars.append(bar)
            unsure = maybe[:, k].astype(float)
            if unsure.any():  # the part that may have moved on: at the right end of the place's bar
                hatched = pg.BarGraphItem(x0=left + width - unsure, y=y, width=unsure, height=0.7, brush=self.hatch,
                                          pen=pg.mkPen(None))
                plot.addItem(hatched)
                self.bars.append(hatched)
            left += width
        axis = self.occupancy.getAxis("left")
        self._ticks[axis] = [(float(n - 1 - i), name) for i, name in enumerate(names)]
        self._label(axis)
        plot.setYRange(-0.6, n - 0.4, padding=0)
        plot.setXRange(0, max(1.0, float(left.max())) * 1.05, padding=0)
