"""Where the time axes put their labels, and what the labels say, at any span.

A second to decades: the step is the smallest "round" one — seconds, minutes, hours,
days, weeks, calendar months, years — whose labels fit side by side in the pixels the
axis has (measured with the axis's font), so labels thin out instead of overlapping.
Ticks fall on round local times (midnight, the first of a month, New Year). A label
says as much as its step needs (``14:30``, ``Tue 04 Mar``, ``Mar``, ``2026``); the date
is added where the day changes, and the year wherever it changes, and on the first
label, whenever the span in view crosses a year.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable

#: fixed steps in seconds (then months and years by the calendar)
SECOND_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600,
                86400, 2 * 86400, 7 * 86400, 14 * 86400)
MONTH_STEPS = (1, 2, 3, 6)
YEAR_STEPS = (1, 2, 5, 10, 20, 50, 100)
MONTH_S = 30.44 * 86400
YEAR_S = 365.25 * 86400
GAP_PX = 14  # room between two labels


def local(epoch_s: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(epoch_s).astimezone()


def _midnight(day: dt.date) -> float:
    return dt.datetime(day.year, day.month, day.day).astimezone().timestamp()


def _days(lo: float, hi: float, days: int) -> list[float]:
    """Local midnights (Mondays for weeks) every ``days`` days, daylight-saving changes included."""
    day = local(lo).date()
    if days % 7 == 0:
        day -= dt.timedelta(days=day.weekday())
    else:
        day -= dt.timedelta(days=day.toordinal() % days)
    out = []
    while len(out) < 400:
        t = _midnight(day)
        if t > hi:
            break
        if t >= lo:
            out.append(t)
        day += dt.timedelta(days=days)
    return out


def _fixed(lo: float, hi: float, step: int) -> list[float]:
    if step >= 86400:
        return _days(lo, hi, step // 86400)
    offset = local(lo).utcoffset().total_seconds() if step >= 3600 else 0.0
    first = math.ceil((lo + offset) / step) * step - offset
    return [first + k * step for k in range(int((hi - first) // step) + 1)][:400]


def _months(lo: float, hi: float, months: int) -> list[float]:
    start = local(lo)
    index = start.year * 12 + start.month - 1
    index = -(-index // months) * months
    out = []
    while len(out) < 400:
        year, month = divmod(index, 12)
        t = dt.datetime(year, month + 1, 1).astimezone().timestamp()
        if t > hi:
            break
        if t >= lo:
            out.append(t)
        index += months
    return out


def _years(lo: float, hi: float, years: int) -> list[float]:
    first = -(-local(lo).year // years) * years
    out = []
    year = first
    while len(out) < 400 and year <= 9999:
        t = dt.datetime(year, 1, 1).astimezone().timestamp()
        if t > hi:
            break
        if t >= lo:
            out.append(t)
        year += years
    return out


def candidates() -> list[tuple[str, int, float]]:
    """(kind, size, approximate seconds) for every step, finest first."""
    return ([("s", s, float(s)) for s in SECOND_STEPS] + [("month", m, m * MONTH_S) for m in MONTH_STEPS]
            + [("year", y, y * YEAR_S) for y in YEAR_STEPS])


def values(lo: float, hi: float, kind: str, size: int) -> list[float]:
    if kind == "month":
        return _months(lo, hi, size)
    if kind == "year":
        return _years(lo, hi, size)
    return _fixed(lo, hi, size)


def labels(ticks: list[float], kind: str, size: int, crosses_year: bool) -> list[str]:
    out = []
    previous: dt.datetime | None = None
    for t in ticks:
        m = local(t)
        new_day = previous is None or m.date() != previous.date()
        new_year = previous is None or m.year != previous.year
        if kind == "year":
            text = m.strftime("%Y")
        elif kind == "month":
            text = m.strftime("%b %Y") if (crosses_year and new_year) or m.month == 1 else m.strftime("%b")
        elif size >= 86400:
            text = m.strftime("%a %d %b") if size < 7 * 86400 else m.strftime("%d %b")
            if crosses_year and new_year:
                text = m.strftime("%a %d %b %Y") if size < 7 * 86400 else m.strftime("%d %b %Y")
        else:
            clock = m.strftime("%H:%M:%S") if size < 60 else m.strftime("%H:%M")
            if new_day:
                text = m.strftime("%d %b %Y ") + clock if crosses_year and new_year else m.strftime("%d %b ") + clock
            else:
                text = clock
        out.append(text)
        previous = m
    return out


def layout(lo: float, hi: float, size_px: float, width_of: Callable[[str], float]
           ) -> tuple[float, list[float], list[str]]:
    """(spacing in seconds, tick times, labels) for the span ``[lo, hi]`` (epoch seconds) drawn
    in ``size_px`` pixels, labels measured by ``width_of``: the finest step whose labels fit."""
    if hi <= lo or size_px <= 0:
        return 1.0, [], []
    crosses = local(lo).year != local(hi).year
    per_s = size_px / (hi - lo)
    for kind, size, seconds in candidates():
        if seconds * per_s < 24:  # not even a short label fits: coarser
            continue
        ticks = values(lo, hi, kind, size)
        if len(ticks) > 200:
            continue
        texts = labels(ticks, kind, size, crosses)
        widest = max((width_of(t) for t in texts), default=0.0)
        if widest + GAP_PX <= seconds * per_s:
            # a label that would stick out of the axis is not drawn: leave its tick out, so the
            # first label drawn is the one that says the date and year
            inside = [t for t, text in zip(ticks, texts)
                      if width_of(text) / 2 <= (t - lo) * per_s <= size_px - width_of(text) / 2]
            return seconds, inside, labels(inside, kind, size, crosses)
    kind, size, seconds = candidates()[-1]
    ticks = values(lo, hi, kind, size)
    return seconds, ticks, labels(ticks, kind, size, crosses)
