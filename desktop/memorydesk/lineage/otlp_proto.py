"""OTLP messages of receipts, built and read with the OpenTelemetry project's own classes.

Needs the optional ``otlp`` extra (``opentelemetry-proto``); :func:`require` says so in one
sentence when it is missing. Writing: :func:`trace_requests` builds
``ExportTraceServiceRequest`` messages (each run a trace, each receipt a span, see
:mod:`memorydesk.lineage.otlp`); :func:`to_otlp_json` renders one as OTLP/JSON the way the
specification and the Collector's file exporter write it — protobuf's JSON mapping with
lowerCamelCase names and integer enums, but trace and span ids as hex, not base64.
Reading: :func:`receipts_from_traces` / :func:`receipts_from_logs` walk decoded protobuf
requests (an OTLP/HTTP body); OTLP/JSON is walked as JSON by :mod:`memorydesk.lineage.otlp_json`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NoReturn, TextIO

from memorydesk.core.errors import BadInput
from memorydesk.core.receipts import Receipt, gc_paused
from memorydesk.lineage.otlp import (
    CONVENTION_KEYS,
    PREFIX,
    SCHEMA_URL,
    ReceiptRecords,
    operation_of,
    receipt_attributes,
    receipt_from_attributes,
    span_id,
    span_name,
    time_nanos,
    trace_id,
)

SCOPE = "memorydesk.lineage"
SPANS_PER_REQUEST = 500
_SPAN_KIND_INTERNAL = 1
_SPAN_KIND_CLIENT = 3  # the conventions' kind for a memory operation
_STATUS_ERROR = 2
_ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def require() -> None:
    """Raise :class:`BadInput` in one sentence when the ``otlp`` extra is not installed."""
    try:
        import google.protobuf  # noqa: F401
        import opentelemetry.proto  # noqa: F401
    except ImportError:
        raise BadInput("OpenTelemetry needs the optional packages of the 'otlp' extra "
                       "(pip install 'memory-desk[otlp]')") from None


def _value(any_value, value: str | bool | int) -> None:
    if type(value) is bool:
        any_value.bool_value = value
    elif type(value) is int:
        any_value.int_value = value
    else:
        any_value.string_value = value


def trace_requests(receipts: Iterable[Receipt], service: str = "memory-desk",
                   per_request: int = SPANS_PER_REQUEST) -> Iterator[Any]:
    """``ExportTraceServiceRequest`` messages of at most ``per_request`` spans, in input order."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    from memorydesk import __version__

    def fresh():
        request = ExportTraceServiceRequest()
        resource = request.resource_spans.add()
        resource.schema_url = SCHEMA_URL
        attr = resource.resource.attributes.add()
        attr.key, attr.value.string_value = "service.name", service
        scope = resource.scope_spans.add()
        scope.schema_url = SCHEMA_URL
        scope.scope.name, scope.scope.version = SCOPE, __version__
        return request, scope.spans

    request, spans = fresh()
    for receipt in receipts:
        span = spans.add()
        span.trace_id = trace_id(receipt.run_id)
        span.span_id = span_id(receipt)
        span.name = span_name(receipt)
        span.kind = _SPAN_KIND_INTERNAL if operation_of(receipt) is None else _SPAN_KIND_CLIENT
        span.start_time_unix_nano = span.end_time_unix_nano = time_nanos(receipt.at_utc)
        for key, value in receipt_attributes(receipt):
            kv = span.attributes.add()
            kv.key = key
            _value(kv.value, value)
        if receipt.status == "failed":
            span.status.code = _STATUS_ERROR
        if len(spans) >= per_request:
            yield request
            request, spans = fresh()
    if len(spans):
        yield request


def _hex_ids(node: Any) -> None:
    """Trace/span ids from protobuf's JSON mapping (base64) to OTLP/JSON's (hex), in place."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in _ID_FIELDS and isinstance(value, str):
                    item[key] = base64.b64decode(value).hex()
                elif isinstance(value, (dict, list)):
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))


def to_otlp_json(request: Any) -> str:
    """One request as one line of OTLP/JSON (no newline)."""
    from google.protobuf.json_format import MessageToDict

    body = MessageToDict(request, use_integers_for_enums=True)
    _hex_ids(body)
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


_KINDS = {"string_value": "string_value", "bool_value": "bool_value", "int_value": "int_value"}


def _attrs(attributes) -> Iterator[tuple[str, Any]]:
    """(key, value) of the attributes a receipt is read from; one of those is refused for its value's kind."""
    kinds, conventions = _KINDS, CONVENTION_KEYS
    for kv in attributes:
        key = kv.key
        if not (key.startswith(PREFIX) or key in conventions):
            continue
        value = kv.value
        kind = value.WhichOneof("value")
        if kind in kinds:
            yield key, getattr(value, kind)
        else:
            _refuse(key, kind or "empty_value")


def _refuse(key: str, kind: str) -> NoReturn:
    raise BadInput(f"attribute {key!r} holds a {kind.removesuffix('_value')} value; receipts take strings, "
                   "booleans and integers")


def _fast(attributes, start_nanos: int, trace: bytes = b"", span: bytes = b"") -> Callable[[], Receipt | None]:
    """The receipt of one record's attributes (read when the collector asks for it)."""

    def make() -> Receipt | None:
        return receipt_from_attributes(_attrs(attributes), start_nanos, trace.hex() or None, span.hex() or None)

    return make


def receipts_from_traces(request: Any, where: str = "", into: ReceiptRecords | None = None) -> ReceiptRecords:
    """The receipts of an ``ExportTraceServiceRequest`` (spans without receipt attributes skipped)."""
    spans = ((span.attributes, span.start_time_unix_nano, span.trace_id, span.span_id)
             for resource in request.resource_spans for scope in resource.scope_spans for span in scope.spans)
    return _receipts_of(spans, f"{where}span", into)


def receipts_from_logs(request: Any, where: str = "", into: ReceiptRecords | None = None) -> ReceiptRecords:
    """The receipts of an ``ExportLogsServiceRequest`` (records without receipt attributes skipped)."""
    records = ((record.attributes, record.time_unix_nano or record.observed_time_unix_nano, record.trace_id,
                record.span_id)
               for resource in request.resource_logs for scope in resource.scope_logs for record in scope.log_records)
    return _receipts_of(records, f"{where}log record", into)


def _receipts_of(records: Iterable[tuple[Any, int, bytes, bytes]], what: str,
                 into: ReceiptRecords | None) -> ReceiptRecords:
    """Each record's (attributes, time, trace id, span id) read as a receipt, named ``what`` and its
    number from 1."""
    out = into if into is not None else ReceiptRecords()
    for n, (attributes, nanos, trace, span) in enumerate(records, 1):
        out.add(_fast(attributes, nanos, trace, span), 0, f"{what} {n}")
    return out


def write_otlp_json(receipts: Iterable[Receipt], stream: TextIO) -> int:
    """Receipts as OTLP/JSON lines (one trace export request a line) on a text stream; how many."""
    require()
    count = 0
    with gc_paused():
        for request in trace_requests(receipts):
            stream.write(to_otlp_json(request))
            stream.write("\n")
            count += sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)
    return count
