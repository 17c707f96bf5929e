"""Receipts out of OTLP/JSON export requests, read as JSON (stdlib only).

OTLP/JSON (the OTLP specification's JSON encoding, what the Collector's file exporter and
``otlphttp`` with ``encoding: json`` write) is protobuf's JSON mapping: lowerCamelCase keys,
64-bit integers as decimal strings or numbers, ids in hex. Only the parts that hold receipts
are read — ``resourceSpans[].scopeSpans[].spans[]`` (attributes, ``startTimeUnixNano``) and
``resourceLogs[].scopeLogs[].logRecords[]`` (attributes, ``timeUnixNano``) — and unknown
fields are ignored, as the specification asks of receivers. Walking the decoded JSON is
about a hundred times faster than protobuf's generic ``json_format`` parser.
"""

from __future__ import annotations

from typing import Any

from memorydesk.core.errors import BadInput
from memorydesk.lineage.otlp import CONVENTION_KEYS, PREFIX, ReceiptRecords

_PATHS = {"traces": ("resourceSpans", "scopeSpans", "spans", "startTimeUnixNano", "span"),
          "logs": ("resourceLogs", "scopeLogs", "logRecords", "timeUnixNano", "log record")}
_VALUE_KINDS = ("stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue")


def kind_of(obj: Any) -> str | None:
    """``traces`` or ``logs`` when ``obj`` is an OTLP/JSON export request, else None."""
    if isinstance(obj, dict):
        if "resourceSpans" in obj:
            return "traces"
        if "resourceLogs" in obj:
            return "logs"
    return None


def _list(node: dict, key: str, where: str) -> list:
    value = node.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadInput(f"{where}{key} must be a list")
    return value


def _nanos(value: Any, where: str) -> int:
    if value is None:
        return 0
    if type(value) is int:
        return value
    if type(value) is str and value.isdigit() and len(value) <= 20:
        return int(value)
    raise BadInput(f"{where}: a time in nanoseconds must be a decimal integer, got {str(value)[:30]!r}")


def _pairs(attributes: Any, where: str) -> list[tuple[str, Any]]:
    if not isinstance(attributes, list):
        raise BadInput(f"{where}: attributes must be a list")
    out = []
    for kv in attributes:
        if not isinstance(kv, dict) or type(kv.get("key")) is not str:
            raise BadInput(f"{where}: an attribute is not a {{key, value}} object")
        key = kv["key"]
        if not (key.startswith(PREFIX) or key in CONVENTION_KEYS):
            continue
        value = kv.get("value")
        if not isinstance(value, dict):
            raise BadInput(f"{where}: attribute {key!r} has no value object")
        out.append((key, _value(key, value, where)))
    return out


def _value(key: str, value: dict, where: str) -> Any:
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value:
        return value["boolValue"]
    if "intValue" in value:
        raw = value["intValue"]
        if type(raw) is str and raw.lstrip("-").isdigit() and len(raw) <= 20:
            return int(raw)
        if type(raw) is int:
            return raw
        raise BadInput(f"{where}: attribute {key!r}: intValue must be a decimal integer")
    kind = next((k for k in _VALUE_KINDS if k in value), "empty")
    raise BadInput(f"{where}: attribute {key!r} holds a {kind.removesuffix('Value')} value; receipts take "
                   "strings, booleans and integers")


def receipts_from_json(obj: dict, records: ReceiptRecords, where: str = "") -> None:
    """Add the receipts of one decoded OTLP/JSON request to ``records``; malformed → :class:`BadInput`."""
    kind = kind_of(obj)
    if kind is None:
        raise BadInput("not an OTLP export request (no resourceSpans or resourceLogs)")
    top, middle, leaf, time_key, noun = _PATHS[kind]
    n = 0
    for resource in _list(obj, top, where):
        if not isinstance(resource, dict):
            raise BadInput(f"{where}{top} holds a non-object")
        for scope in _list(resource, middle, where):
            if not isinstance(scope, dict):
                raise BadInput(f"{where}{middle} holds a non-object")
            for record in _list(scope, leaf, where):
                n += 1
                here = f"{where}{noun} {n}"
                if not isinstance(record, dict):
                    raise BadInput(f"{here} is not an object")
                start = _nanos(record.get(time_key), here)
                if not start and kind == "logs":
                    start = _nanos(record.get("observedTimeUnixNano"), here)
                trace, span = record.get("traceId"), record.get("spanId")
                records.add(_pairs(record.get("attributes", []), here), start, here,
                            trace if type(trace) is str and trace else None,
                            span if type(span) is str and span else None)
