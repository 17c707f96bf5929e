"""Where the MemoryOS adapter writes its receipts: a JSON Lines file, or OpenTelemetry.

:class:`JsonlSink` is stdlib only. Every receipt is one line appended to the file, and the
file is flushed and fsynced before the boundary's call returns (``sync_every=1``, the
default), so a process killed right after a boundary still leaves that boundary's receipt.
``sync_every=N`` fsyncs once every N receipts instead (at most N-1 are lost to a crash of
the machine — not of the process: every line is written to the file at once). The desk
ingests the file (``memory-desk lineage ingest``) or reads it whole any time.

:class:`OtelSink` sends each receipt as an OpenTelemetry span (``memory.lineage.*``
attributes, the span's time the receipt's) through the SDK's OTLP/HTTP exporter — to a
Collector, or straight to ``memory-desk lineage serve``. It needs the ``otlp`` extra, and
imports it only when made.
"""

from __future__ import annotations

import os
import random
import threading
from typing import Any, Protocol

from memorydesk.core.receipts import Receipt
from memorydesk.lineage.jsonl import receipt_to_line

__all__ = ["JsonlSink", "OtelSink", "Sink"]


class Sink(Protocol):
    def write(self, receipt: Receipt) -> None: ...

    def close(self) -> None: ...


class JsonlSink:
    """Receipts appended to a JSON Lines file, fsynced every ``sync_every`` receipts."""

    def __init__(self, path: str | os.PathLike[str], sync_every: int = 1) -> None:
        if sync_every < 1:
            raise ValueError("sync_every must be at least 1")
        self.path = os.fspath(path)
        self.sync_every = sync_every
        self._lock = threading.Lock()
        self._unsynced = 0
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def write(self, receipt: Receipt) -> None:
        data = (receipt_to_line(receipt) + "\n").encode("utf-8")
        with self._lock:
            os.write(self._fd, data)  # one write of one line: O_APPEND keeps lines whole
            self._unsynced += 1
            if self._unsynced >= self.sync_every:
                os.fsync(self._fd)
                self._unsynced = 0

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.fsync(self._fd)
                os.close(self._fd)
                self._fd = -1


class OtelSink:
    """Receipts as OpenTelemetry spans over OTLP/HTTP (``endpoint``: ``http://host:4318/v1/traces``).

    Each run is one trace and each receipt one span of it, their ids derived as ``lineage export``
    derives them (:func:`memorydesk.lineage.otlp.trace_id`, :func:`~memorydesk.lineage.otlp.span_id`),
    so a trace store finds a run by the id its runId gives (the ClickHouse exporter's trace-id table);
    a span active where the receipt is written (the boundary's own trace) is linked, not joined.
    ``batch=False`` (default) exports each receipt before the boundary's call returns; with
    ``batch=True`` the SDK's ``BatchSpanProcessor`` sends them in the background (bounded by its
    queue; :meth:`close` flushes). ``exporter`` replaces the OTLP/HTTP exporter (any SDK
    ``SpanExporter``).
    """

    def __init__(self, endpoint: str | None = None, *, batch: bool = False, exporter: Any = None,
                 service_name: str = "memoryos") -> None:
        try:
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
        except ImportError:
            raise RuntimeError("OtelSink needs the 'otlp' extra (pip install 'memory-desk[otlp]')") from None
        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter(endpoint=endpoint)
        self._ids = _ReceiptIds()
        self._provider = TracerProvider(resource=Resource.create({"service.name": service_name}),
                                        id_generator=self._ids)
        processor = BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter)
        self._provider.add_span_processor(processor)
        from memorydesk.lineage.otlp import SCHEMA_URL

        self._tracer = self._provider.get_tracer("memorydesk.lineage.adapters", schema_url=SCHEMA_URL)

    def write(self, receipt: Receipt) -> None:
        from opentelemetry.context import Context
        from opentelemetry.trace import Link, SpanKind, get_current_span

        from memorydesk.lineage.otlp import operation_of, receipt_attributes, span_name, time_nanos

        at = time_nanos(receipt.at_utc)
        kind = SpanKind.INTERNAL if operation_of(receipt) is None else SpanKind.CLIENT
        caller = get_current_span().get_span_context()  # the boundary's own trace, linked, not joined
        self._ids.pending.receipt = receipt
        try:
            span = self._tracer.start_span(span_name(receipt), context=Context(), kind=kind, start_time=at,
                                           attributes=dict(receipt_attributes(receipt)),
                                           links=[Link(caller)] if caller.is_valid else None)
        finally:
            self._ids.pending.receipt = None
        span.end(end_time=at)

    def close(self) -> None:
        self._provider.force_flush()
        self._provider.shutdown()


class _ReceiptIds:
    """The SDK's id generator for :class:`OtelSink`: the trace and span ids of the receipt being
    written (``pending``, per thread), derived from it; random ones for any other span."""

    def __init__(self) -> None:
        self.pending = threading.local()

    def is_trace_id_random(self) -> bool:  # W3C's random flag: a derived id is not random
        return False

    def _receipt(self) -> Receipt | None:
        return getattr(self.pending, "receipt", None)

    def generate_trace_id(self) -> int:
        from memorydesk.lineage.otlp import trace_id

        receipt = self._receipt()
        return int.from_bytes(trace_id(receipt.run_id)) if receipt is not None else random.getrandbits(128) or 1

    def generate_span_id(self) -> int:
        from memorydesk.lineage.otlp import span_id

        receipt = self._receipt()
        return int.from_bytes(span_id(receipt)) if receipt is not None else random.getrandbits(64) or 1
