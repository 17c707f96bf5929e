"""MemoryOS's times: naive local wall-clock strings, read in a zone the operator names.

MemoryOS formats ``time.localtime()`` as ``%Y-%m-%d %H:%M:%S`` and stores no offset,
so the zone has to come from outside (``--timezone``). Each string is converted with
that zone's rules *on its own date*, so a directory spanning a daylight-saving change
gets both offsets right. A wall-clock time the zone skips (clocks jumped forward) or
shows twice (clocks went back) cannot be read unambiguously: it is read one fixed way
and the reading says which, so the importer can report it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from memorydesk.core.errors import BadInput
from memorydesk.core.receipts import format_utc

FORMAT = "%Y-%m-%d %H:%M:%S"
#: The years a MemoryOS time may name: ``time.localtime()`` never wrote one before 1970, and a
#: year past 9998 leaves no room for a zone's offset or a waiting window (Python's dates end in 9999).
YEARS = (1970, 9998)

__all__ = ["FORMAT", "Reading", "load_zone", "read_local", "zone_names"]


class UnknownZone(BadInput):
    """``--timezone`` is missing or names no zone of the IANA database."""


@dataclass(frozen=True)
class Reading:
    """A MemoryOS time as read: the text, its UTC instant, and why it was a choice (if it was)."""

    local: str
    utc: datetime
    choice: str | None = None  # set for a wall-clock time the zone skips or repeats


def load_zone(name: str | None) -> ZoneInfo:
    """The zone named by ``--timezone``; one sentence when it is missing or unknown."""
    if name is None or not name.strip():
        raise UnknownZone("--timezone is required: MemoryOS stores local wall-clock times without an offset, "
                          "so name the zone it ran in (an IANA name such as Europe/Berlin or UTC)")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise UnknownZone(f"unknown time zone {name!r}: give an IANA name such as Europe/Berlin, "
                          "America/New_York or UTC") from None


def zone_names() -> list[str]:
    """Every zone the IANA database here knows, sorted (for a chooser)."""
    return sorted(available_timezones())


def _offset(delta: timedelta | None) -> str:
    seconds = int((delta or timedelta(0)).total_seconds())
    sign = "+" if seconds >= 0 else "-"
    hours, rest = divmod(abs(seconds), 3600)
    return f"{sign}{hours:02d}:{rest // 60:02d}"


def _parse(text: object, where: str) -> datetime:
    if not isinstance(text, str):
        raise BadInput(f"{where}: expected a time string like '2025-03-10 19:05:00', got {type(text).__name__}")
    try:
        moment = datetime.strptime(text, FORMAT)
    except ValueError:
        try:  # a caller may hand add_memory() its own timestamp; ISO 8601 is the one other shape we accept
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise BadInput(f"{where}: {text!r} is not a time MemoryOS writes (%Y-%m-%d %H:%M:%S)") from None
    if not YEARS[0] <= moment.year <= YEARS[1]:
        raise BadInput(f"{where}: {text!r} lies outside the years {YEARS[0]}–{YEARS[1]}; MemoryOS writes the time "
                       "of the moment it stores a memory")
    return moment


def read_local(text: object, zone: ZoneInfo, where: str) -> Reading:
    """Read one MemoryOS time string in ``zone``.

    A time the zone shows twice is read as its first occurrence; a time the zone skips
    is read with the offset in effect just before the change. Either way ``choice``
    says so in a sentence. A string that carries its own offset is taken as it is.
    """
    moment = _parse(text, where)
    assert isinstance(text, str)
    if moment.tzinfo is not None:
        return Reading(text, moment.astimezone(UTC))
    first, second = moment.replace(tzinfo=zone, fold=0), moment.replace(tzinfo=zone, fold=1)
    if first.utcoffset() == second.utcoffset():
        return Reading(text, first.astimezone(UTC))
    chosen = first.astimezone(UTC)
    if chosen.astimezone(zone).replace(tzinfo=None) == moment:  # it exists: it happens twice
        choice = (f"{text} happens twice in {zone.key} (the clocks went back); read as the first occurrence "
                  f"({_offset(first.utcoffset())}) = {format_utc(chosen)}, not the second "
                  f"({_offset(second.utcoffset())}) = {format_utc(second.astimezone(UTC))}")
    else:
        choice = (f"{text} does not exist in {zone.key} (the clocks jumped forward); read with the offset "
                  f"before the change ({_offset(first.utcoffset())}) = {format_utc(chosen)}")
    return Reading(text, chosen, choice)
