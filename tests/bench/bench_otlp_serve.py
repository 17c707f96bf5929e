"""How fast ``lineage serve`` stores receipts sent by the real OpenTelemetry SDK exporter (``-s``).

``MEMDESK_BENCH_OTLP`` receipts (default 200,000: 20,000 runs of 10) are made into the SDK's
own spans first (not timed). Then ``OTLPSpanExporter`` (OTLP/HTTP, protobuf) sends them in
batches of 512 — the SDK's ``BatchSpanProcessor`` default — from ``CLIENTS`` threads at once (as
a Collector's sending queue does) to a ``lineage serve`` process on 127.0.0.1; the clock stops at
the last response, and every 200 means committed. Printed beside it: the same receipts stored
in-process in one ``receipt_store.ingest`` (the plain-script baseline, no HTTP at all), and the
SDK exporter's own encoding time (client side, in the same figure), and the receiver alone:
the same batches encoded by the SDK beforehand and sent through the exporter's own HTTP
client (``exporter._client``, a private attribute of opentelemetry-exporter-otlp-proto-http
1.45), so that the figure is the receiver's, not the sender's encoding. Each figure is given in
wall time and in CPU time (the receiver process's from /proc, the senders' of this process; the
encoding's of its thread), as on a shared machine a process gets a fraction of a core. Bounded:
one pass, a timeout per request, the count capped at 1,000,000.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import SpanExportResult

from fixtures.otlp_sdk import sdk_spans, serving
from fixtures.receipts import synthetic_lines
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage import receipt_store
from memorydesk.store import open_workspace

COUNT = min(int(os.environ.get("MEMDESK_BENCH_OTLP", "200000")), 1_000_000)
BATCH = 512
CLIENTS = 4


@pytest.mark.slow
def test_bench_otlp_serve(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in synthetic_lines(COUNT // 10, 10)]
    started = time.perf_counter()
    spans = sdk_spans(rows)
    print(f"\n[otlp] {len(spans):,} SDK spans made in {time.perf_counter() - started:.1f} s (not timed)")
    batches = [spans[k:k + BATCH] for k in range(0, len(spans), BATCH)]

    encode, encode_cpu = [], []
    for batch in batches[:20]:
        t, c = time.perf_counter(), time.thread_time()
        encode_spans(batch).SerializeToString()
        encode.append((time.perf_counter() - t) / len(batch))
        encode_cpu.append((time.thread_time() - c) / len(batch))

    baseline_ws = tmp_path / "baseline.db"
    open_workspace(baseline_ws, create=True).close()
    receipts = [receipt_from_json(row) for row in rows]
    with open_workspace(baseline_ws) as ws:
        t, c = time.perf_counter(), time.process_time()
        receipt_store.ingest(ws, receipts)
        baseline, baseline_cpu = time.perf_counter() - t, time.process_time() - c
    with open_workspace(tmp_path / "batches.db", create=True) as ws:  # as the receiver commits them
        c = time.process_time()
        for k in range(0, len(receipts), BATCH):
            receipt_store.ingest(ws, receipts[k:k + BATCH])
        batched_cpu = time.process_time() - c

    served = serve(tmp_path / "served.db", lambda exporter, k: exporter.export(batches[k]) == SpanExportResult.SUCCESS,
                   len(batches), len(rows))
    bodies = [encode_spans(batch).SerializePartialToString() for batch in batches]
    received = serve(tmp_path / "received.db", lambda exporter, k: exporter._client.export(bodies[k]).success,
                     len(bodies), len(rows))
    n = len(rows)
    print(f"[otlp] load average at the end: {os.getloadavg()[0]:.1f}")
    print(f"[otlp] lineage serve, SDK OTLP/HTTP exporter, {CLIENTS} senders, batches of {BATCH}: "
          f"{n:,} receipts stored in {served[0]:.2f} s = {n / served[0]:,.0f} receipts/s; CPU: receiver "
          f"{served[1]:.2f} s = {n / served[1]:,.0f}/s, senders {served[2]:.2f} s = {n / served[2]:,.0f}/s")
    print(f"[otlp] the receiver alone (bodies encoded beforehand, sent by the exporter's HTTP client): "
          f"{received[0]:.2f} s = {n / received[0]:,.0f} receipts/s; CPU: receiver {received[1]:.2f} s = "
          f"{n / received[1]:,.0f}/s, senders {received[2]:.2f} s")
    print(f"[otlp] baseline, receipt_store.ingest in-process (no HTTP, no OTLP): {baseline:.2f} s = "
          f"{n / baseline:,.0f} receipts/s; CPU {baseline_cpu:.2f} s = {n / baseline_cpu:,.0f}/s; "
          f"in batches of {BATCH}: CPU {batched_cpu:.2f} s = {n / batched_cpu:,.0f}/s")
    print(f"[otlp] the SDK's encoding alone (client side, median of 20 batches): "
          f"{statistics.median(encode) * 1e6:.1f} µs a span = {1 / statistics.median(encode):,.0f} spans/s; CPU "
          f"{statistics.median(encode_cpu) * 1e6:.1f} µs a span = {1 / statistics.median(encode_cpu):,.0f} spans/s "
          "a core")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve(target: Path, send, requests: int, expected: int) -> tuple[float, float, float]:
    """Seconds to send ``requests`` batches from ``CLIENTS`` threads to a fresh ``lineage serve``,
    and the CPU seconds the receiver and the senders spent meanwhile."""
    open_workspace(target, create=True).close()
    with serving(target) as (url, process):
        exporters = [OTLPSpanExporter(endpoint=url + "/v1/traces", timeout=60) for _ in range(CLIENTS)]
        t, c, r = time.perf_counter(), time.process_time(), cpu_seconds(process.pid)
        with ThreadPoolExecutor(CLIENTS) as pool:
            results = list(pool.map(lambda k: send(exporters[k % CLIENTS], k), range(requests)))
        seconds = time.perf_counter() - t
        receiver, senders = cpu_seconds(process.pid) - r, time.process_time() - c
        for exporter in exporters:
            exporter.shutdown()
    assert all(results)
    with open_workspace(target, read_only=True) as ws:
        assert receipt_store.count(ws) == expected
    return seconds, receiver, senders
