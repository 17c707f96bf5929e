"""The timeline's axes: lane names on the left, local time at the bottom (UTC goes in tooltips)."""

from __future__ import annotations

import datetime as dt
import math
import os
from collections import Counter
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import Qt
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


def elide(axis: pg.AxisItem, text: str, margin: int = 12, width: int | None = None) -> str:
    """``text`` shortened in the middle to fit the axis's width (pyqtgraph drops a label that does not);
    ``width``: the width just given it, before a layout has applied it."""
    room = max(20, int(axis.width() if width is None else width) - margin)
    return QFontMetrics(axis.font()).elidedText(text, pg.QtCore.Qt.TextElideMode.ElideMiddle, room)


def elide_lane(axis: pg.AxisItem, lane: tuple[str, str], margin: int = 12,
               mode: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle, width: int | None = None) -> str:
    """``user / assistant`` fitted to the axis: when it does not fit, each scope is shortened on its
    own (in its middle unless ``mode`` says otherwise), so lanes that differ only at the end of a
    scope (a canary's ``…/user-a`` and ``…/user-b``) stay told apart."""
    user, assistant = lane
    metrics = QFontMetrics(axis.font())
    room = max(20, int(axis.width() if width is None else width) - margin)
    whole = f"{user} / {assistant}"
    if metrics.horizontalAdvance(whole) <= room:
        return whole
    half = (room - metrics.horizontalAdvance(" / ")) // 2
    short_user = metrics.elidedText(user, mode, max(half, room - metrics.horizontalAdvance(" / ")
                                                    - metrics.horizontalAdvance(assistant)))
    rest = room - metrics.horizontalAdvance(short_user + " / ")
    return f"{short_user} / {metrics.elidedText(assistant, mode, max(rest, 10))}"


def lane_labels(axis: pg.AxisItem, lanes: list[tuple[str, str]], width: int | None = None
                ) -> dict[tuple[str, str], str]:
    """Every lane's label at the axis's width, each told apart from the others: lanes whose middles
    were cut alike (two canary runs' ``canar…ser-a / canar…ant-1``: their ids are in the middle)
    keep the ends of their scopes instead (``…d003041/user-a``), then their starts."""
    labels = {lane: elide_lane(axis, lane, width=width) for lane in lanes}
    for attempt in ("shared", Qt.TextElideMode.ElideLeft, Qt.TextElideMode.ElideRight):
        seen = Counter(labels.values())
        alike = [lane for lane in lanes if seen[labels[lane]] > 1]
        if not alike:
            break
        if attempt == "shared":  # what the alike lanes all start with goes first (``canary-``), then the middle
            users, assistants = (_shared_start([lane[k] for lane in alike]) for k in (0, 1))
            for lane in alike:
                labels[lane] = elide_lane(axis, (_after(lane[0], users), _after(lane[1], assistants)), width=width)
        else:
            for lane in alike:
                labels[lane] = elide_lane(axis, lane, mode=attempt, width=width)
    return labels


def _shared_start(names: list[str]) -> str:
    """What every one of ``names`` starts with, up to its last separator (``/ : - _ .`` or a space)."""
    prefix = os.path.commonprefix(names) if len(set(names)) > 1 else ""
    return prefix[:max(prefix.rfind(c) for c in "/:-_. ") + 1]


def _after(scope: str, start: str) -> str:
    return "…" + scope[len(start):] if start and len(scope) > len(start) else scope


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
        self._labels: tuple[int, list, dict] = (-1, [], {})  # (width, lanes, lane_labels) last made
        self.setWidth(width)
        self.setStyle(tickLength=0, autoExpandTextSpace=False, hideOverlappingLabels=False,
                      textFillLimits=[(0, 1.0)])

    def tickValues(self, minVal: float, maxVal: float, size: float):
        lo, hi = sorted((minVal, maxVal))  # an inverted view hands them over high first
        first, last = max(0, math.floor(lo)), min(self.rows, math.ceil(hi))
        return [(1.0, [r + 0.5 for r in range(first, last)])]

    def tickStrings(self, values, scale, spacing):
        labels = self.labels()
        return [labels.get(lane, "") if (lane := self.lane_of(int(v))) else "" for v in values]

    def set_lanes(self, lanes: list[tuple[str, str]]) -> None:
        """The lanes of the rows (their labels are told apart among all of them: ``lane_labels``)."""
        self._labels = (-1, lanes, {})

    def widest(self) -> int:
        """How wide the longest lane name is, whole (by its letters: up to 2,000 lanes are looked at)."""
        lanes = self._labels[1][:2000]
        if not lanes:
            return 0
        user, assistant = max(lanes, key=lambda lane: len(lane[0]) + len(lane[1]))
        return QFontMetrics(self.font()).horizontalAdvance(f"{user} / {assistant}")

    def labels(self) -> dict[tuple[str, str], str]:
        width, lanes, made = self._labels
        if width != int(self.width()):
            made = lane_labels(self, lanes)
            self._labels = (int(self.width()), lanes, made)
        return made
