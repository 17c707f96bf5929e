"""The timeline's axes: lane names on the left, local time at the bottom (UTC goes in tooltips)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtGui import QFontMetrics

from memorydesk.ui.lineage import ticks

US = 1_000_000


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


def elide_lane(axis: pg.AxisItem, lane: tuple[str, str], margin: int = 12) -> str:
    """``user / assistant`` fitted to the axis: when it does not fit, each scope is shortened in
    its own middle, so lanes that differ only at the end of a scope (a canary's ``…/user-a`` and
    ``…/user-b``, ``…/assistant-1`` and ``…/assistant-2``) stay told apart."""
    user, assistant = lane
    metrics = QFontMetrics(axis.font())
    room = max(20, int(axis.width()) - margin)
    whole = f"{user} / {assistant}"
    if metrics.horizontalAdvance(whole) <= room:
        return whole
    mid = pg.QtCore.Qt.TextElideMode.ElideMiddle
    half = (room - metrics.horizontalAdvance(" / ")) // 2
    short_user = metrics.elidedText(user, mid, max(half, room - metrics.horizontalAdvance(" / ")
                                                   - metrics.horizontalAdvance(assistant)))
    rest = room - metrics.horizontalAdvance(short_user + " / ")
    return f"{short_user} / {metrics.elidedText(assistant, mid, max(rest, 10))}"


class TimeAxis(pg.AxisItem):
    """x is seconds since ``origin_s``; ticks fall on round local times and thin out to the
    labels that fit (``ticks.layout``): the timeline's and the tier-flow chart's axes are
    both this, so at one x range they show the same ticks."""

    def __init__(self) -> None:
        super().__init__("bottom")
        self.origin_s = 0.0
        self.setStyle(autoExpandTextSpace=True, hideOverlappingLabels=False)
        self._labels: dict[float, str] = {}

    def layout(self, minVal: float, maxVal: float, size: float) -> tuple[float, list[float], list[str]]:
        metrics = QFontMetrics(self.font())
        spacing, times, texts = ticks.layout(self.origin_s + minVal, self.origin_s + maxVal, size,
                                             metrics.horizontalAdvance)
        return spacing, [t - self.origin_s for t in times], texts

    def tickValues(self, minVal: float, maxVal: float, size: float):
        if maxVal <= minVal:
            return []
        spacing, values, texts = self.layout(minVal, maxVal, size)
        self._labels = dict(zip(values, texts))
        return [(float(spacing), values)]

    def tickStrings(self, values, scale, spacing):
        return [self._labels.get(v) or ticks.local(self.origin_s + v).strftime("%d %b %Y %H:%M") for v in values]


class LaneAxis(pg.AxisItem):
    """One label per display row (``lane_of(row)``: its (userScope, assistantScope)), elided to the
    axis width scope by scope (:func:`elide_lane`)."""

    def __init__(self, width: int = 210) -> None:
        super().__init__("left")
        self.lane_of: Callable[[int], tuple[str, str] | None] = lambda row: None
        self.rows = 0
        self.setWidth(width)
        self.setStyle(tickLength=0, autoExpandTextSpace=False, hideOverlappingLabels=False,
                      textFillLimits=[(0, 1.0)])

    def tickValues(self, minVal: float, maxVal: float, size: float):
        lo, hi = sorted((minVal, maxVal))  # an inverted view hands them over high first
        first, last = max(0, math.floor(lo)), min(self.rows, math.ceil(hi))
        return [(1.0, [r + 0.5 for r in range(first, last)])]

    def tickStrings(self, values, scale, spacing):
        return [elide_lane(self, lane) if (lane := self.lane_of(int(v))) else "" for v in values]
