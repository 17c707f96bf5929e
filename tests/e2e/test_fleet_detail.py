"""A run's receipts out of the Collector exporter's table, on chDB: through the exporter's trace-id
lookup table when the spans carry the trace id the desk derives from the runId (as the desk's
adapter sink and exports write them), by the runId attribute otherwise (a table without the lookup,
spans another writer gave trace ids of its own) — the same receipts either way."""

from __future__ import annotations

from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider

from fixtures.clickhouse_traces import ChdbTarget, exporter_row, sdk_spans_of
from fixtures.otlp_sdk import _Keep
from fixtures.receipts import eight_cases
from memorydesk.core.receipts import receipt_from_json
from memorydesk.lineage.adapters.sinks import OtelSink
from memorydesk.lineage.fleet import layout, queries
from memorydesk.lineage.fleet.read import run_receipts
from memorydesk.lineage.fleet.source import parse_source
from memorydesk.lineage.otlp import span_id, trace_id


def cases():
    return [receipt_from_json(r, line=n) for n, r in enumerate((r for _, c, _ in eight_cases() for r in c), 1)]


def test_the_adapter_sinks_spans_carry_the_ids_derived_from_the_receipt_and_link_the_callers_trace() -> None:
    receipts = cases()
    keep = _Keep()
    sink = OtelSink(exporter=keep)
    caller = TracerProvider().get_tracer("agent")
    with caller.start_as_current_span("answer a question") as outer:
        sink.write(receipts[0])
    for receipt in receipts[1:]:
        sink.write(receipt)
    sink.close()
    assert [s.context.trace_id for s in keep.spans] == [int.from_bytes(trace_id(r.run_id)) for r in receipts]
    assert [s.context.span_id for s in keep.spans] == [int.from_bytes(span_id(r)) for r in receipts]
    assert all(s.parent is None for s in keep.spans)  # each run its own trace, not the caller's
    assert [link.context.span_id for link in keep.spans[0].links] == [outer.get_span_context().span_id]
    assert not keep.spans[1].links


def test_a_runs_receipts_by_its_trace_or_by_its_run_id_are_the_same(tmp_path: Path) -> None:
    receipts = cases()
    rows = [exporter_row(span) for span in sdk_spans_of(receipts)]
    other = sorted({r.run_id for r in receipts})[0]  # this run's spans written by a writer with its own ids
    for row in rows:
        if row["SpanAttributes"]["memory.lineage.run_id"] == other:
            row["TraceId"] = "0123456789abcdef" + row["SpanId"]
    folder = tmp_path / "clickhouse"
    folder.mkdir()
    with_lookup, without = ChdbTarget(folder), ChdbTarget(folder)
    with_lookup.write(rows)
    without.write(rows, lookup=False)
    runs = sorted({r.run_id for r in receipts})
    found = {}
    for target in (with_lookup, without):
        with parse_source(target.name).open() as engine:
            layout.check(engine)
            assert engine.lookup is (target is with_lookup)
            found[target] = {run: sorted((r.at_utc, r.line or 0, r.tier, r.status) for r in run_receipts(engine, run))
                             for run in runs}
            if engine.lookup:  # the lookup table knows the derived traces, not the other writer's
                for run in runs:
                    span = engine.arrow(queries.trace_span(engine.source, trace_id(run).hex())).to_pylist()
                    assert bool(span) is (run != other), run
    want = {run: sorted((r.at_utc, r.line or 0, r.tier, r.status) for r in receipts if r.run_id == run)
            for run in runs}
    assert found[with_lookup] == want and found[without] == want
