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

from memorydesk.core.health.arrays import to_us
from memorydesk.core.receipts import Receipt, gc_paused
from memorydesk.lineage import runs as run_tables
from memorydesk.lineage.fleet import layout, queries
from memorydesk.lineage.fleet.source import Engine, FleetSource
from memorydesk.lineage.otlp import TYPED_KEYS, ReceiptRecords, typed_value
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
class Counts:
    """Runs and receipts per lane and per sourceVersion, counted by the engine."""

    lanes: dict[str, tuple[int, int]]  # "userScope / assistantScope" → (runs, receipts)
    sources: dict[str, tuple[int, int]]  # sourceVersion ('' unstated) → (runs, receipts)
    runs: int = 0  # distinct runs in all (a run with receipts in two lanes is counted in both lanes, once here)
    receipts: int = 0


def extent(engine: Engine) -> Extent:
    (row,) = engine.arrow(queries.extent(engine.source)).to_pylist()
    return Extent(int(row["spans"]), int(row["first"] or 0) // 1000, int(row["last"] or 0) // 1000)


def counts(engine: Engine, since_us: int | None = None, until_us: int | None = None) -> Counts:
    rows = engine.arrow(queries.counts(engine.source, _ns(since_us), _ns(until_us))).to_pylist()
    lanes, sources, runs, receipts = {}, {}, 0, 0
    for row in rows:  # one pass of the engine, grouped three ways
        counted = (int(row["runs"]), int(row["receipts"]))
        if not row["by_source"]:
            sources[row["source"]] = counted
        elif not row["by_lane"]:
            lanes[row["lane"]] = counted
        else:
            runs, receipts = counted
    return Counts(lanes, sources, runs, receipts)


def _ns(us: int | None) -> int | None:
    return None if us is None else us * 1000


@dataclass
class Window:
    """What the tab read: the runs with a receipt in ``[since_us, until_us]`` (each with its receipts
    up to :data:`LOOKAROUND_US` either side), the source's extent and the engine's counts."""

    table: run_tables.RunTable
    since_us: int
    until_us: int
    extent: Extent
    counts: Counts
    scope: str = ""


def read_window(source: FleetSource, since_us: int | None, until_us: int | None, scope: str = "",
                span_us: int = 3_600_000_000, keep: bool = False, engine: Engine | None = None) -> Any:
    """The runs in a time window (default: the last ``span_us`` of the source), judged by the one
    classifier, with the engine's counts for the window; with ``keep``, (the window, its receipts).
    Through ``engine`` when one is open (its table checked already)."""
    if engine is None:
        with source.open() as opened:
            layout.check(opened)
            return read_window(source, since_us, until_us, scope, span_us, keep, opened)
    ext = extent(engine)
    until = ext.last_us if until_us is None else until_us
    since = until - span_us if since_us is None else since_us
    rows = engine.arrow(queries.receipts(source, (since - LOOKAROUND_US) * 1000, (until + LOOKAROUND_US) * 1000,
                                         scope=scope))
    tally = counts(engine, since, until)
    receipts = receipts_of(rows)
    inside = {r.run_id for r in receipts if since <= to_us(r.at_utc) <= until}
    mine = [r for r in receipts if r.run_id in inside]
    window = Window(run_tables.table_of(mine), since, until, ext, tally, scope)
    return (window, mine) if keep else window


def read_detail(source: FleetSource, run_id: str, now: datetime, fresh_for: timedelta,
                engine: Engine | None = None) -> RunDetail | None:
    """One run explained from all its receipts in the source (None: none at or before ``now``)."""
    receipts = [r for r in read_receipts(source, run_id=run_id, engine=engine) if r.at_utc <= now]
    return explain(receipts, now, fresh_for) if receipts else None

