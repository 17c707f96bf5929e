"""``memory-desk lineage ingest chdb:PATH FILE``: an operator fills a ClickHouse data directory with
receipts written as the Collector's exporter writes them, and the directory's receipts are judged
exactly as the file's; the same file again adds nothing; a server is not written to."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memorydesk.demo import lineage as demo
from memorydesk.lineage.jsonl import dump_jsonl
from memorydesk.lineage.otlp_proto import write_otlp_json

pytest.importorskip("chdb")
END = datetime(2026, 11, 20, 12, tzinfo=UTC)


def desk(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memorydesk", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})


def test_an_operator_fills_a_chdb_directory_from_a_receipts_file(tmp_path: Path) -> None:
    receipts = [r for r in demo.history(3, END) if r.at_utc >= END - timedelta(days=3)]
    jsonl = tmp_path / "receipts.jsonl"
    jsonl.write_text(dump_jsonl(receipts), encoding="utf-8")
    otlp = tmp_path / "receipts.otlp.json"  # what `lineage export --format otlp-json` writes
    with otlp.open("w", encoding="utf-8") as stream:
        write_otlp_json(receipts, stream)
    folder = tmp_path / "receipts"
    folder.mkdir()
    runs = len({r.run_id for r in receipts})

    done = desk("lineage", "ingest", f"chdb:{folder}", str(otlp))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"stored {len(receipts)} receipts of {runs} runs in chdb:{folder.resolve()} " \
                          "(default.otel_traces)\n"
    now = (END - timedelta(hours=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    from_dir = desk("lineage", "classify", f"chdb:{folder}", "--now", now, "--json")
    from_file = desk("lineage", "classify", str(jsonl), "--now", now, "--json")
    assert from_dir.returncode == from_file.returncode and from_dir.stdout == from_file.stdout
    assert from_file.stdout.count("runId") > 10

    again = desk("lineage", "ingest", f"chdb:{folder}", str(otlp))
    assert again.returncode == 0
    assert again.stdout.endswith(f"stored 0 receipts of {runs} runs in chdb:{folder.resolve()} (default.otel_traces)"
                                 f"; skipped {len(receipts)} already there (the same span)\n")

    server = desk("lineage", "ingest", "clickhouse://127.0.0.1:9/otel", str(jsonl))
    assert server.returncode == 2 and "the desk only reads a ClickHouse server" in server.stderr
    assert "Traceback" not in server.stderr
