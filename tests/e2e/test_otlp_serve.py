"""``memory-desk lineage serve`` with the real OpenTelemetry SDK's OTLP/HTTP exporter as the client,
and OTLP produced by the SDK read from a file: both classify as the JSON Lines of the same receipts."""

from __future__ import annotations

import gzip
import http.client
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from google.rpc.status_pb2 import Status
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.trace.export import SpanExportResult

from fixtures.otlp_sdk import sdk_otlp_json, sdk_spans, serving
from fixtures.receipts import NOW_TEXT, eight_cases, synthetic_lines, to_jsonl
from memorydesk.store import open_workspace

pytestmark = pytest.mark.slow


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *args], capture_output=True, text=True, timeout=180)


def verdicts(path: Path) -> list[tuple[str, str, str]]:
    done = run("lineage", "classify", str(path), "--now", NOW_TEXT, "--json")
    assert done.returncode in (0, 1), done.stderr
    return [(v["runId"], v["state"], v["color"]) for v in json.loads(done.stdout)]


def rows() -> list[dict]:
    return [row for _, case, _ in eight_cases() for row in case] + \
        [json.loads(line) for line in synthetic_lines(20, per_run=6)]


def workspace(tmp_path: Path, name: str = "ws.db") -> Path:
    path = tmp_path / name
    open_workspace(path, create=True).close()
    return path


def post(url: str, path: str, body: bytes, content_type: str = "application/x-protobuf",
         headers: dict[str, str] | None = None) -> tuple[int, bytes, str]:
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("POST", path, body, {"Content-Type": content_type, **(headers or {})})
    response = conn.getresponse()
    answer = response.status, response.read(), response.getheader("Content-Type") or ""
    conn.close()
    return answer


def test_the_sdk_exporter_delivers_receipts_that_classify_as_their_json_lines(tmp_path: Path) -> None:
    receipts = rows()
    jsonl = tmp_path / "receipts.jsonl"
    jsonl.write_text(to_jsonl(receipts), encoding="utf-8")
    ws = workspace(tmp_path)
    spans = sdk_spans(receipts)
    with serving(ws) as (url, process):
        plain = OTLPSpanExporter(endpoint=url + "/v1/traces")
        assert plain.export(spans[:60]) == SpanExportResult.SUCCESS
        zipped = OTLPSpanExporter(endpoint=url + "/v1/traces", compression=Compression.Gzip)
        assert zipped.export(spans[60:]) == SpanExportResult.SUCCESS
        assert zipped.export(spans[60:]) == SpanExportResult.SUCCESS  # a retry: stored once
        plain.shutdown()
        zipped.shutdown()
    out = process.printed
    assert f"{len(receipts):,} receipts stored" in out and f"{len(spans) - 60:,} already stored" in out
    assert verdicts(ws) == verdicts(jsonl)
    assert {r: s for r, s, _ in verdicts(ws) if r in {c for c, _, _ in eight_cases()}} == \
        {r: s for r, _, s in eight_cases()}


def test_sdk_encoded_otlp_json_in_a_file_classifies_as_the_json_lines(tmp_path: Path) -> None:
    receipts = rows()
    jsonl = tmp_path / "receipts.jsonl"
    jsonl.write_text(to_jsonl(receipts), encoding="utf-8")
    otlp = tmp_path / "collector-file-exporter.json"
    otlp.write_text(sdk_otlp_json(sdk_spans(receipts)), encoding="utf-8")
    ws = workspace(tmp_path)
    done = run("lineage", "ingest", str(ws), str(otlp))
    assert done.returncode == 0, done.stderr
    assert verdicts(ws) == verdicts(jsonl) == verdicts(otlp)


def test_malformed_requests_get_otlp_error_responses_and_the_receiver_goes_on(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    one = [row for _, case, _ in eight_cases()[:1] for row in case]
    body = encode_spans(sdk_spans(one)).SerializeToString()
    with serving(ws, "--max-body", "4096") as (url, _process):
        status, answer, kind = post(url, "/v1/traces", b"\xff\xff\xff not protobuf")
        assert status == 400 and kind == "application/x-protobuf"
        assert "not a valid OTLP protobuf message" in Status.FromString(answer).message

        status, answer, kind = post(url, "/v1/traces", b"{not json", "application/json")
        assert status == 400 and kind == "application/json" and json.loads(answer)["code"] == 3

        bad = {"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [
            {"key": "memory.lineage.run_id", "value": {"stringValue": "r"}},
            {"key": "memory.lineage.tier", "value": {"stringValue": "attic"}}]}]}]}]}
        status, answer, _ = post(url, "/v1/traces", json.dumps(bad).encode(), "application/json")
        assert status == 400 and "span 1" in json.loads(answer)["message"]

        assert post(url, "/v1/traces", b"x" * 5000)[0] == 413
        assert post(url, "/v1/traces", gzip.compress(b"\0" * 100_000), headers={"Content-Encoding": "gzip"})[0] == 413
        assert post(url, "/v1/metrics", body)[0] == 404
        assert post(url, "/v1/traces", body, "text/plain")[0] == 415

        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=30) as cut:  # the sender goes away mid-body
            cut.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                        b"Content-Length: 1000\r\n\r\n" + body[:10])
            cut.shutdown(socket.SHUT_WR)
            assert cut.recv(64).startswith(b"HTTP/1.1 400 ")

        status, answer, _ = post(url, "/v1/traces", body)
        assert status == 200
        assert ExportTraceServiceResponse.FromString(answer).partial_success.rejected_spans == 0

        logs = {"resourceLogs": [{"scopeLogs": [{"logRecords": [
            {"timeUnixNano": "1742644800000000000", "attributes": [
                {"key": f"memory.lineage.{k}", "value": {"stringValue": v}}
                for k, v in (("run_id", "run-log"), ("user_scope", "u"), ("assistant_scope", "a"),
                             ("tier", "stm"), ("status", "committed"), ("version", "v1"))]},
            {"timeUnixNano": "1742644800000000000", "body": {"stringValue": "other telemetry"}}]}]}]}
        status, answer, _ = post(url, "/v1/logs", json.dumps(logs).encode(), "application/json")
        assert status == 200
        assert "1 log records without memory.lineage attributes" in json.loads(answer)["partialSuccess"]["errorMessage"]
    stored = {r for r, _, _ in verdicts(ws)}
    assert stored == {one[0]["runId"], "run-log"}


def test_serve_refuses_a_network_address(tmp_path: Path) -> None:
    done = run("lineage", "serve", str(workspace(tmp_path)), "--listen", "0.0.0.0:4318")
    assert done.returncode == 2
    assert "not a loopback address" in done.stderr and "Traceback" not in done.stderr


def test_sdk_log_records_with_the_receipt_attributes_are_receipts_too(tmp_path: Path) -> None:
    from opentelemetry._logs import LogRecord
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor

    from fixtures.otlp_sdk import SNAKE, nanos

    receipts = [row for _, case, _ in eight_cases() for row in case]
    jsonl = tmp_path / "receipts.jsonl"
    jsonl.write_text(to_jsonl(receipts), encoding="utf-8")
    ws = workspace(tmp_path)
    with serving(ws) as (url, _process):
        provider = LoggerProvider()
        provider.add_log_record_processor(SimpleLogRecordProcessor(OTLPLogExporter(endpoint=url + "/v1/logs")))
        logger = provider.get_logger("memory-desk-test")
        for row in receipts:
            attributes = {"memory.lineage." + SNAKE.sub("_", k).lower(): v for k, v in row.items()
                          if not k.startswith("x-")}
            logger.emit(LogRecord(timestamp=nanos(row["atUtc"]), body="lineage receipt", attributes=attributes))
        provider.shutdown()
    assert verdicts(ws) == verdicts(jsonl)
    assert {r: s for r, s, _ in verdicts(ws)} == {r: s for r, _, s in eight_cases()}


def test_idle_and_trickling_connections_cannot_hold_the_receiver_up(tmp_path: Path) -> None:
    """Issue 35, point 6: 32 connections that sent half a request delayed a valid one by 29.5 s, and with
    64 it got no answer in 40 s. Now a new connection takes the place of the one that waited longest, and
    a connection that trickles its headers is cut at its deadline however slowly it sends."""
    import time

    ws = workspace(tmp_path)
    one = [row for _, case, _ in eight_cases()[:1] for row in case]
    body = encode_spans(sdk_spans(one)).SerializeToString()
    with serving(ws) as (url, _process):
        host, port = url.removeprefix("http://").split(":")
        idle = []
        for _ in range(64):  # half a request each, then nothing
            sock = socket.create_connection((host, int(port)), timeout=30)
            sock.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-")
            idle.append(sock)
        valid = http.client.HTTPConnection(host, int(port), timeout=8)  # the old receiver: no answer in 40 s
        valid.request("POST", "/v1/traces", body, {"Content-Type": "application/x-protobuf"})
        assert valid.getresponse().status == 200
        valid.close()
        trickle = socket.create_connection((host, int(port)), timeout=30)
        sent, started = 0, time.monotonic()
        try:  # one byte of a header line every half second: never a whole request, never idle for long
            while time.monotonic() - started < 25:
                trickle.sendall(b"X-Slow: " if sent == 0 else b"a")
                sent += 1
                time.sleep(0.5)
        except OSError:  # cut: the header deadline (10 s) passed
            pass
        assert time.monotonic() - started < 16 and sent < 32
        for sock in [*idle, trickle]:
            sock.close()
        assert post(url, "/v1/traces", body)[0] == 200  # and it goes on serving
    assert {r for r, _, _ in verdicts(ws)} == {one[0]["runId"]}


def test_max_body_past_one_gibibyte_is_refused(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    for value in (str(2**30 + 1), str(2**62), "1023"):
        done = run("lineage", "serve", str(ws), "--max-body", value)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--max-body" in done.stderr, done.stderr
