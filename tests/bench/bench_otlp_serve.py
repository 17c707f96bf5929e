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
1.45), so that the figure is the receiver's, not the sender's encoding. Bounded: one pass, a
timeout per request, the count capped at 1,000,000.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fixtures.otlp_sdk import sdk_spans, serving
from fixtures.receipts import synthetic_lines
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import SpanExportResult

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

    encode = []
    for batch in batches[:20]:
        t = time.perf_counter()
        encode_spans(batch).SerializeToString()
        encode.append((time.perf_counter() - t) / len(batch))

    baseline_ws = tmp_path / "baseline.db"
    open_workspace(baseline_ws, create=True).close()
    receipts = [receipt_from_json(row) for row in rows]
    with open_workspace(baseline_ws) as ws:
        t = time.perf_counter()
        receipt_store.ingest(ws, receipts)
        baseline = time.perf_counter() - t

    served = serve(tmp_path / "served.db", lambda exporter, k: exporter.export(batches[k]) == SpanExportResult.SUCCESS,
                   len(batches), len(rows))
    bodies = [encode_spans(batch).SerializePartialToString() for batch in batches]
    received = serve(tmp_path / "received.db", lambda exporter, k: exporter._client.export(bodies[k]).success,
                     len(bodies), len(rows))
    print(f"[otlp] lineage serve, SDK OTLP/HTTP exporter, {CLIENTS} senders, batches of {BATCH}: "
          f"{len(rows):,} receipts stored in {served:.2f} s = {len(rows) / served:,.0f} receipts/s")
    print(f"[otlp] the receiver alone (bodies encoded beforehand, sent by the exporter's HTTP client): "
          f"{received:.2f} s = {len(rows) / received:,.0f} receipts/s")
    print(f"[otlp] baseline, receipt_store.ingest in-process (no HTTP, no OTLP): {baseline:.2f} s = "
          f"{len(rows) / baseline:,.0f} receipts/s")
    print(f"[otlp] the SDK's encoding alone (client side, median of 20 batches): "
          f"{statistics.median(encode) * 1e6:.1f} µs a span = {1 / statistics.median(encode):,.0f} spans/s")


def serve(target: Path, send, requests: int, expected: int) -> float:
    """Seconds to send ``requests`` batches from ``CLIENTS`` threads to a fresh ``lineage serve``."""
    open_workspace(target, create=True).close()
    with serving(target) as (url, _process):
        exporters = [OTLPSpanExporter(endpoint=url + "/v1/traces", timeout=60) for _ in range(CLIENTS)]
        t = time.perf_counter()
        with ThreadPoolExecutor(CLIENTS) as pool:
            results = list(pool.map(lambda k: send(exporters[k % CLIENTS], k), range(requests)))
        seconds = time.perf_counter() - t
        for exporter in exporters:
            exporter.shutdown()
    assert all(results)
    with open_workspace(target, read_only=True) as ws:
        assert receipt_store.count(ws) == expected
    return seconds
