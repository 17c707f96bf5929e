"""Receipts read where a fleet keeps its telemetry: the ``otel_traces`` table the OpenTelemetry
Collector's ClickHouse exporter writes, on a ClickHouse server (``clickhouse://…``, over HTTP with
clickhouse-connect) or in a local ClickHouse data directory (``chdb:PATH``, in-process with chDB).

``source`` names and opens a source and says what is wrong with it in one sentence; ``layout``
holds the exporter's table shape and checks it; ``queries`` holds every SQL text the desk sends;
``read`` turns what comes back into receipts (the same mapping as every OTLP path,
:mod:`memorydesk.lineage.otlp`) and into the Lineage tab's run tables, judged by the one classifier.
Both engines are optional (the ``fleet`` extra).
"""
