"""``memory-desk lineage serve``: an OTLP/HTTP receiver that stores the receipts it is sent.

``POST /v1/traces`` and ``POST /v1/logs`` with a protobuf (``application/x-protobuf``) or
JSON (``application/json``) body, optionally gzip-compressed (``Content-Encoding: gzip``,
what a Collector's ``otlphttp`` exporter sends by default), as the OTLP/HTTP specification
defines them. Every request is all or nothing: its receipts are checked (the receipts
contract, through :mod:`memorydesk.lineage.otlp`), handed to the one writer thread, and
answered only once they are committed — so a 200 means stored. The writer commits whatever
has queued up in one transaction (group commit), which is what makes a fleet's throughput.
Spans and log records without ``memory.lineage.`` attributes are other telemetry: not
stored, counted in the response's ``partialSuccess`` message (with nothing rejected).

Answers, each with a ``google.rpc.Status`` body in the request's encoding (the OTLP error
response): 400 for a malformed body or a receipt the contract refuses (not retryable), 404
for another path, 405 for another method, 411 without ``Content-Length``, 413 for a body
over ``max_body`` bytes (also after decompression), 415 for another content type, 503
(retryable, ``Retry-After``) when the workspace cannot take the write now, 500 for our bug.

Bounded, so idle or slow connections cannot hold it up: each connection has a deadline for
a request's line and headers (``header_timeout`` seconds from when it starts waiting for
them, keep-alive included) and another for its body (``body_timeout`` plus a second per MiB),
enforced by one watcher thread that closes a connection once its deadline passes, however
slowly it trickles bytes. At most ``max_connections`` connections are served at once; when
all are taken, a new connection takes the place of the one that has waited longest for its
headers or body (a connection whose request is being stored is never cut). Only a loopback
address may be listened on — put a Collector in front to receive from a network.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import queue
import socket
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memorydesk.core.errors import BadInput, MemoryDeskError
from memorydesk.core.receipts import Receipt
from memorydesk.lineage import receipt_store
from memorydesk.lineage.otlp import ReceiptRecords
from memorydesk.lineage.otlp_deadlines import Deadlines
from memorydesk.lineage.otlp_json import receipts_from_json
from memorydesk.store import Workspace

log = logging.getLogger(__name__)

MAX_BODY = 16 * 1024 * 1024  # bytes of one request body, before and after decompression
MAX_BODY_LIMIT = 2**30  # the largest --max-body accepted (1 GiB): a body is held in memory whole
MAX_CONNECTIONS = 32
IDLE_TIMEOUT = 30.0  # seconds one read may block (the deadlines below end a connection sooner)
HEADER_TIMEOUT = 10.0  # seconds for a request's line and headers, from when the connection waits for them
BODY_TIMEOUT = 10.0  # seconds for a body, plus one per MiB of its Content-Length
GROUP_MAX = 200_000  # receipts in one commit
PROTOBUF, JSON = "application/x-protobuf", "application/json"
_INVALID_ARGUMENT, _RESOURCE_EXHAUSTED, _INTERNAL, _UNAVAILABLE = 3, 8, 13, 14


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) on a loopback address; else :class:`BadInput`."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise BadInput(f"--listen: {text!r} is not HOST:PORT (for example 127.0.0.1:4318)")
    host = host.strip("[]") or "127.0.0.1"
    try:
        loopback = ipaddress.ip_address("127.0.0.1" if host == "localhost" else host).is_loopback
    except ValueError:
        raise BadInput(f"--listen: {host!r} is not an IP address (use 127.0.0.1 or ::1)") from None
    if not loopback:
        raise BadInput(f"--listen: {host} is not a loopback address; the receiver listens on this machine only "
                       "(put an OpenTelemetry Collector in front to receive from other hosts)")
    return host, int(port_text)


@dataclass
class _Batch:
    receipts: list[Receipt]
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None
    stored: int = 0


class _Writer(threading.Thread):
    """The one thread that writes: commits every queued batch together, then wakes their senders."""

    def __init__(self, ws: Workspace, on_stored: Callable[[int, int], None]) -> None:
        super().__init__(name="otlp-writer", daemon=True)
        self.ws, self.on_stored = ws, on_stored
        self.queue: queue.Queue[_Batch | None] = queue.Queue()

    def run(self) -> None:
        while (first := self.queue.get()) is not None:
            group, size, stop = [first], len(first.receipts), False
            while size < GROUP_MAX:
                try:
                    more = self.queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                group.append(more)
                size += len(more.receipts)
            self._commit(group)
            if stop:
                break

    def _commit(self, group: list[_Batch]) -> None:
        try:
            done = receipt_store.ingest(self.ws, [r for batch in group for r in batch.receipts])
        except BaseException as exc:  # every sender hears it; the receiver goes on
            for batch in group:
                batch.error = exc
                batch.done.set()
            return
        self.on_stored(done.stored, done.skipped)
        for batch in group:
            batch.stored = len(batch.receipts)
            batch.done.set()

    def store(self, receipts: list[Receipt]) -> None:
        batch = _Batch(receipts)
        self.queue.put(batch)
        batch.done.wait()
        if batch.error is not None:
            raise batch.error

    def stop(self) -> None:
        self.queue.put(None)
        self.join(timeout=30)


class _Refusal(Exception):
    def __init__(self, http: int, code: int, message: str, retry: bool = False) -> None:
        super().__init__(message)
        self.http, self.code, self.retry = http, code, retry


def _status_body(code: int, message: str, content_type: str) -> bytes:
    if content_type == PROTOBUF:
        from google.rpc.status_pb2 import Status

        return Status(code=code, message=message).SerializeToString()
    return json.dumps({"code": code, "message": message}).encode()


def _success_body(kind: str, ignored: int, content_type: str) -> bytes:
    noun = "spans" if kind == "traces" else "log records"
    note = f"{ignored} {noun} without memory.lineage attributes were not stored" if ignored else ""
    if content_type == JSON:
        return json.dumps({"partialSuccess": {"errorMessage": note}} if note else {}).encode()
    if kind == "traces":
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse as Response
    else:
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse as Response
    response = Response()
    if note:
        response.partial_success.error_message = note
    return response.SerializeToString()


def decode(kind: str, body: bytes, content_type: str) -> ReceiptRecords:
    """The receipts of one request body; :class:`BadInput` when it is malformed or refused."""
    records = ReceiptRecords()
    if content_type == JSON:
        try:
            obj = json.loads(body)
        except (ValueError, RecursionError) as exc:
            raise BadInput(f"the body is not valid JSON ({str(exc)[:120]})") from None
        if not isinstance(obj, dict):
            raise BadInput("the body is not a JSON object")
        obj.setdefault("resourceSpans" if kind == "traces" else "resourceLogs", [])
        receipts_from_json(obj, records)
        return records
    from google.protobuf.message import DecodeError

    from memorydesk.lineage import otlp_proto

    if kind == "traces":
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest as Request
    else:
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest as Request
    request = Request()
    try:
        request.ParseFromString(body)
    except DecodeError:
        raise BadInput("the body is not a valid OTLP protobuf message") from None
    (otlp_proto.receipts_from_traces if kind == "traces" else otlp_proto.receipts_from_logs)(request, "", records)
    return records


class _Handler(BaseHTTPRequestHandler):
    server: ReceiptServer
    protocol_version = "HTTP/1.1"
    server_version = "memory-desk-otlp"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_timeout)

    def handle_one_request(self) -> None:
        """One request: its line and headers under the header deadline (the body gets its own)."""
        self.server.deadlines.arm(self.connection, self.server.header_timeout)
        try:
            super().handle_one_request()
        finally:
            self.server.deadlines.disarm(self.connection)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        log.debug("%s " + format, self.address_string(), *args)

    def _answer(self, http: int, body: bytes, content_type: str, retry: bool = False) -> None:
        try:
            self.send_response(http)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            if retry:
                self.send_header("Retry-After", "2")
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the sender went away; what was stored stays stored
            self.close_connection = True

    def _refuse(self, refusal: _Refusal, content_type: str) -> None:
        self.server.count_refused(refusal.http)
        self._answer(refusal.http, _status_body(refusal.code, str(refusal), content_type), content_type,
                     refusal.retry)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.close_connection = True
        self._refuse(_Refusal(405, _INVALID_ARGUMENT, "only POST is accepted (OTLP/HTTP)"), JSON)

    do_PUT = do_DELETE = do_PATCH = do_GET  # noqa: N815

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        raw_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        content_type = PROTOBUF if raw_type != JSON else JSON
        try:
            kind = {"/v1/traces": "traces", "/v1/logs": "logs"}.get(self.path.split("?")[0])
            if kind is None:
                raise _Refusal(404, _INVALID_ARGUMENT, f"no such endpoint {self.path[:60]!r}; "
                                                       "send to /v1/traces or /v1/logs")
            body = self._body(raw_type)
            try:
                records = decode(kind, body, content_type)
            except BadInput as exc:
                raise _Refusal(400, _INVALID_ARGUMENT, f"nothing was stored: {exc}") from None
            if records.receipts:
                try:
                    self.server.writer.store(records.receipts)
                except MemoryDeskError as exc:
                    raise _Refusal(503, _UNAVAILABLE, f"nothing was stored: {exc}", retry=True) from None
            self.server.count_request(len(records.receipts))
            self._answer(200, _success_body(kind, records.ignored, content_type), content_type)
        except _Refusal as refusal:
            self._refuse(refusal, content_type)
        except Exception:  # our bug: said as such, the receiver goes on
            log.exception("OTLP request failed")
            self.close_connection = True
            self._refuse(_Refusal(500, _INTERNAL, "the receiver failed on this request (see its log)"), content_type)

    def _body(self, raw_type: str) -> bytes:
        limit = self.server.max_body
        if raw_type not in (PROTOBUF, JSON):
            self.close_connection = True
            raise _Refusal(415, _INVALID_ARGUMENT, f"content type {raw_type or 'none'!r} is not accepted; "
                                                   f"send {PROTOBUF} or {JSON}")
        length = self.headers.get("Content-Length")
        if length is None or not length.strip().isdigit():
            self.close_connection = True
            raise _Refusal(411, _INVALID_ARGUMENT, "a Content-Length header is required")
        if int(length) > limit:
            self.close_connection = True  # the body is not read
            raise _Refusal(413, _RESOURCE_EXHAUSTED, f"the body is {int(length):,} bytes; at most {limit:,} "
                                                     "are accepted (send smaller batches)")
        allowed = self.server.body_timeout + int(length) / 2**20
        self.server.deadlines.arm(self.connection, allowed)
        try:
            body = self.rfile.read(int(length))
        except OSError:  # a timeout, or the sender went away
            self.close_connection = True
            raise _Refusal(400, _INVALID_ARGUMENT, f"the body did not arrive within {allowed:g} s") from None
        finally:
            self.server.deadlines.disarm(self.connection)  # storing it is not the sender's time
        if len(body) < int(length):
            self.close_connection = True
            raise _Refusal(400, _INVALID_ARGUMENT, f"the body is shorter than its Content-Length (or did not "
                                                   f"arrive within {allowed:g} s)")
        encoding = (self.headers.get("Content-Encoding") or "identity").strip().lower()
        if encoding == "gzip":
            inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                body = inflate.decompress(body, limit + 1)
            except zlib.error:
                raise _Refusal(400, _INVALID_ARGUMENT, "the gzip body is corrupt") from None
            if len(body) > limit or inflate.unconsumed_tail:
                raise _Refusal(413, _RESOURCE_EXHAUSTED, f"the body is over {limit:,} bytes once decompressed")
        elif encoding != "identity":
            raise _Refusal(415, _INVALID_ARGUMENT, f"content encoding {encoding!r} is not accepted (gzip is)")
        return body


class ReceiptServer(ThreadingHTTPServer):
    """The receiver, bound and ready; :meth:`serve_forever` serves until :meth:`shutdown`."""

    daemon_threads = True
    request_queue_size = 64

    def __init__(self, ws: Workspace, address: tuple[str, int], *, max_body: int = MAX_BODY,
                 max_connections: int = MAX_CONNECTIONS, idle_timeout: float = IDLE_TIMEOUT,
                 header_timeout: float = HEADER_TIMEOUT, body_timeout: float = BODY_TIMEOUT) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.max_body, self.idle_timeout = max_body, idle_timeout
        self.header_timeout, self.body_timeout = header_timeout, body_timeout
        self.deadlines = Deadlines()
        self.slots = threading.BoundedSemaphore(max_connections)
        self.lock = threading.Lock()
        self.requests = self.stored = self.skipped = self.received = self.refused = 0
        self.writer = _Writer(ws, self._stored)
        super().__init__(address, _Handler)
        self.writer.start()
        self.deadlines.start()

    def _stored(self, stored: int, skipped: int) -> None:
        with self.lock:
            self.stored += stored
            self.skipped += skipped

    def count_request(self, receipts: int) -> None:
        with self.lock:
            self.requests += 1
            self.received += receipts

    def count_refused(self, _http: int) -> None:
        with self.lock:
            self.refused += 1

    def process_request(self, request, client_address) -> None:
        """Serve the new connection in a thread of its own; when every slot is taken, it takes the
        place of the connection that has waited longest for its request (else it waits for a slot)."""
        if not self.slots.acquire(blocking=False):
            self.deadlines.evict_longest_waiting()
            self.slots.acquire()
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def server_close(self) -> None:
        super().server_close()
        self.deadlines.stopped.set()
        self.writer.stop()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{'[' + host + ']' if ':' in host else host}:{port}"
