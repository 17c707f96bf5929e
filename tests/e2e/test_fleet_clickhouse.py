"""A fleet's receipts in the Collector exporter's ``otel_traces`` table, read by the desk on the real
engine: chDB here, and the ClickHouse server ``MEMORY_DESK_TEST_CLICKHOUSE`` names where one is
reachable (tests/fixtures/clickhouse_traces.py). Receipts are judged exactly as the same receipts
ingested into a workspace; a source that is missing, unreachable, hung, of another shape or too slow
gets one sentence and exit 2."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from fixtures.clickhouse_traces import SERVER_ENV, ChdbTarget, ServerTarget, exporter_row, sdk_spans_of
from fixtures.receipts import NOW_TEXT, eight_cases, to_jsonl
from memorydesk.core.errors import BadInput
from memorydesk.core.receipt_codes import to_us
from memorydesk.core.receipts import parse_utc
from memorydesk.lineage import run_reads as run_tables
from memorydesk.lineage.fleet.read import read_receipts, read_window, state_counts
from memorydesk.lineage.fleet.source import FleetSource, parse_source
from memorydesk.lineage.jsonl import parse_jsonl
from memorydesk.store import open_workspace

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "receipts.jsonl"
#: times to judge at: the example's (2099) and the classifier's cases' (2025), each before and after
MOMENTS = ("2099-12-31T10:00:00Z", "2099-12-31T09:05:00Z", NOW_TEXT, "2025-03-22T11:40:00Z")


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *args], capture_output=True, text=True, timeout=180,
                          env=env)


def targets() -> list:
    out = [pytest.param("chdb", id="chdb")]
    if os.environ.get(SERVER_ENV):
        out.append(pytest.param("server", id="server"))
    return out


@pytest.fixture(params=targets())
def target(request, tmp_path: Path):
    if request.param == "chdb":
        yield ChdbTarget(tmp_path / "clickhouse")
        return
    server = ServerTarget(os.environ[SERVER_ENV])
    yield server
    server.drop()


def cases_text() -> str:
    return EXAMPLE.read_text(encoding="utf-8") + to_jsonl(row for _, case, _ in eight_cases() for row in case)


def test_a_fleets_receipts_are_judged_exactly_as_the_same_receipts_in_a_workspace(target, tmp_path: Path) -> None:
    receipts = parse_jsonl(cases_text())
    (tmp_path / "clickhouse").mkdir(exist_ok=True)
    target.write([exporter_row(span) for span in sdk_spans_of(receipts)])
    source = tmp_path / "cases.jsonl"
    source.write_text(cases_text(), encoding="utf-8")
    ws = tmp_path / "ws.db"
    open_workspace(ws, create=True).close()
    assert run("lineage", "ingest", str(ws), str(source)).returncode == 0
    runs_seen = set()
    for now in MOMENTS:
        fleet = run("lineage", "classify", target.name, "--now", now, "--json")
        local = run("lineage", "classify", str(ws), "--now", now, "--json")
        assert fleet.returncode == local.returncode and fleet.returncode in (0, 1), fleet.stderr
        assert json.loads(fleet.stdout) == json.loads(local.stdout)
        runs_seen |= {v["runId"] for v in json.loads(fleet.stdout)}
    assert runs_seen == {r.run_id for r in receipts}  # every case judged at some moment
    states = {v["runId"]: v["state"] for v in json.loads(run("lineage", "classify", target.name, "--now", NOW_TEXT,
                                                             "--json").stdout)}
    assert {r: states[r] for r, _, _ in eight_cases()} == {r: s for r, _, s in eight_cases()}

    # the Lineage tab's read of the source: its runs judged by the one classifier as the workspace's are
    window = read_window(parse_source(target.name), None, None, span_us=200 * 365 * 24 * 3_600_000_000)
    with open_workspace(ws, read_only=True) as opened:
        stored = run_tables.load_runs(opened)
    assert sorted(window.table.run_ids) == sorted(stored.run_ids)
    for now in MOMENTS:
        now_us = to_us(parse_utc(now))
        if now_us < int(stored.end.max()):
            continue  # an earlier moment cuts runs: the command line above compares those
        mine = dict(zip(window.table.run_ids, window.table.states_at(now_us, 86_400_000_000).tolist()))
        theirs = dict(zip(stored.run_ids, stored.states_at(now_us, 86_400_000_000).tolist()))
        assert mine == theirs
    by_lane: dict[str, set[str]] = {}
    by_source: dict[str, set[str]] = {}
    for r in receipts:  # the engine's counts, counted here from the receipts themselves
        by_lane.setdefault(f"{r.user_scope} / {r.assistant_scope}", set()).add(r.run_id)
        by_source.setdefault(r.source_version or "", set()).add(r.run_id)
    now_us = int(stored.end.max())
    with parse_source(target.name).open() as engine:  # the engine's counts per state of the same window
        counted = state_counts(engine, window.since_us, window.until_us, now_us, 86_400_000_000)
    per_lane: dict[str, int] = {}
    per_source: dict[str, int] = {}
    for (lane, _state), n in counted.lanes.items():
        per_lane[lane] = per_lane.get(lane, 0) + n
    for (version, _state), n in counted.sources.items():
        per_source[version] = per_source.get(version, 0) + n
    assert per_lane == {k: len(v) for k, v in by_lane.items()}
    assert per_source == {k: len(v) for k, v in by_source.items()}
    drawn = Counter(window.table.states_at(now_us, 86_400_000_000).tolist())
    assert {state.rule: n for state, n in counted.states.items()} == drawn and len(drawn) > 3
    # in all, each run once: a run naming two scopes has receipts in two lanes but is one run
    assert sum(counted.states.values()) == len({r.run_id for r in receipts}) < sum(len(v) for v in by_lane.values())
    assert window.extent.spans == len(receipts)


def test_content_never_leaves_the_engine_and_other_systems_spans_are_never_healthy(target, tmp_path: Path) -> None:
    (tmp_path / "clickhouse").mkdir(exist_ok=True)
    receipts = parse_jsonl(to_jsonl(eight_cases()[0][1]))
    other = [{"gen_ai.operation.name": "search_memory", "gen_ai.provider.name": "mem0",
              "gen_ai.memory.store.id": "prefs", "gen_ai.memory.query.text": "where does Ana live"},
             {"gen_ai.operation.name": "update_memory", "gen_ai.provider.name": "mem0",
              "gen_ai.memory.store.id": "prefs", "gen_ai.memory.record.id": "mem_9",
              "gen_ai.memory.records": '[{"content": "Ana lives in Porto"}]'}]
    target.write([exporter_row(span) for span in sdk_spans_of(receipts, other)])
    got = read_receipts(parse_source(target.name))
    text = json.dumps([r.to_json() for r in got])
    assert "Porto" not in text and "where does Ana live" not in text
    derived = [r for r in got if r.run_id.startswith("trace:")]
    assert sorted((r.tier, r.status) for r in derived) == [("lpm", "committed"), ("retrieval", "started")]
    verdicts = json.loads(run("lineage", "classify", target.name, "--now", "2100-01-01T00:00:00Z", "--json").stdout)
    assert {v["state"] for v in verdicts if v["runId"].startswith("trace:")} == {"uncertain"}


def test_a_table_of_another_shape_or_none_is_said_in_one_sentence(tmp_path: Path) -> None:
    folder = tmp_path / "clickhouse"
    folder.mkdir()
    target = ChdbTarget(folder)
    target.run(f"CREATE DATABASE {target.database}",
               f"CREATE TABLE {target.database}.otel_traces (Timestamp DateTime, TraceId String, SpanId String, "
               "SpanAttributes Map(String, String)) ENGINE = MergeTree ORDER BY Timestamp")
    done = run("lineage", "classify", target.name)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "is not the OpenTelemetry Collector exporter's traces table (column Timestamp is DateTime" in done.stderr
    done = run("lineage", "classify", f"chdb:{folder}?database={target.database}&table=otel_logs")
    assert done.returncode == 2 and f"there is no table {target.database}.otel_logs" in done.stderr
    done = run("lineage", "classify", f"chdb:{folder}?database=nowhere")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "nowhere" in done.stderr
    done = run("lineage", "classify", f"chdb:{tmp_path / 'absent'}")
    assert done.returncode == 2 and "is not a directory" in done.stderr


def test_an_unreachable_or_hung_server_is_said_in_one_sentence_and_nothing_hangs(tmp_path: Path) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    done = run("lineage", "classify", f"clickhouse://127.0.0.1:{port}")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "the server cannot be reached" in done.stderr

    # a server that takes the connection and never answers (stands in for a hung one)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        silent.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(silent.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        source = FleetSource("clickhouse", host="127.0.0.1", port=silent.getsockname()[1], query_seconds=1)
        with pytest.raises(BadInput) as caught:
            read_receipts(source)
        assert "127.0.0.1" in str(caught.value) and "\n" not in str(caught.value)
    finally:
        stop.set()
        thread.join()
        for s in held:
            s.close()
        silent.close()


def test_a_query_past_its_time_is_stopped_and_said(tmp_path: Path) -> None:
    folder = tmp_path / "clickhouse"
    folder.mkdir()
    source = FleetSource("chdb", path=str(folder), query_seconds=1)
    with source.open() as engine, pytest.raises(BadInput, match="the query ran out of its 1 s"):
        engine.arrow("SELECT sleepEachRow(0.5) FROM numbers(20)")


def test_without_the_fleet_packages_one_sentence_says_what_to_install(tmp_path: Path) -> None:
    folder = tmp_path / "clickhouse"
    folder.mkdir()
    code = ("import sys; sys.modules['chdb'] = None; sys.modules['clickhouse_connect'] = None; "
            "from memorydesk.cli import main; raise SystemExit(main(sys.argv[1:]))")
    for name in (f"chdb:{folder}", "clickhouse://127.0.0.1:9"):
        done = subprocess.run([sys.executable, "-c", code, "lineage", "classify", name], capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "pip install 'memory-desk[fleet]'" in done.stderr


@pytest.mark.slow
def test_shot_draws_the_lineage_tab_of_a_source_or_says_why_not(tmp_path: Path) -> None:
    folder = tmp_path / "clickhouse"
    folder.mkdir()
    target = ChdbTarget(folder)
    receipts = parse_jsonl(cases_text())
    target.write([exporter_row(span) for span in sdk_spans_of(receipts)])
    ws = tmp_path / "ws.db"
    open_workspace(ws, create=True).close()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = tmp_path / "fleet.png"
    done = run("shot", str(ws), "--tab", "lineage", "--receipts", target.name, "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 10_000 and "lineage tab" in done.stdout
    done = run("shot", str(ws), "--tab", "lineage", "--receipts", f"chdb:{folder}?database=nowhere",
               "--out", str(tmp_path / "no.png"), env=env)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "nowhere" in done.stderr
    assert not (tmp_path / "no.png").exists()
    done = run("shot", str(ws), "--tab", "facts", "--receipts", target.name, "--out", str(out), env=env)
    assert done.returncode == 2 and "--receipts needs --tab lineage" in done.stderr


def test_a_directory_another_process_holds_is_one_sentence_and_nothing_else(tmp_path: Path) -> None:
    """The operator's finding: while the window held the directory, ``lineage classify chdb:…`` printed
    chDB's own ``Code: 76. DB::Exception: Cannot lock file …`` line before the desk's sentence; the
    contract is one line starting ``memory-desk:``."""
    pytest.importorskip("chdb")
    folder = tmp_path / "clickhouse"
    folder.mkdir()
    target = ChdbTarget(folder)
    target.write([exporter_row(span) for span in sdk_spans_of(parse_jsonl(to_jsonl(eight_cases()[0][1])))])
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom chdb import session\n"
                               "s = session.Session(sys.argv[1])\nprint('holding', flush=True)\ntime.sleep(120)",
                               str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        done = run("lineage", "classify", target.name)
    finally:
        holder.kill()
        holder.wait(timeout=30)
        if holder.stdout is not None:
            holder.stdout.close()
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"memory-desk: chdb:{folder} is open in another process (chDB opens a data "
                                        "directory in one process at a time)"], done.stderr
