"""Times a person types for *history*, *as of* and *since*: RFC 3339 UTC or unix seconds on
the command line, the computer's local time in the window.

``parse_moment`` reads either (as ``lineage classify --now`` reads RFC 3339) and returns
whole unix seconds, the product's own resolution. ``check_range`` refuses a range whose
start is after its end. ``read_local`` reads a time typed in the window — local wall-clock
time unless it carries an offset — exactly as typed: a time the clocks skipped (a change to
summer time) is refused, a time they passed twice (back to winter time) is taken the first
time and said so. All raise ``BadInput`` with one sentence naming the input.
"""

from __future__ import annotations

import datetime as dt
import functools

from memorydesk.core.errors import BadInput
from memorydesk.core.receipts import parse_utc

#: unix seconds accepted: 1970 .. 9999 (SQLite and Python both handle these)
LATEST = 253402300799


def parse_moment(text: str, what: str = "time") -> int:
    """``1795000000`` or ``2026-11-18T10:00:00Z`` → unix seconds (fractions dropped)."""
    value = (text or "").strip()
    if not value:
        raise BadInput(f"{what}: no time given (write RFC 3339 UTC, e.g. 2026-11-12T14:00:00Z, or unix seconds)")
    if value.isdigit() and len(value) <= 12:
        seconds = int(value)
        if seconds > LATEST:
            raise BadInput(f"{what}: {value} unix seconds is after the year 9999")
        return seconds
    try:
        moment = parse_utc(value, what)
    except BadInput as exc:
        raise BadInput(str(exc).replace(f"field {what!r}", what, 1)
                       + "; write RFC 3339 UTC (2026-11-12T14:00:00Z) or unix seconds") from None
    return int(moment.timestamp())


def check_range(since: int | None, until: int | None, since_name: str = "--since",
                until_name: str = "--until") -> None:
    if since is not None and until is not None and since > until:
        raise BadInput(f"{since_name} ({utc_text(since)}) is after {until_name} ({utc_text(until)}); "
                       "nothing can fall between them")


_EPOCH_DAY = dt.date(1970, 1, 1).toordinal()
_LAST_SECOND = 253_402_300_800  # 10000-01-01: past it there is no such date (``str(seconds)``)


_TWO = [f"{n:02d}" for n in range(60)]


@functools.lru_cache(maxsize=8192)
def _hour_text(hours: int) -> str:
    days, hour = divmod(hours, 24)
    return f"{dt.date.fromordinal(_EPOCH_DAY + days).isoformat()}T{_TWO[hour]}:"


def utc_text(seconds: int) -> str:
    """``2026-11-12T14:00:00Z``."""
    if type(seconds) is int and 0 <= seconds < _LAST_SECOND:  # the common case, many times a history
        hours, rest = divmod(seconds, 3600)
        return f"{_hour_text(hours)}{_TWO[rest // 60]}:{_TWO[rest % 60]}Z"
    try:
        return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return str(seconds)


def local_text(seconds: int) -> str:
    """``2026-11-12 15:00 CET`` in this computer's time zone."""
    try:
        return dt.datetime.fromtimestamp(seconds).astimezone().strftime("%Y-%m-%d %H:%M %Z")
    except (OverflowError, OSError, ValueError):
        return str(seconds)


def read_local(text: str) -> tuple[dt.datetime, str]:
    """A typed time (``2026-11-13 21:40:00``, ``… 21:40``, a date alone for midnight, ``T`` for the
    space, fractions, an offset or ``Z``) as an aware UTC moment, and a note ("" or a sentence:
    the wall-clock time happens twice here). Local time is this computer's time zone, with
    its offset on that day (summer time included)."""
    value = (text or "").strip()
    if not value:
        raise BadInput("type a time like 2026-11-13 21:40:00")
    shown = value[:40]
    if value.endswith(("z", "Z")):
        value = value[:-1] + "+00:00"
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise BadInput(f"{shown!r} is not a time like 2026-11-13 21:40:00") from None
    if moment.tzinfo is not None:
        return moment.astimezone(dt.UTC), ""
    first, second = (moment.replace(fold=f).timestamp() for f in (0, 1))
    back = [dt.datetime.fromtimestamp(t).replace(tzinfo=None, fold=0) == moment.replace(fold=0)
            for t in (first, second)]
    if not any(back):
        raise BadInput(f"{moment:%Y-%m-%d %H:%M:%S} does not exist in this computer's time zone (the clocks "
                       "skipped it); type another time, or add an offset such as +01:00")
    note = ""
    if all(back) and first != second:
        earlier = dt.datetime.fromtimestamp(min(first, second)).astimezone()
        note = (f"{moment:%Y-%m-%d %H:%M:%S} happens twice here (the clocks went back); taken the first time, "
                f"UTC{earlier:%z}; add an offset for the other")
    seconds = first if back[0] else second
    return dt.datetime.fromtimestamp(seconds, dt.UTC).replace(microsecond=moment.microsecond), note
