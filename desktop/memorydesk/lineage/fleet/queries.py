"""Every SQL text the desk sends to a ClickHouse receipts source (and nothing else builds SQL).

A *receipt span* is a row with a ``memory.lineage.`` attribute, or whose ``gen_ai.operation.name``
is a memory operation a receipt reports (:data:`~memorydesk.lineage.otlp.MEMORY_OPERATIONS`).
Only the attributes a receipt is read from leave the engine (``mapFilter``): content attributes
such as ``gen_ai.memory.query.text`` never do. A receipt's time is its span's ``Timestamp`` (the
desk and its adapters start a receipt's span at its ``atUtc``), so time windows are
``Timestamp`` ranges the table's day partitions prune. The run of a row is
``memory.lineage.run_id``, or ``trace:<TraceId>`` for a derived receipt.

``extent`` is a plain count in the engine. ``state_counts`` counts runs
per state with the health rules as :mod:`memorydesk.lineage.fleet.rules` writes them for the engine
(the clock step and the rules' order generated from the rules' table); the rest of the desk judges
the receipts it reads with the classifier (``core.health.scalar``/``core.health.vector``).
"""

from __future__ import annotations

from typing import Final

from memorydesk.lineage.fleet import rules
from memorydesk.lineage.fleet.source import FleetSource
from memorydesk.lineage.otlp import (
    CONVENTION_KEYS,
    LINE_ATTRIBUTE,
    MEMORY_OPERATIONS,
    OPERATION,
    PREFIX,
    STORE_ID,
    WIRE_NAMES,
)

_OPERATIONS: Final = ", ".join(f"'{op}'" for op in sorted(MEMORY_OPERATIONS))
_KEYS: Final = ", ".join(f"'{k}'" for k in sorted(CONVENTION_KEYS))
OURS: Final = f"arrayExists(k -> startsWith(k, '{PREFIX}'), mapKeys(SpanAttributes))"
RECEIPT: Final = f"({OURS} OR SpanAttributes['{OPERATION}'] IN ({_OPERATIONS}))"
RUN: Final = (f"if(mapContains(SpanAttributes, '{PREFIX}run_id'), SpanAttributes['{PREFIX}run_id'], "
              "concat('trace:', lower(TraceId)))")
#: the attributes a receipt is read from, each its own column (``c0`` …; NULL where the span has none)
KNOWN: Final = (*sorted(CONVENTION_KEYS), *WIRE_NAMES, LINE_ATTRIBUTE)
_KNOWN_LIST: Final = ", ".join(f"'{k}'" for k in KNOWN)
ATTRIBUTES: Final = ", ".join(f"if(mapContains(SpanAttributes, '{k}'), SpanAttributes['{k}'], NULL) AS c{i}"
                              for i, k in enumerate(KNOWN))
#: any other ``memory.lineage.`` attribute (refused when read: receipts carry no content)
OTHERS: Final = f"mapFilter((k, v) -> startsWith(k, '{PREFIX}') AND k NOT IN ({_KNOWN_LIST}), SpanAttributes)"
#: a receipt's lane as the tab names it, ``userScope / assistantScope``: the store id's first two parts,
#: unescaped as :func:`memorydesk.lineage.otlp.parse_store_id` does; a derived receipt's scopes are unstated
_PART: Final = ("replaceAll(replaceAll(replaceAll(splitByChar('/', SpanAttributes['{store}'])[{n}], '%2F', '/'), "
                "'%2f', '/'), '%25', '%')")
LANE: Final = (f"if(mapContains(SpanAttributes, '{STORE_ID}') AND {OURS}, "
               f"concat({_PART.format(store=STORE_ID, n=1)}, ' / ', {_PART.format(store=STORE_ID, n=2)}), "
               "'(unstated) / (unstated)')")


def text(value: str) -> str:
    """A ClickHouse string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def moment(nanos: int) -> str:
    return f"fromUnixTimestamp64Nano(toInt64({int(nanos)}))"


def columns(source: FleetSource) -> str:
    """The table's columns (``name``, ``type``)."""
    return f"DESCRIBE TABLE {source.qualified}"


def lookup_exists(source: FleetSource) -> str:
    """Whether the exporter's trace-id lookup table (``<table>_trace_id_ts``) is there (``n`` 0 or 1)."""
    return (f"SELECT count() AS n FROM system.tables WHERE database = {text(source.database)} "
            f"AND name = {text(source.table + '_trace_id_ts')}")


def trace_span(source: FleetSource, trace: str) -> str:
    """When a trace's spans start and end (``first``, ``last``, whole seconds as the exporter's lookup
    table keeps them; NULL when the trace is not there), from the lookup table, ordered by TraceId."""
    return (f"SELECT toUnixTimestamp(min(Start)) AS first, toUnixTimestamp(max(End)) AS last "
            f"FROM `{source.database}`.`{source.table}_trace_id_ts` WHERE TraceId = {text(trace)} "
            "HAVING count() > 0")


def _window(since_ns: int | None, until_ns: int | None) -> str:
    """``PREWHERE`` of a time range (or nothing): the engine reads ``Timestamp`` first and the attribute
    maps only of the rows in the range. The exporter sorts by span name before time, and a span name
    holds the store id, so a range's rows are spread over every granule of its day partitions:
    without this the engine may test the receipt condition on every row of those days first."""
    parts = []
    if since_ns is not None:
        parts.append(f"Timestamp >= {moment(since_ns)}")
    if until_ns is not None:
        parts.append(f"Timestamp <= {moment(until_ns)}")
    return f" PREWHERE {' AND '.join(parts)}" if parts else ""


def receipts(source: FleetSource, since_ns: int | None = None, until_ns: int | None = None,
             run_id: str | None = None, scope: str = "", trace: str | None = None,
             inside_us: tuple[int, int] | None = None) -> str:
    """Receipt spans (time, trace, span, their receipt attributes) in a time range, of one run, or of
    lanes whose name holds ``scope`` (any case), oldest first; with ``trace``, only that trace's spans
    (the exporter's bloom filter index on ``TraceId`` serves it within the time range); with
    ``inside_us``, only the runs with a receipt dated in that range (µs, both ends in)."""
    where = RECEIPT
    if trace is not None:
        where += f" AND TraceId = {text(trace)}"
    if run_id is not None:
        # SpanAttributes['…'] = value is what the exporter's bloom filter index on the map's values serves
        where += (f" AND SpanAttributes['{PREFIX}run_id'] = {text(run_id)}" if not run_id.startswith("trace:") else
                  f" AND lower(TraceId) = {text(run_id[len('trace:'):].lower())}")
    if scope:
        where += f" AND positionCaseInsensitiveUTF8({LANE}, {text(scope)}) > 0"
    select = (f"SELECT toUnixTimestamp64Nano(Timestamp) AS t, lower(TraceId) AS trace, lower(SpanId) AS span, "
              f"{ATTRIBUTES}, {OTHERS} AS others, length(others) AS odd")
    if inside_us is None:
        return f"{select} FROM {source.qualified}{_window(since_ns, until_ns)} WHERE {where} ORDER BY t, trace, span"
    # the runs with a receipt in the range, picked in the engine: the others' receipts never leave it
    lo, hi = (int(v) for v in inside_us)
    return (f"SELECT * EXCEPT inside FROM ({select}, max({rules.AT} BETWEEN {lo} AND {hi}) OVER (PARTITION BY {RUN}) "
            f"AS inside FROM {source.qualified}{_window(since_ns, until_ns)} WHERE {where}) WHERE inside "
            "ORDER BY t, trace, span")


def extent(source: FleetSource) -> str:
    """How many spans the table holds, and the first and last ``Timestamp`` (ns): read from the
    table's parts without a scan; what tells the desk that something new arrived."""
    return (f"SELECT count() AS spans, toUnixTimestamp64Nano(min(Timestamp)) AS first, "
            f"toUnixTimestamp64Nano(max(Timestamp)) AS last FROM {source.qualified}")


def newer(source: FleetSource, after_ns: int) -> str:
    """The runs with a receipt span after ``after_ns`` (what following the clock reads again)."""
    return (f"SELECT DISTINCT {RUN} AS run FROM {source.qualified} "
            f"PREWHERE Timestamp > {moment(after_ns)} WHERE {RECEIPT}")


def state_counts(source: FleetSource, since_ns: int, until_ns: int, now_us: int, fresh_us: int,
                 lookaround_ns: int = 0, scope: str = "") -> str:
    """Runs per state (``kind`` ``state``), per state and lane (``lane``), per state and sourceVersion
    (``source``, ``''`` unstated) of the runs with a receipt from ``since_ns`` to ``until_ns``, each
    judged at ``now_us`` on its receipts up to ``lookaround_ns`` either side dated at or before it —
    what the tab reads and judges for that window, judged in the engine (:mod:`rules`)."""
    where = RECEIPT
    if scope:
        where += f" AND positionCaseInsensitiveUTF8({LANE}, {text(scope)}) > 0"
    since_us, until_us = since_ns // 1000, until_ns // 1000
    return (
        f"SELECT state, k.1 AS kind, k.2 AS name, count() AS runs FROM ("
        f"SELECT run, {rules.RUN}, {rules.state(now_us, fresh_us)} AS state FROM ("
        f"SELECT run, version, {rules.PAIR} FROM ("
        f"SELECT {rules.receipt_columns(OURS)}, max(at BETWEEN {since_us} AND {until_us}) OVER (PARTITION BY run) "
        f"AS inside FROM {source.qualified}{_window(since_ns - lookaround_ns, until_ns + lookaround_ns)} "
        f"WHERE {where}) WHERE inside AND at <= {int(now_us)} "
        "GROUP BY run, version) GROUP BY run) "
        "ARRAY JOIN arrayConcat([('state', '')], arrayMap(s -> ('lane', concat(s.1, ' / ', s.2)), scopes), "
        "arrayMap(s -> ('source', s), sources)) AS k GROUP BY state, kind, name ORDER BY kind, name, state")


def run_states(source: FleetSource, now_us: int, fresh_us: int) -> str:
    """Every run's state at ``now_us`` judged in the engine (``run``, ``state``): what the tests hold to
    the classifier."""
    return (f"SELECT run, {rules.state(now_us, fresh_us)} AS state FROM (SELECT run, {rules.RUN} FROM ("
            f"SELECT run, version, {rules.PAIR} FROM (SELECT {rules.receipt_columns(OURS)} FROM {source.qualified} "
            f"WHERE {RECEIPT}) WHERE at <= {int(now_us)} GROUP BY run, version) GROUP BY run) ORDER BY run")
