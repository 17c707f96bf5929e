"""Every SQL text the desk sends to a ClickHouse receipts source (and nothing else builds SQL).

A *receipt span* is a row with a ``memory.lineage.`` attribute, or whose ``gen_ai.operation.name``
is a memory operation a receipt reports (:data:`~memorydesk.lineage.otlp.MEMORY_OPERATIONS`).
Only the attributes a receipt is read from leave the engine (``mapFilter``): content attributes
such as ``gen_ai.memory.query.text`` never do. A receipt's time is its span's ``Timestamp`` (the
desk and its adapters start a receipt's span at its ``atUtc``), so time windows are
``Timestamp`` ranges the table's day partitions prune. The run of a row is
``memory.lineage.run_id``, or ``trace:<TraceId>`` for a derived receipt.

Aggregations (``counts``, ``extent``) are plain counts in the engine: no health rule is
written here; the states come from the one classifier (``core.health.scalar``/``core.health.vector``)
over the receipts read.
"""

from __future__ import annotations

from typing import Final

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


def _window(since_ns: int | None, until_ns: int | None) -> str:
    parts = []
    if since_ns is not None:
        parts.append(f"Timestamp >= {moment(since_ns)}")
    if until_ns is not None:
        parts.append(f"Timestamp <= {moment(until_ns)}")
    return "".join(f" AND {p}" for p in parts)


def receipts(source: FleetSource, since_ns: int | None = None, until_ns: int | None = None,
             run_id: str | None = None, scope: str = "") -> str:
    """Receipt spans (time, trace, span, their receipt attributes) in a time range, of one run, or of
    lanes whose name holds ``scope`` (any case), oldest first."""
    where = RECEIPT + _window(since_ns, until_ns)
    if run_id is not None:
        # SpanAttributes['…'] = value is what the exporter's bloom filter index on the map's values serves
        where += (f" AND SpanAttributes['{PREFIX}run_id'] = {text(run_id)}" if not run_id.startswith("trace:") else
                  f" AND lower(TraceId) = {text(run_id[len('trace:'):].lower())}")
    if scope:
        where += f" AND positionCaseInsensitiveUTF8({LANE}, {text(scope)}) > 0"
    return (f"SELECT toUnixTimestamp64Nano(Timestamp) AS t, lower(TraceId) AS trace, lower(SpanId) AS span, "
            f"{ATTRIBUTES}, {OTHERS} AS others, length(others) AS odd FROM {source.qualified} WHERE {where} "
            "ORDER BY Timestamp, TraceId, SpanId")


def extent(source: FleetSource) -> str:
    """How many spans the table holds, and the first and last ``Timestamp`` (ns): read from the
    table's parts without a scan; what tells the desk that something new arrived."""
    return (f"SELECT count() AS spans, toUnixTimestamp64Nano(min(Timestamp)) AS first, "
            f"toUnixTimestamp64Nano(max(Timestamp)) AS last FROM {source.qualified}")


def counts(source: FleetSource, since_ns: int | None = None, until_ns: int | None = None) -> str:
    """Runs and receipts per lane, per sourceVersion and in all, in a time range (``by_source`` and
    ``by_lane`` say which: a lane's row has ``by_lane`` 0, a sourceVersion's ``by_source`` 0, the
    total both 1; a run without a sourceVersion is counted under ``''``). A run counts once in each
    lane it has receipts in (a run naming two scopes is in two) and once in the total."""
    where = RECEIPT + _window(since_ns, until_ns)
    return (f"SELECT {LANE} AS lane, SpanAttributes['{PREFIX}source_version'] AS source, grouping(lane) AS by_lane, "
            f"grouping(source) AS by_source, uniqExact({RUN}) AS runs, count() AS receipts FROM {source.qualified} "
            f"WHERE {where} GROUP BY GROUPING SETS ((lane), (source), ()) ORDER BY by_lane, by_source, lane, source")


def newer(source: FleetSource, after_ns: int) -> str:
    """The runs with a receipt span after ``after_ns`` (what following the clock reads again)."""
    return (f"SELECT DISTINCT {RUN} AS run FROM {source.qualified} "
            f"WHERE {RECEIPT} AND Timestamp > {moment(after_ns)}")
