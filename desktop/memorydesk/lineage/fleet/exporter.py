"""The tables the OpenTelemetry Collector's ClickHouse exporter creates, as it creates them, and
receipts written into them as it writes spans: what ``memory-desk lineage ingest chdb:PATH FILE``
does for a ClickHouse data directory that no Collector fills (a server is filled by the Collector).

The statements are the exporter's own (opentelemetry-collector-contrib,
``exporter/clickhouseexporter/internal/sql_templates/``: ``traces_table.sql``,
``traces_id_ts_lookup_table.sql``, ``traces_id_ts_lookup_mv.sql``, commit
ff7a94656bd04ce95228ff4282554a233ed93434, Apache-2.0), rendered with its defaults (no cluster,
``ENGINE MergeTree()``, no TTL). A receipt's row is its span as ``lineage export --format
otlp-json`` writes it (:mod:`memorydesk.lineage.otlp`: the trace id derived from the runId, the
span id from its attributes, its name and kind) turned into the exporter's row: ``Timestamp`` the
start in nanoseconds, ids in lower-case hex, ``SpanKind``/``StatusCode`` spelled as the exporter
spells them, every attribute as text (pdata's ``AsString``: ``true``/``false``, decimal integers).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Final

from memorydesk.core.errors import BadInput
from memorydesk.core.receipts import Receipt
from memorydesk.lineage.fleet import layout, queries
from memorydesk.lineage.fleet.source import FleetSource
from memorydesk.lineage.otlp import operation_of, receipt_attributes, span_id, span_name, time_nanos, trace_id

#: ``otel_traces``; ``{table}`` is `database`.`otel_traces`
TRACES: Final = """CREATE TABLE IF NOT EXISTS {table} (
    Timestamp DateTime64(9) CODEC(Delta, ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    TraceState String CODEC(ZSTD(1)),
    SpanName LowCardinality(String) CODEC(ZSTD(1)),
    SpanKind LowCardinality(String) CODEC(ZSTD(1)),
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion String CODEC(ZSTD(1)),
    SpanAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    Duration UInt64 CODEC(ZSTD(1)),
    StatusCode LowCardinality(String) CODEC(ZSTD(1)),
    StatusMessage String CODEC(ZSTD(1)),
    Events Nested (
        Timestamp DateTime64(9),
        Name LowCardinality(String),
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    Links Nested (
        TraceId String,
        SpanId String,
        TraceState String,
        Attributes Map(LowCardinality(String), String)
    ) CODEC(ZSTD(1)),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_key mapKeys(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_span_attr_value mapValues(SpanAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_duration Duration TYPE minmax GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(Timestamp)
ORDER BY (ServiceName, SpanName, toDateTime(Timestamp))
SETTINGS index_granularity=8192, ttl_only_drop_parts = 1"""
#: the trace-id lookup table; ``{lookup}`` is `database`.`otel_traces_trace_id_ts`
LOOKUP: Final = """CREATE TABLE IF NOT EXISTS {lookup} (
    TraceId String CODEC(ZSTD(1)),
    Start DateTime CODEC(Delta, ZSTD(1)),
    End DateTime CODEC(Delta, ZSTD(1)),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.01) GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(Start)
ORDER BY (TraceId, Start)
SETTINGS index_granularity=8192, ttl_only_drop_parts = 1"""
#: the view that fills it; ``{view}`` is `database`.`otel_traces_trace_id_ts_mv`
LOOKUP_VIEW: Final = """CREATE MATERIALIZED VIEW IF NOT EXISTS {view}
TO {lookup}
AS SELECT
    TraceId,
    min(Timestamp) as Start,
    max(Timestamp) as End
FROM {table}
WHERE TraceId != ''
GROUP BY TraceId"""
SERVICE: Final = "memory-desk"  # the service name `lineage export` gives its spans
SCOPE: Final = "memorydesk.lineage"
_INSERT: Final = (
    "INSERT INTO {table} (Timestamp, TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind, ServiceName, "
    "ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes, Duration, StatusCode, StatusMessage) SELECT "
    "fromUnixTimestamp64Nano(ts), TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind, ServiceName, "
    "ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes, Duration, StatusCode, StatusMessage FROM "
    "format(JSONEachRow, 'ts Int64, TraceId String, SpanId String, ParentSpanId String, TraceState String, "
    "SpanName String, SpanKind String, ServiceName String, ResourceAttributes Map(String, String), ScopeName "
    "String, ScopeVersion String, SpanAttributes Map(String, String), Duration UInt64, StatusCode String, "
    "StatusMessage String', {data})")
STATEMENT_BYTES: Final = 200_000  # rows a statement carries (ClickHouse's max_query_size is 256 KiB)


def statements(database: str, table: str) -> list[str]:
    """What the exporter runs to make ``database.table`` and its trace-id lookup (named after it)."""
    names = {"table": f"`{database}`.`{table}`", "lookup": f"`{database}`.`{table}_trace_id_ts`",
             "view": f"`{database}`.`{table}_trace_id_ts_mv`"}
    return [f"CREATE DATABASE IF NOT EXISTS `{database}`", TRACES.format(**names), LOOKUP.format(**names),
            LOOKUP_VIEW.format(**names)]


def as_string(value: str | bool | int) -> str:
    """pdata's ``Value.AsString`` for the kinds a receipt's attribute takes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def exporter_row(receipt: Receipt, version: str = "") -> dict:
    """One receipt's span as the exporter's row (``ts`` the start in nanoseconds)."""
    return {
        "ts": time_nanos(receipt.at_utc), "TraceId": trace_id(receipt.run_id).hex(), "SpanId": span_id(receipt).hex(),
        "ParentSpanId": "", "TraceState": "", "SpanName": span_name(receipt),
        "SpanKind": "SPAN_KIND_INTERNAL" if operation_of(receipt) is None else "SPAN_KIND_CLIENT",
        "ServiceName": SERVICE, "ResourceAttributes": {"service.name": SERVICE}, "ScopeName": SCOPE,
        "ScopeVersion": version, "SpanAttributes": {k: as_string(v) for k, v in receipt_attributes(receipt)},
        "Duration": 0, "StatusCode": "STATUS_CODE_ERROR" if receipt.status == "failed" else "STATUS_CODE_UNSET",
        "StatusMessage": "",
    }


def inserts(database: str, table: str, rows: Iterable[dict]) -> list[str]:
    """``INSERT`` statements for ``rows``, each under the engine's longest statement (256 KiB)."""
    out: list[str] = []
    lines: list[str] = []
    size = 0

    def flush() -> None:
        if lines:
            out.append(_INSERT.format(table=f"`{database}`.`{table}`", data=queries.text("\n".join(lines))))
            lines.clear()

    for row in rows:
        line = json.dumps(row, ensure_ascii=False)
        if size + len(line.encode("utf-8")) > STATEMENT_BYTES:
            flush()
            size = 0
        lines.append(line)
        size += len(line.encode("utf-8")) + 1
    flush()
    return out


def write(source: FleetSource, receipts: list[Receipt]) -> tuple[int, int]:
    """Write ``receipts`` into a ``chdb:`` directory's table as the exporter would (the table and its
    lookup made first when they are not there; an empty folder becomes a ClickHouse data directory);
    a receipt whose span is there already is skipped. (stored, skipped)."""
    from memorydesk import __version__

    if source.kind != "chdb":
        raise BadInput(f"{source.describe()}: the desk only reads a ClickHouse server — its OpenTelemetry "
                       "Collector writes the receipts there (see the guide's A fleet in ClickHouse)")
    rows = list({(row["TraceId"], row["SpanId"]): row for row in (exporter_row(r, __version__)
                                                                  for r in receipts)}.values())
    engine = source.connect(create=True)
    try:
        for sql in statements(source.database, source.table):
            engine.command(sql)
        layout.check(engine)
        there = set()
        traces = sorted({row["TraceId"] for row in rows})
        for i in range(0, len(traces), 5000):
            found = engine.arrow(f"SELECT TraceId, SpanId FROM {source.qualified} WHERE TraceId IN "
                                 f"({', '.join(queries.text(t) for t in traces[i:i + 5000])})").to_pylist()
            there |= {(f["TraceId"], f["SpanId"]) for f in found}
        new = [row for row in rows if (row["TraceId"], row["SpanId"]) not in there]
        for sql in inserts(source.database, source.table, new):
            engine.command(sql)
    finally:
        engine.close()
    return len(new), len(receipts) - len(new)
