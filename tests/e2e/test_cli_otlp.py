"""OpenTelemetry both ways through the command line: export as OTLP/JSON, ingest it back, classify.

The OTLP/JSON file is checked with the OpenTelemetry project's own classes (protobuf's
json_format into ``ExportTraceServiceRequest`` after the OTLP/JSON hex ids are turned back
into protobuf's base64), not by our own reader alone.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from fixtures.receipts import NOW_TEXT, eight_cases, receipt, synthetic_lines, to_jsonl
from memorydesk.store import open_workspace


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *args], capture_output=True, text=True,
                          timeout=180, input=stdin)


def workspace(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    open_workspace(path, create=True).close()
    return path


def as_protobuf(line: str) -> ExportTraceServiceRequest:
    body = json.loads(line)
    for resource in body["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId"):
                    span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return ParseDict(body, ExportTraceServiceRequest())


def classify(path: Path) -> list[dict]:
    done = run("lineage", "classify", str(path), "--now", NOW_TEXT, "--json")
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_workspace_to_otlp_json_to_a_fresh_workspace_classifies_every_run_the_same(tmp_path: Path) -> None:
    rows = [row for _, case, _ in eight_cases() for row in case]
    rows += [json.loads(line) for line in synthetic_lines(40, per_run=6)]
    rows.append(receipt("stm", "committed", 22, run="run-int", receiptId="r-int", canary=True, sourcePresent=True,
                        waitingUntil="2025-03-22T12:30:00.123456Z", minutes=-1.5))
    source = write(tmp_path / "in.jsonl", to_jsonl(rows))
    original = workspace(tmp_path, "original.db")
    assert run("lineage", "ingest", str(original), str(source)).returncode == 0

    otlp = tmp_path / "receipts.otlp.json"
    done = run("lineage", "export", str(original), "--format", "otlp-json", "--out", str(otlp))
    assert done.returncode == 0, done.stderr
    lines = otlp.read_text(encoding="utf-8").splitlines()
    requests = [as_protobuf(line) for line in lines]
    spans = [s for r in requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]
    assert len(spans) == len(rows)
    by_run: dict[str, set[bytes]] = {}
    for span in spans:
        attrs = {kv.key: kv.value for kv in span.attributes}
        by_run.setdefault(attrs["memory.lineage.run_id"].string_value, set()).add(span.trace_id)
        assert len(span.trace_id) == 16 and len(span.span_id) == 8
        assert span.start_time_unix_nano == span.end_time_unix_nano
    assert all(len(ids) == 1 for ids in by_run.values())  # each run one trace
    assert len({next(iter(ids)) for ids in by_run.values()}) == len(by_run)
    first = json.loads(lines[0])["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert len(first["traceId"]) == 32 and int(first["traceId"], 16) >= 0  # hex, not base64
    assert first["kind"] == 3  # enums as integers (3: client, the conventions' kind of a memory operation)

    odd = next(s for s in spans if any(kv.key == "memory.lineage.receipt_id" and kv.value.string_value == "r-int"
                                      for kv in s.attributes))
    attrs = {kv.key: kv.value for kv in odd.attributes}
    assert attrs["gen_ai.memory.record.id"].string_value == "22"
    assert attrs["memory.lineage.canary"].bool_value is True
    assert attrs["memory.lineage.source_present"].bool_value is True
    assert attrs["memory.lineage.waiting_until"].string_value == "2025-03-22T12:30:00.123456Z"
    assert odd.start_time_unix_nano == 1742644710 * 10**9  # 11:58:30Z exactly

    fresh = workspace(tmp_path, "fresh.db")
    done = run("lineage", "ingest", str(fresh), str(otlp))
    assert done.returncode == 0, done.stderr
    assert f"stored {len(rows)} receipts" in done.stdout
    assert classify(fresh) == classify(original)
    states = {v["runId"]: v["state"] for v in classify(fresh)}
    assert {run_id: states[run_id] for run_id, _, _ in eight_cases()} == {r: s for r, _, s in eight_cases()}

    again = run("lineage", "ingest", str(fresh), str(otlp))
    assert again.returncode == 0 and f"skipped {len(rows)} already stored" in again.stdout


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_export_jsonl_to_stdout_matches_the_stored_receipts(tmp_path: Path) -> None:
    rows = [row for _, case, _ in eight_cases() for row in case]
    ws = workspace(tmp_path, "ws.db")
    assert run("lineage", "ingest", str(ws), str(write(tmp_path / "in.jsonl", to_jsonl(rows)))).returncode == 0
    done = run("lineage", "export", str(ws))
    assert done.returncode == 0, done.stderr
    exported = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["runId"], r["tier"], r["status"], r["atUtc"]) for r in exported] == \
        [(r["runId"], r["tier"], r["status"], r["atUtc"]) for r in rows]


def test_a_bad_otlp_line_is_named_and_nothing_is_stored(tmp_path: Path) -> None:
    good = {"key": "memory.lineage.run_id", "value": {"stringValue": "run-x"}}
    span = {"traceId": "0" * 31 + "1", "spanId": "0" * 15 + "1", "startTimeUnixNano": "1742644800000000000",
            "attributes": [good] + [{"key": f"memory.lineage.{k}", "value": {"stringValue": v}}
                                    for k, v in (("user_scope", "u"), ("assistant_scope", "a"), ("tier", "stm"),
                                                 ("status", "committed"), ("version", "v1"))]}
    content = dict(span, attributes=span["attributes"] + [
        {"key": "memory.lineage.user_input", "value": {"stringValue": "my secret"}}])
    lines = [{"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]},
             {"resourceSpans": [{"scopeSpans": [{"spans": [span, content]}]}]}]
    path = write(tmp_path / "bad.json", "".join(json.dumps(line) + "\n" for line in lines))
    ws = workspace(tmp_path, "ws.db")
    done = run("lineage", "ingest", str(ws), str(path))
    assert done.returncode == 2
    assert "line 2: span 2: unknown attribute 'memory.lineage.user_input'" in done.stderr
    assert "Traceback" not in done.stderr
    export = run("lineage", "export", str(ws))
    assert export.returncode == 0 and export.stdout == ""


def test_otlp_logs_and_a_pretty_printed_request_are_read_and_the_start_time_stands_in(tmp_path: Path) -> None:
    attrs = [{"key": f"memory.lineage.{k}", "value": {"stringValue": v}}
             for k, v in (("run_id", "run-log"), ("user_scope", "u"), ("assistant_scope", "a"), ("tier", "stm"),
                          ("status", "committed"), ("version", "v1"), ("source_version", "x 1"))]
    logs = {"resourceLogs": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "s"}}]},
                              "scopeLogs": [{"logRecords": [
                                  {"timeUnixNano": "1742644800000000000", "attributes": attrs,
                                   "body": {"stringValue": "not read"}},
                                  {"timeUnixNano": "1742644800000000000",
                                   "attributes": [{"key": "http.method", "value": {"stringValue": "GET"}}]}]}]}]}
    path = write(tmp_path / "logs.json", json.dumps(logs, indent=2))
    done = run("lineage", "classify", str(path), "--now", NOW_TEXT, "--json")
    assert done.returncode == 1, done.stderr  # promotion_missing: one stm receipt, no window
    verdict = json.loads(done.stdout)
    assert [v["runId"] for v in verdict] == ["run-log"]
    assert "2025-03-22T12:00:00Z" in verdict[0]["reason"]  # the record's time became atUtc
