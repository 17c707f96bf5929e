"""Receipts as OpenTelemetry attributes: the one mapping both directions use (no protobuf here).

A receipt is a zero-length span at its ``atUtc``. Where the GenAI memory conventions say
something, their names are used (:data:`SCHEMA_URL` pins the conventions' version):

- ``gen_ai.operation.name``: ``update_memory`` for a receipt of a memory tier (``stm``, ``mtm``,
  ``lpm``: a record written or moved), ``delete_memory`` for an ``stm`` receipt saying the record
  is gone (``sourcePresent: false``), ``search_memory`` for a ``retrieval``; a ``generation`` is
  no memory operation and has none. ``gen_ai.provider.name`` (required by the conventions on a
  memory operation) is the producer named by ``sourceVersion`` (its first word), else ``unknown``;
  ``error.type`` is ``_OTHER`` on a ``failed`` memory operation.
- ``gen_ai.memory.store.id``: the scope and tier, ``<userScope>/<assistantScope>/<tier>`` with
  ``%`` and ``/`` inside a scope written ``%25`` and ``%2F``;
- ``gen_ai.memory.record.id``: the version.

Every other field becomes ``memory.lineage.`` plus the field in snake_case (``runId`` →
``memory.lineage.run_id``, ``sourcePresent`` → ``memory.lineage.source_present`` …); times are
RFC 3339 strings as in JSON Lines, flags booleans. ``memory.lineage.line`` carries the line a
receipt was first read from. The run is always ``memory.lineage.run_id``, never the trace id.
Files written before the conventions were used (``memory.lineage.tier``, ``.user_scope``,
``.assistant_scope``, ``.version``) read as they always did; where both names are given they
must agree.

Each run is a trace and each receipt a span of it: spans are what trace stores index, search
by attribute and keep apart. The trace id is derived from the ``runId`` and the span id from the
receipt's fields, so exporting twice writes the same ids.

Reading a span or log record:

- with a ``memory.lineage.`` attribute, it is one of ours: an unknown ``memory.lineage.``
  attribute is refused (receipts carry no content); without ``memory.lineage.at_utc`` the time
  is the span's start (a log record's time);
- with only the conventions' names (any memory system traced with an OpenTelemetry
  instrumentation), a receipt is *derived* (:func:`derived_receipt`): ``search_memory`` → a
  ``retrieval`` that is ``started`` (what it returned is content, never read), ``update_memory`` →
  an ``lpm`` commit, ``delete_memory`` → an ``lpm`` receipt that is only ``started``; ``failed``
  when ``error.type`` says so; the run is the trace (``trace:<hex id>``), the scopes are
  :data:`UNSTATED`, the version the record id (else :data:`UNSTATED`). A derived receipt has no
  ``sourceVersion``, so its run is never healthy (rule 6: uncertain);
- anything else is other telemetry and skipped.

Content attributes the conventions allow (``gen_ai.memory.query.text``, ``gen_ai.memory.records``)
and every other attribute are never read, so never stored.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from memorydesk.core.errors import BadInput
from memorydesk.core.receipts import _FIELDS, MEMORY_TIERS, TIERS, Receipt, format_utc, receipt_from_json

__all__ = ["CONVENTION_KEYS", "LINE_ATTRIBUTE", "OPERATION", "PREFIX", "RECORD_ID", "ReceiptRecords", "SCHEMA_URL",
           "STORE_ID", "TYPED_KEYS", "attribute_name", "operation_of", "parse_store_id", "receipt_attributes",
           "receipt_from_attributes", "span_id", "span_name", "store_id", "time_nanos", "trace_id", "typed_value"]

#: the semantic conventions' version the GenAI memory names were written against (their YAML:
#: open-telemetry/semantic-conventions pull request 3250, on schema 1.40.0; development status)
SCHEMA_URL: Final = "https://opentelemetry.io/schemas/1.40.0"
PREFIX: Final = "memory.lineage."
LINE_ATTRIBUTE: Final = PREFIX + "line"
OPERATION: Final = "gen_ai.operation.name"
PROVIDER: Final = "gen_ai.provider.name"
STORE_ID: Final = "gen_ai.memory.store.id"
RECORD_ID: Final = "gen_ai.memory.record.id"
ERROR_TYPE: Final = "error.type"
#: the conventions' names a receipt is read from (content attributes are not among them)
CONVENTION_KEYS: Final = frozenset({OPERATION, PROVIDER, STORE_ID, RECORD_ID, ERROR_TYPE})
MEMORY_OPERATIONS: Final = frozenset({"update_memory", "delete_memory", "search_memory"})
UNSTATED: Final = "(unstated)"
DERIVED: Final = "x-gen_ai.operation.name"  # the extension field naming what a derived receipt came from
#: ``memory.lineage.run_id`` → ``runId`` (and so on for every contract field)
WIRE_NAMES: Final[dict[str, str]] = {PREFIX + attr: wire for wire, (attr, _kind) in _FIELDS.items()}
_KIND: Final[dict[str, str]] = {PREFIX + attr: kind for _wire, (attr, kind) in _FIELDS.items()}
#: attributes whose value is not text (a ClickHouse map holds them as text: :func:`typed_value`)
TYPED_KEYS: Final = frozenset(k for k, kind in _KIND.items() if kind == "bool") | {LINE_ATTRIBUTE}
#: fields the conventions' names carry (not written as ``memory.lineage.`` any more; still read)
_CONVENTION_FIELDS: Final = ("userScope", "assistantScope", "tier", "version")
_ATTRS: Final[tuple[tuple[str, str, str], ...]] = tuple(
    (PREFIX + attr, attr, kind) for wire, (attr, kind) in _FIELDS.items() if wire not in _CONVENTION_FIELDS)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)
_TIERS = frozenset(TIERS)


def attribute_name(wire: str) -> str:
    """``runId`` → ``memory.lineage.run_id``; ``version`` → ``gen_ai.memory.record.id``; a scope or
    the tier → ``gen_ai.memory.store.id``."""
    if wire == "version":
        return RECORD_ID
    if wire in _CONVENTION_FIELDS:
        return STORE_ID
    return PREFIX + _FIELDS[wire][0]


def _escape(scope: str) -> str:
    return scope.replace("%", "%25").replace("/", "%2F")


def _unescape(part: str) -> str:
    if "%" not in part:
        return part
    return part.replace("%2F", "/").replace("%2f", "/").replace("%25", "%")


def store_id(user_scope: str, assistant_scope: str, tier: str) -> str:
    """``gen_ai.memory.store.id`` of a receipt: ``<user>/<assistant>/<tier>`` (``%``, ``/`` escaped)."""
    return f"{_escape(user_scope)}/{_escape(assistant_scope)}/{tier}"


def parse_store_id(value: str) -> tuple[str, str, str] | None:
    """(userScope, assistantScope, tier) of a store id :func:`store_id` wrote, else None."""
    parts = value.split("/")
    if len(parts) != 3 or parts[2] not in _TIERS or not parts[0] or not parts[1]:
        return None
    return _unescape(parts[0]), _unescape(parts[1]), parts[2]


def operation_of(receipt: Receipt) -> str | None:
    """The conventions' operation a receipt reports (None for a generation)."""
    if receipt.tier in MEMORY_TIERS:
        return "delete_memory" if receipt.tier == "stm" and receipt.source_present is False else "update_memory"
    return "search_memory" if receipt.tier == "retrieval" else None


def span_name(receipt: Receipt) -> str:
    """``update_memory <store id>`` as the conventions name a memory operation; a generation
    ``generation <status>``."""
    operation = operation_of(receipt)
    if operation is None:
        return f"{receipt.tier} {receipt.status}"
    return f"{operation} {store_id(receipt.user_scope, receipt.assistant_scope, receipt.tier)}"


def receipt_attributes(receipt: Receipt) -> list[tuple[str, str | bool | int]]:
    """The receipt's attributes: the conventions' names first, then ``memory.lineage.…`` in contract
    order (unstated fields left out)."""
    out: list[tuple[str, str | bool | int]] = []
    operation = operation_of(receipt)
    if operation is not None:
        out.append((OPERATION, operation))
        source = receipt.source_version.split()[0] if receipt.source_version and receipt.source_version.split() \
            else "unknown"
        out.append((PROVIDER, source))
        if receipt.status == "failed":
            out.append((ERROR_TYPE, "_OTHER"))
    out.append((STORE_ID, store_id(receipt.user_scope, receipt.assistant_scope, receipt.tier)))
    out.append((RECORD_ID, receipt.version))
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


def typed_value(key: str, value: str) -> str | bool | int:
    """An attribute stored as text (a ClickHouse ``Map(String, String)``, as the Collector's exporter
    writes every value with ``AsString``) back to the type the mapping gives it."""
    if _KIND.get(key) == "bool" and value in ("true", "false"):
        return value == "true"
    if key == LINE_ATTRIBUTE and value.isdigit() and len(value) <= 19:
        return int(value)
    return value


def receipt_from_attributes(attrs: Iterable[tuple[str, Any]], start_nanos: int = 0,
                            trace: str | None = None, span: str | None = None) -> Receipt | None:
    """A receipt from ``(key, value)`` pairs, or None when the record is not a receipt.

    ``value`` is already a Python ``str``/``bool``/``int`` (or something else, refused by the
    contract's checks); ``start_nanos`` stands in for a missing ``at_utc``; ``trace`` and ``span``
    (hex ids) name a derived receipt's run and receipt.
    """
    obj: dict[str, Any] = {}
    conventions: dict[str, Any] = {}
    line = None
    names = WIRE_NAMES
    for key, value in attrs:
        wire = names.get(key)
        if wire is None:
            if key in CONVENTION_KEYS:
                if key in conventions:
                    raise BadInput(f"attribute {key!r} appears more than once")
                conventions[key] = value
                continue
            if not key.startswith(PREFIX):
                continue
            if key == LINE_ATTRIBUTE:
                if type(value) is not int or value < 1:
                    raise BadInput(f"attribute {LINE_ATTRIBUTE!r} must be a positive integer")
                line = value
                continue
            raise BadInput(f"unknown attribute {key!r} (receipts carry no content; the attributes are "
                           f"{PREFIX}<receipt field in snake_case> and the GenAI memory conventions' names)")
        if wire in obj:
            raise BadInput(f"attribute {key!r} appears more than once")
        obj[wire] = value
    if not obj and line is None:
        return derived_receipt(conventions, start_nanos, trace, span) if conventions else None
    ours = tuple(obj)
    _merge_conventions(obj, conventions)
    return receipt_from_fields(obj, line, start_nanos, ours)


def _merge_conventions(obj: dict[str, Any], conventions: dict[str, Any]) -> None:
    """Scopes, tier and version of one of our receipts from the conventions' names, into ``obj``."""
    found: dict[str, Any] = {}
    store = conventions.get(STORE_ID)
    if store is not None:
        parsed = parse_store_id(store) if type(store) is str else None
        if parsed is None:
            raise BadInput(f"attribute {STORE_ID!r}: {str(store)[:80]!r} is not <userScope>/<assistantScope>/<tier>")
        found["userScope"], found["assistantScope"], found["tier"] = parsed
    if RECORD_ID in conventions:
        found["version"] = conventions[RECORD_ID]
    for wire, value in found.items():
        if wire in obj and str(obj[wire]) != str(value):
            raise BadInput(f"attribute {attribute_name(wire)!r} says {str(value)[:80]!r} but "
                           f"{PREFIX + _FIELDS[wire][0]!r} says {str(obj[wire])[:80]!r}")
        obj[wire] = value


def derived_receipt(conventions: dict[str, Any], start_nanos: int, trace: str | None,
                    span: str | None) -> Receipt | None:
    """A receipt derived from a span that carries only the conventions' names (see the module), or
    None when its operation is not one a receipt reports (a store created or deleted, a chat)."""
    operation = conventions.get(OPERATION)
    if operation not in MEMORY_OPERATIONS:
        return None
    failed = conventions.get(ERROR_TYPE) not in (None, "")
    tier, status = {"search_memory": ("retrieval", "started"), "update_memory": ("lpm", "committed"),
                    "delete_memory": ("lpm", "started")}[operation]
    record = conventions.get(RECORD_ID)
    obj: dict[str, Any] = {
        "runId": f"trace:{trace}" if trace else UNSTATED, "userScope": UNSTATED, "assistantScope": UNSTATED,
        "tier": tier, "status": "failed" if failed else status,
        "version": record if type(record) in (str, int) and record != "" else UNSTATED,
        DERIVED: operation}
    if span:
        obj["receiptId"] = f"span:{span}"
    return receipt_from_fields(obj, None, start_nanos)


def receipt_from_fields(obj: dict[str, Any], line: int | None = None, start_nanos: int = 0,
                        lineage: tuple[str, ...] = ()) -> Receipt:
    """A receipt from wire fields gathered from attributes (``atUtc`` from ``start_nanos`` if missing);
    ``lineage``: the fields ``memory.lineage.`` attributes gave (the messages name those attributes,
    the others by the names the desk writes)."""
    if "atUtc" not in obj:
        at = _nanos_utc(start_nanos)
        if at is not None:
            obj["atUtc"] = at
    try:
        return receipt_from_json(obj, line=line)
    except BadInput as exc:
        raise BadInput(_attribute_names(str(exc), lineage)) from None


def _attribute_names(message: str, lineage: tuple[str, ...]) -> str:
    """A contract message names wire fields (``'userScope'``); here they are attributes."""
    for wire in _FIELDS:
        name = PREFIX + _FIELDS[wire][0] if wire in lineage else attribute_name(wire)
        message = message.replace(f"'{wire}'", f"'{name}'").replace(f" {wire}", f" {name}")
    return re.sub(r"([\w.]+)(, \1)+", r"\1", message)  # the store id names three fields


class ReceiptRecords:
    """Collects receipts from records, counting the ones that are not receipts."""

    def __init__(self) -> None:
        self.receipts: list[Receipt] = []
        self.ignored = 0
        self.records = 0

    def add(self, attrs: Iterable[tuple[str, Any]] | Callable[[], Receipt | None], start_nanos: int,
            where: str, trace: str | None = None, span: str | None = None) -> None:
        """Add the receipt of one record: its attribute pairs, or a function that makes it."""
        self.records += 1
        try:
            receipt = attrs() if callable(attrs) else receipt_from_attributes(attrs, start_nanos, trace, span)
        except BadInput as exc:
            raise BadInput(f"{where}: {exc}") from None
        if receipt is None:
            self.ignored += 1
        else:
            self.receipts.append(receipt)

    def __iter__(self) -> Iterator[Receipt]:
        return iter(self.receipts)
