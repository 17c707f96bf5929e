"""The traces table the OpenTelemetry Collector's ClickHouse exporter writes, as the desk reads it.

The exporter (opentelemetry-collector-contrib, ``exporter/clickhouseexporter``) creates
``otel_traces`` with one row per span: ``Timestamp DateTime64(9)`` (the span's start, in
nanoseconds), ``TraceId`` and ``SpanId`` in hex, and every span attribute in ``SpanAttributes
Map(LowCardinality(String), String)`` with its value written as text (``true``/``false``, decimal
integers). The desk reads only those four columns; :func:`check` refuses a table that lacks one
or has it in another type, naming the column. Beside it the exporter keeps ``otel_traces_trace_id_ts``
(each trace's first and last second, ordered by ``TraceId``), which finds a run's spans fast when their
trace id is the one derived from the runId (``lineage.otlp.trace_id``, as the desk writes them).
"""

from __future__ import annotations

from typing import Final

from memorydesk.core.errors import BadInput
from memorydesk.lineage.fleet import queries
from memorydesk.lineage.fleet.source import Engine

#: column → the types the exporter has written it with over its versions
COLUMNS: Final = {
    "Timestamp": ("DateTime64(9)",),
    "TraceId": ("String",),
    "SpanId": ("String",),
    "SpanAttributes": ("Map(LowCardinality(String), String)", "Map(String, String)"),
}


def check(engine: Engine) -> None:
    """Raise :class:`BadInput` unless the source's table has the exporter's columns the desk reads;
    note on ``engine`` whether the exporter's trace-id lookup table is there (``engine.lookup``)."""
    source = engine.source
    found = {row["name"]: row["type"] for row in engine.arrow(queries.columns(source)).to_pylist()}
    for name, types in COLUMNS.items():
        have = found.get(name)
        if have is None:
            raise BadInput(f"{source.describe()}: {source.database}.{source.table} is not the OpenTelemetry "
                           f"Collector exporter's traces table (it has no column {name})")
        if have not in types:
            raise BadInput(f"{source.describe()}: {source.database}.{source.table} is not the OpenTelemetry "
                           f"Collector exporter's traces table (column {name} is {have}, not {types[0]})")
    (row,) = engine.arrow(queries.lookup_exists(source)).to_pylist()
    engine.lookup = bool(row["n"])
