"""``lineage export --format otlp-json`` read against the GenAI memory conventions' own YAML facts
(tests/fixtures/genai_memory_conventions.py names its source), and spans that carry only the
conventions' names, from the real OpenTelemetry SDK, read as derived receipts that are never healthy
and never keep content."""

from __future__ import annotations

import json
from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import SpanKind, Status, StatusCode
from test_cli_otlp import as_protobuf, run, workspace

from fixtures import genai_memory_conventions as conventions
from fixtures.receipts import eight_cases, to_jsonl
from memorydesk.lineage.otlp_proto import receipts_from_traces

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "receipts.jsonl"


def _value(any_value):
    return getattr(any_value, any_value.WhichOneof("value"))


def test_every_exported_memory_span_carries_what_the_conventions_require(tmp_path: Path) -> None:
    source = tmp_path / "cases.jsonl"
    source.write_text(EXAMPLE.read_text(encoding="utf-8") + to_jsonl(
        row for _, case, _ in eight_cases() for row in case), encoding="utf-8")
    ws = workspace(tmp_path, "ws.db")
    assert run("lineage", "ingest", str(ws), str(source)).returncode == 0
    done = run("lineage", "export", str(ws), "--format", "otlp-json")
    assert done.returncode == 0, done.stderr
    requests = [as_protobuf(line) for line in done.stdout.splitlines()]
    schema = f"https://opentelemetry.io/schemas/{conventions.SCHEMA_VERSION}"
    operations: dict[str, int] = {}
    spans = 0
    for request in requests:
        for resource in request.resource_spans:
            assert resource.schema_url == schema
            for scope in resource.scope_spans:
                assert scope.schema_url == schema
                for span in scope.spans:
                    spans += 1
                    attrs = {kv.key: _value(kv.value) for kv in span.attributes}
                    assert not set(conventions.CONTENT) & attrs.keys()
                    assert "memory.lineage.run_id" in attrs
                    operation = attrs.get("gen_ai.operation.name")
                    if operation is None:  # a generation: no memory operation
                        assert attrs["gen_ai.memory.store.id"].endswith("/generation")
                        continue
                    operations[operation] = operations.get(operation, 0) + 1
                    rules = conventions.SPANS[operation]
                    assert span.kind == 3  # SPAN_KIND_CLIENT
                    assert span.name == rules["name"].replace("{gen_ai.memory.store.id}",
                                                              attrs["gen_ai.memory.store.id"])
                    failed = attrs["memory.lineage.status"] == "failed"
                    for name, level in rules["attributes"].items():
                        required = (level == "required"
                                    or (name == "error.type" and failed)
                                    or name == "gen_ai.memory.store.id"  # always applicable: scope and tier
                                    or name == "gen_ai.memory.record.id")  # each receipt names one version
                        if required:
                            assert name in attrs, (operation, name)
                        if name in attrs:
                            assert conventions.TYPES[name] == "string" and isinstance(attrs[name], str)
                    assert ("error.type" in attrs) == failed
    assert spans == sum(1 for line in source.read_text().splitlines() if line.strip())
    assert set(operations) == {"update_memory", "delete_memory", "search_memory"}
    assert set(operations) <= set(conventions.MEMORY_OPERATIONS)


def _standard_spans() -> list:
    """Spans a memory system's own instrumentation would make: the conventions' names, content included."""
    from fixtures.otlp_sdk import _Keep

    keep = _Keep()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(keep))
    tracer = provider.get_tracer("mem0-instrumentation")
    with tracer.start_as_current_span("invoke_agent support-bot"):
        records = '[{"content": "User is based in Seattle"}]'
        for operation, extra in [("update_memory", {"gen_ai.memory.record.id": "mem_1",
                                                    "gen_ai.memory.records": records}),
                                 ("search_memory", {"gen_ai.memory.query.text": "where does the user live"}),
                                 ("delete_memory", {"gen_ai.memory.record.id": "mem_1"}),
                                 ("create_memory_store", {})]:
            with tracer.start_as_current_span(f"{operation} user-preferences", kind=SpanKind.CLIENT,
                                              attributes={"gen_ai.operation.name": operation,
                                                          "gen_ai.provider.name": "mem0",
                                                          "gen_ai.memory.store.id": "user-preferences",
                                                          **extra}) as span:
                if operation == "delete_memory":
                    span.set_attribute("error.type", "NotFound")
                    span.set_status(Status(StatusCode.ERROR))
    provider.shutdown()
    return keep.spans


def test_spans_with_only_the_conventions_names_are_derived_receipts_never_healthy_and_without_content() -> None:
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    from memorydesk.core.health.scalar import classify

    spans = _standard_spans()
    records = receipts_from_traces(encode_spans(spans))
    receipts = records.receipts
    assert records.ignored == 2  # the agent's own span and the store's creation are no receipts
    assert [(r.tier, r.status, r.version) for r in receipts] == [
        ("lpm", "committed", "mem_1"), ("retrieval", "started", "(unstated)"), ("lpm", "failed", "mem_1")]
    trace = format(spans[0].context.trace_id, "032x")
    assert {r.run_id for r in receipts} == {f"trace:{trace}"}
    assert all(r.source_version is None and r.user_scope == "(unstated)" for r in receipts)
    text = json.dumps([r.to_json() for r in receipts])
    assert "Seattle" not in text and "where does the user live" not in text
    assert [r.extensions["x-gen_ai.operation.name"] for r in receipts] == [
        "update_memory", "search_memory", "delete_memory"]
    for now in (receipts[-1].at_utc, receipts[-1].at_utc.replace(year=2100)):
        (verdict,) = classify(receipts, now=now)
        assert verdict.state == "uncertain" and not verdict.ok
