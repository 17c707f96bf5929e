"""What a ``clickhouse://`` source says when the host does not answer, or is not ClickHouse: real
sockets and a real HTTP server of this process (no ClickHouse server can run here)."""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from memorydesk.core.errors import BadInput
from memorydesk.lineage.fleet.source import CONNECT_SECONDS, parse_source

pytest.importorskip("clickhouse_connect")


def test_a_host_that_accepts_and_never_answers_is_said_within_the_connection_limit() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    held: list = []
    threading.Thread(target=lambda: held.append(server.accept()[0]), daemon=True).start()
    began = time.monotonic()
    with pytest.raises(BadInput) as said:
        parse_source(f"clickhouse://127.0.0.1:{server.getsockname()[1]}/otel").connect()
    took = time.monotonic() - began
    assert str(said.value).endswith(f": the host did not answer within {CONNECT_SECONDS} s")
    assert "query" not in str(said.value)
    assert took < CONNECT_SECONDS * 3  # said after the connection's limit, not the query's 30 s
    for conn in held:
        conn.close()
    server.close()


class _NotFound(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_error(404)

    do_POST = do_GET  # noqa: N815

    def log_message(self, *args) -> None:
        pass


def test_a_web_server_that_is_not_clickhouse_is_said_as_such() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotFound)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(BadInput) as said:
            parse_source(f"clickhouse://127.0.0.1:{server.server_address[1]}/otel").connect()
    finally:
        server.shutdown()
        server.server_close()
    text = str(said.value)
    assert "answered HTTP 404 — it is not a ClickHouse server" in text and "for url" not in text


def test_a_folder_that_is_not_a_clickhouse_directory_is_refused_untouched(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(BadInput) as said:
        parse_source(f"chdb:{tmp_path}").connect()
    assert str(said.value) == (f"chdb:{tmp_path.resolve()} is not a ClickHouse data directory (it has no metadata "
                               "folder); nothing was written to it")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
