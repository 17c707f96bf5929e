"""Naming a ClickHouse receipts source: what each part of the name sets, and a wrong name in one
sentence (no engine is needed to tell)."""

from __future__ import annotations

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
