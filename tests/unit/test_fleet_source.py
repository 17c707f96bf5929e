"""Naming a ClickHouse receipts source: what each part of the name sets, and a wrong name in one
sentence (no engine is needed to tell)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memorydesk.core.errors import BadInput
from memorydesk.lineage.fleet.queries import text
from memorydesk.lineage.fleet.source import is_source, parse_source


def test_a_server_name_sets_host_port_user_database_and_table(monkeypatch) -> None:
    monkeypatch.delenv("CLICKHOUSE_USER", raising=False)
    monkeypatch.delenv("CLICKHOUSE_PASSWORD", raising=False)
    s = parse_source("clickhouse://reader:s%40cret@ch.internal:8124/otel?table=traces")
    assert (s.kind, s.host, s.port, s.user, s.password, s.database, s.table) == \
        ("clickhouse", "ch.internal", 8124, "reader", "s@cret", "otel", "traces")
    s = parse_source("clickhouse://ch.internal?secure=1")
    assert (s.port, s.secure, s.user, s.database, s.table) == (8443, True, "default", "default", "otel_traces")
    monkeypatch.setenv("CLICKHOUSE_USER", "ops")
    assert parse_source("clickhouse://ch.internal").user == "ops"
    assert parse_source("clickhouse://ch.internal").qualified == "`default`.`otel_traces`"


def test_a_data_directory_name(tmp_path: Path) -> None:
    s = parse_source(f"chdb:{tmp_path}?database=otel&table=spans")
    assert (s.kind, s.path, s.database, s.table) == ("chdb", str(tmp_path.resolve()), "otel", "spans")
    assert is_source(f"chdb:{tmp_path}") and is_source("clickhouse://x") and not is_source(str(tmp_path))


@pytest.mark.parametrize(("name", "message"), [
    ("clickhouse://ch:99999", "the port is not a number from 1 to 65535"),
    ("clickhouse://ch/otel?tabel=x", "unknown option 'tabel'"),
    ("clickhouse://ch/otel?table=x;DROP", "is not a plain table name"),
    ("clickhouse:///otel", "name the server"),
    ("chdb:", "name the ClickHouse data directory"),
    ("chdb:/no/such/folder", "is not a directory"),
    ("postgres://x", "not a ClickHouse source"),
])
def test_a_wrong_name_is_one_sentence(name: str, message: str) -> None:
    with pytest.raises(BadInput) as caught:
        parse_source(name)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_string_literals_are_quoted_for_the_engine() -> None:
    assert text("it's a \\ path") == "'it\\'s a \\\\ path'"


def test_chdb_is_imported_only_when_a_chdb_source_is_opened(tmp_path: Path) -> None:
    """chDB's engine costs ~300 MB once imported: the window, the commands and a source named but not
    yet opened leave it out; a clickhouse:// source never brings it in."""
    code = f"""
import sys
from memorydesk.ui.shell import mainwindow
from memorydesk.commands import lineage, lineage_otlp
from memorydesk.lineage.fleet import layout, queries, read, rules
from memorydesk.lineage.receipt_views import FleetReceipts
from memorydesk.core.errors import BadInput
view = FleetReceipts('chdb:{tmp_path}')
print('chdb' in sys.modules)
try:
    FleetReceipts('clickhouse://127.0.0.1:9').engine()
except BadInput:
    pass
print('chdb' in sys.modules)
try:
    view.engine()
except BadInput as exc:
    print(exc)
print('chdb' in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    lines = done.stdout.splitlines()
    assert lines[:2] == ["False", "False"], done.stderr
    assert "there is no table default.otel_traces" in lines[2] and lines[3] == "True"
