"""Receipts out of a ClickHouse source: as objects (the command line, a run's detail) and as the
Lineage tab's run table for the time in view.

Rows come back as Arrow columns (``t`` ns, ``trace``, ``span``, ``a`` the receipt attributes as
text) and are read by the one mapping every OTLP path uses (:func:`memorydesk.lineage.otlp.
receipt_from_attributes`), each value first turned back into the type the exporter wrote as text
(:func:`~memorydesk.lineage.otlp.typed_value`). A row that claims to be a receipt and breaks the
contract stops the read with one sentence naming its trace and span, as a bad line stops a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from memorydesk.core.health.table import HealthState
from memorydesk.core.receipts import Receipt, gc_paused
from memorydesk.lineage import runs as run_tables
from memorydesk.lineage.fleet import layout, queries
from memorydesk.lineage.fleet.source import Engine, FleetSource
from memorydesk.lineage.otlp import TYPED_KEYS, ReceiptRecords, trace_id, typed_value
from memorydesk.lineage.run_detail import RunDetail, explain

#: the tab reads each run's receipts up to this far outside the time in view
LOOKAROUND_US: Final = 3_600_000_000



def receipts_of(table: Any) -> list[Receipt]:
    """The receipts of rows a :mod:`queries` receipts query returned (an Arrow table)."""
    records = ReceiptRecords()
    times, traces, spans = (table.column(n).to_pylist() for n in ("t", "trace", "span"))
    keys = queries.KNOWN
    typed = [k in TYPED_KEYS for k in keys]
    columns = [table.column(f"c{i}").to_pylist() for i in range(len(keys))]
    others = table.column("others")
    odd = {i for i, n in enumerate(table.column("odd").to_pylist()) if n}
    with gc_paused():
        for i, row in enumerate(zip(*columns, strict=True)):
            pairs = [(k, typed_value(k, v) if t else v) for k, t, v in zip(keys, typed, row) if v is not None]
            if i in odd:  # an attribute the contract does not know: read as any span, to be refused by name
                pairs += others[i].as_py()
            records.add(pairs, times[i], f"span {traces[i]}/{spans[i]}", traces[i] or None, spans[i] or None)
    return records.receipts


def read_receipts(source: FleetSource, since_ns: int | None = None, until_ns: int | None = None,
                  run_id: str | None = None, scope: str = "", engine: Engine | None = None) -> list[Receipt]:
    """Every receipt of the source (or of a time range, a run, lanes matching ``scope``), oldest first;
    through ``engine`` when one is open (its table checked already), else a connection of its own."""
    if engine is not None:
        return receipts_of(engine.arrow(queries.receipts(source, since_ns, until_ns, run_id, scope)))
    with source.open() as opened:
        layout.check(opened)
        return receipts_of(opened.arrow(queries.receipts(source, since_ns, until_ns, run_id, scope)))


@dataclass(frozen=True)
class Extent:
    spans: int  # every span of the table, receipts or not
    first_us: int
    last_us: int


@dataclass(frozen=True)
class StateCounts:
    """Runs per state, per lane and state, per sourceVersion and state, judged by the engine
    (``queries.state_counts``); a run is counted under each lane and sourceVersion it has."""

    states: dict[HealthState, int]
    lanes: dict[tuple[str, HealthState], int]  # ("userScope / assistantScope", state) → runs
    sources: dict[tuple[str, HealthState], int]  # (sourceVersion, '' unstated; state) → runs


def extent(engine: Engine) -> Extent:
    (row,) = engine.arrow(queries.extent(engine.source)).to_pylist()
    return Extent(int(row["spans"]), int(row["first"] or 0) // 1000, int(row["last"] or 0) // 1000)


def state_counts(engine: Engine, since_us: int, until_us: int, now_us: int, fresh_us: int,
                 scope: str = "") -> StateCounts:
    """The engine's counts per state of the runs with a receipt from ``since_us`` to ``until_us``, judged
    at ``now_us`` on their receipts up to :data:`LOOKAROUND_US` either side (what :func:`read_window`
    reads)."""
    sql = queries.state_counts(engine.source, since_us * 1000, until_us * 1000, now_us, fresh_us,
                               LOOKAROUND_US * 1000, scope)
    out: dict[str, dict] = {"state": {}, "lane": {}, "source": {}}
    for row in engine.arrow(sql).to_pylist():
        state = HealthState.of_rule(int(row["state"]))
        key = state if row["kind"] == "state" else (row["name"], state)
        out[row["kind"]][key] = int(row["runs"])
    return StateCounts(out["state"], out["lane"], out["source"])


def _ns(us: int | None) -> int | None:
    return None if us is None else us * 1000


@dataclass
class Window:
    """What the tab read: the runs with a receipt in ``[since_us, until_us]`` (each with its receipts
    up to :data:`LOOKAROUND_US` either side) and the source's extent; the engine's counts per state
    are read after (:func:`state_counts`), so they do not hold up the first frame."""

    table: run_tables.RunTable
    since_us: int
    until_us: int
    extent: Extent
    scope: str = ""


def read_window(source: FleetSource, since_us: int | None, until_us: int | None, scope: str = "",
                span_us: int = 3_600_000_000, keep: bool = False, engine: Engine | None = None) -> Any:
    """The runs in a time window (default: the last ``span_us`` of the source), judged by the one
    classifier; with ``keep``, (the window, its receipts).
    Through ``engine`` when one is open (its table checked already)."""
    if engine is None:
        with source.open() as opened:
            layout.check(opened)
            return read_window(source, since_us, until_us, scope, span_us, keep, opened)
    ext = extent(engine)
    until = ext.last_us if until_us is None else until_us
    since = until - span_us if since_us is None else since_us
    rows = engine.arrow(queries.receipts(source, (since - LOOKAROUND_US) * 1000, (until + LOOKAROUND_US) * 1000,
                                         scope=scope, inside_us=(since, until)))
    mine = receipts_of(rows)
    window = Window(run_tables.table_of(mine), since, until, ext, scope)
    return (window, mine) if keep else window


def run_receipts(engine: Engine, run_id: str) -> list[Receipt]:
    """Every receipt of one run. Through the exporter's trace-id lookup table when it is there and
    knows the trace the desk derives from the runId (:func:`~memorydesk.lineage.otlp.trace_id`: the
    desk's exports and adapters write it): that trace's spans in the seconds it spans; otherwise (spans
    another system wrote with trace ids of its own) by the runId attribute, over the whole table."""
    if engine.lookup:
        trace = run_id[len("trace:"):] if run_id.startswith("trace:") else trace_id(run_id).hex()
        found = engine.arrow(queries.trace_span(engine.source, trace)).to_pylist()
        if found:
            first, last = (int(found[0]["first"]) * 1_000_000_000, (int(found[0]["last"]) + 1) * 1_000_000_000)
            receipts = receipts_of(engine.arrow(queries.receipts(engine.source, first, last, run_id, trace=trace)))
            if receipts:
                return receipts
    return receipts_of(engine.arrow(queries.receipts(engine.source, run_id=run_id)))


def read_detail(source: FleetSource, run_id: str, now: datetime, fresh_for: timedelta,
                engine: Engine | None = None) -> RunDetail | None:
    """One run explained from all its receipts in the source (None: none at or before ``now``)."""
    if engine is None:
        with source.open() as opened:
            layout.check(opened)
            return read_detail(source, run_id, now, fresh_for, opened)
    receipts = [r for r in run_receipts(engine, run_id) if r.at_utc <= now]
    return explain(receipts, now, fresh_for) if receipts else None

