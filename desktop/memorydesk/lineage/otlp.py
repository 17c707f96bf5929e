"""Receipts as OpenTelemetry attributes: the one mapping both directions use (no protobuf here).

Every field of the receipts contract becomes an attribute named ``memory.lineage.`` plus the
field in snake_case (``runId`` → ``memory.lineage.run_id``, ``sourcePresent`` →
``memory.lineage.source_present`` …); times are RFC 3339 strings as in JSON Lines, flags are
booleans, versions strings. ``memory.lineage.line`` carries the line a receipt was first read
from, so a reason names a receipt after a round trip exactly as it did before.

Each run is a trace and each receipt a span of it, zero length at ``atUtc``: spans are what
trace stores index, search by attribute and keep apart (a span event is only searchable
through its span, and would need an invented parent span per run). The trace id is derived
from the ``runId`` and the span id from the receipt's fields, so exporting twice writes the
same ids; reading never trusts either — the run is always ``memory.lineage.run_id``.

Reading: attributes outside ``memory.lineage.`` are not the receipt's (a service name, a
host) and are ignored; a span or log record with no ``memory.lineage.`` attribute is other
telemetry and is skipped; an unknown ``memory.lineage.`` attribute is refused (receipts carry
no content). Without ``memory.lineage.at_utc`` the receipt's time is the span's start (a log
record's time).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from memorydesk.core.errors import BadInput
from memorydesk.core.receipts import _FIELDS, Receipt, format_utc, receipt_from_json

__all__ = ["LINE_ATTRIBUTE", "PREFIX", "ReceiptRecords", "attribute_name", "receipt_attributes",
           "receipt_from_attributes", "span_id", "time_nanos", "trace_id"]

PREFIX: Final = "memory.lineage."
LINE_ATTRIBUTE: Final = PREFIX + "line"
#: ``memory.lineage.run_id`` → ``runId`` (and so on for every contract field)
WIRE_NAMES: Final[dict[str, str]] = {PREFIX + attr: wire for wire, (attr, _kind) in _FIELDS.items()}
_ATTRS: Final[tuple[tuple[str, str, str], ...]] = tuple(
    (PREFIX + attr, attr, kind) for _wire, (attr, kind) in _FIELDS.items())
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)


def attribute_name(wire: str) -> str:
    """``runId`` → ``memory.lineage.run_id``."""
    return PREFIX + _FIELDS[wire][0]


def receipt_attributes(receipt: Receipt) -> list[tuple[str, str | bool | int]]:
    """The receipt's attributes in contract order (unstated fields left out)."""
    out: list[tuple[str, str | bool | int]] = []
    for name, attr, kind in _ATTRS:
        value = getattr(receipt, attr)
        if value is not None:
            out.append((name, format_utc(value) if kind == "time" else value))
    if receipt.line is not None:
        out.append((LINE_ATTRIBUTE, receipt.line))
    return out


def time_nanos(moment: datetime) -> int:
    """Exact nanoseconds since the epoch (receipt times have microseconds at most)."""
    return (moment - _EPOCH) // _MICRO * 1000


def trace_id(run_id: str) -> bytes:
    return hashlib.sha256(b"memory.lineage.run\x00" + run_id.encode("utf-8")).digest()[:16]


def span_id(receipt: Receipt) -> bytes:
    key = "\x00".join(f"{name}={value}" for name, value in receipt_attributes(receipt))
    return hashlib.sha256(key.encode("utf-8")).digest()[:8] or b"\x00" * 7 + b"\x01"


def _nanos_utc(nanos: int) -> str | None:
    if nanos <= 0:
        return None
    return format_utc(_EPOCH + timedelta(microseconds=nanos // 1000))


def receipt_from_attributes(attrs: Iterable[tuple[str, Any]], start_nanos: int = 0) -> Receipt | None:
    """A receipt from ``(key, value)`` pairs, or None when no key is ``memory.lineage.…``.

    ``value`` is already a Python ``str``/``bool``/``int`` (or something else, refused by the
    contract's checks); ``start_nanos`` stands in for a missing ``at_utc``.
    """
    obj: dict[str, Any] = {}
    line = None
    names = WIRE_NAMES
    for key, value in attrs:
        wire = names.get(key)
        if wire is None:
            if not key.startswith(PREFIX):
                continue
            if key == LINE_ATTRIBUTE:
                if type(value) is not int or value < 1:
                    raise BadInput(f"attribute {LINE_ATTRIBUTE!r} must be a positive integer")
                line = value
                continue
            raise BadInput(f"unknown attribute {key!r} (receipts carry no content; the attributes are "
                           f"{PREFIX}<receipt field in snake_case>)")
        if wire in obj:
            raise BadInput(f"attribute {key!r} appears more than once")
        obj[wire] = value
    if not obj and line is None:
        return None
    return receipt_from_fields(obj, line, start_nanos)


def receipt_from_fields(obj: dict[str, Any], line: int | None = None, start_nanos: int = 0) -> Receipt:
    """A receipt from wire fields gathered from attributes (``atUtc`` from ``start_nanos`` if missing)."""
    if "atUtc" not in obj:
        at = _nanos_utc(start_nanos)
        if at is not None:
            obj["atUtc"] = at
    try:
        return receipt_from_json(obj, line=line)
    except BadInput as exc:
        raise BadInput(_attribute_names(str(exc))) from None


def _attribute_names(message: str) -> str:
    """A contract message names wire fields (``'userScope'``); here they are attributes."""
    for name, wire in WIRE_NAMES.items():
        message = message.replace(f"'{wire}'", f"'{name}'").replace(f" {wire}", f" {name}")
    return message


class ReceiptRecords:
    """Collects receipts from records, counting the ones that are not receipts."""

    def __init__(self) -> None:
        self.receipts: list[Receipt] = []
        self.ignored = 0
        self.records = 0

    def add(self, attrs: Iterable[tuple[str, Any]] | Callable[[], Receipt | None], start_nanos: int,
            where: str) -> None:
        """Add the receipt of one record: its attribute pairs, or a function that makes it."""
        self.records += 1
        try:
            receipt = attrs() if callable(attrs) else receipt_from_attributes(attrs, start_nanos)
        except BadInput as exc:
            raise BadInput(f"{where}: {exc}") from None
        if receipt is None:
            self.ignored += 1
        else:
            self.receipts.append(receipt)

    def __iter__(self) -> Iterator[Receipt]:
        return iter(self.receipts)
