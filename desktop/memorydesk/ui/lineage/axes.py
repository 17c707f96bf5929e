"""The timeline's axes: lane names on the left, local time at the bottom (UTC goes in tooltips)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtGui import QFontMetrics

US = 1_000_000
#: tick spacings in seconds, from a second to a month
STEPS = (1, 5, 15, 30, 60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400,
         30 * 86400)


def local(epoch_s: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(epoch_s).astimezone()


def utc_text(epoch_s: float) -> str:
    return dt.datetime.fromtimestamp(epoch_s, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def local_text(epoch_s: float) -> str:
    return local(epoch_s).strftime("%a %d %b %Y %H:%M:%S %Z")


def when_text(epoch_s: float) -> str:
    """``Tue 04 Mar 2025 14:32:00 CET (2025-03-04T13:32:00Z)``: local time, then UTC."""
    return f"{local_text(epoch_s)} ({utc_text(epoch_s)})"


def elide(axis: pg.AxisItem, text: str, margin: int = 12) -> str:
    """``text`` shortened in the middle to fit the axis's width (pyqtgraph drops a label that does not)."""
    room = max(20, int(axis.width()) - margin)
    return QFontMetrics(axis.font()).elidedText(text, pg.QtCore.Qt.TextElideMode.ElideMiddle, room)


class TimeAxis(pg.AxisItem):
    """x is seconds since ``origin_s``; ticks fall on round local times."""

    def __init__(self) -> None:
        super().__init__("bottom")
        self.origin_s = 0.0
        self.setStyle(autoExpandTextSpace=True)

    def step_for(self, span_s: float, size_px: float) -> int:
        wanted = max(1, size_px / 110)  # about one label per 110 px
        return next((s for s in STEPS if span_s / s <= wanted), STEPS[-1])

    def tickValues(self, minVal: float, maxVal: float, size: float):
        if maxVal <= minVal:
            return []
        step = self.step_for(maxVal - minVal, size)
        start = self.origin_s + minVal
        offset = local(start).utcoffset().total_seconds() if step >= 3600 else 0.0
        first = math.ceil((start + offset) / step) * step - offset
        values = []
        t = first
        while t <= self.origin_s + maxVal and len(values) < 200:
            values.append(t - self.origin_s)
            t += step
        return [(float(step), values)]

    def tickStrings(self, values, scale, spacing):
        out = []
        previous = None
        for value in values:
            moment = local(self.origin_s + value)
            if spacing >= 86400:
                text = moment.strftime("%a %d %b")
            elif spacing >= 60:
                text = moment.strftime("%H:%M") if previous == moment.date() else moment.strftime("%d %b %H:%M")
            else:
                text = moment.strftime("%H:%M:%S")
            previous = moment.date()
            out.append(text)
        return out


class LaneAxis(pg.AxisItem):
    """One label per display row (``name_of(row)``), elided to the axis width."""

    def __init__(self, width: int = 210) -> None:
        super().__init__("left")
        self.name_of: Callable[[int], str] = lambda row: ""
        self.rows = 0
        self.setWidth(width)
        self.setStyle(tickLength=0, autoExpandTextSpace=False, hideOverlappingLabels=False,
                      textFillLimits=[(0, 1.0)])

    def tickValues(self, minVal: float, maxVal: float, size: float):
        lo, hi = sorted((minVal, maxVal))  # an inverted view hands them over high first
        first, last = max(0, math.floor(lo)), min(self.rows, math.ceil(hi))
        return [(1.0, [r + 0.5 for r in range(first, last)])]

    def tickStrings(self, values, scale, spacing):
        return [elide(self, self.name_of(int(v))) for v in values]
