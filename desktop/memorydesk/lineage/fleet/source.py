"""A receipts source in ClickHouse: its name, how it is opened, and its failures in one sentence.

Names (``lineage classify SOURCE``, File ▸ Open Receipts Source…):

- ``chdb:PATH[?database=D&table=T]`` — a ClickHouse data directory opened in this process with
  chDB. chDB opens one data directory per process (any number of sessions on it), and a
  directory one process holds cannot be opened by another: a command opens it for its read and
  closes it after; the Lineage tab holds it while it shows it (:meth:`FleetSource.connect`).
- ``clickhouse://[USER[:PASSWORD]@]HOST[:PORT][/DB][?table=T&secure=1]`` — a ClickHouse server over
  HTTP (port 8123 by default, 8443 with ``secure=1``) with clickhouse-connect.

Database and table default to the exporter's (``default``, ``otel_traces``). Every query carries
a time limit (:data:`QUERY_SECONDS`, the server stops it too); connecting has its own
(:data:`CONNECT_SECONDS`). What goes wrong — the package is missing, the server cannot be reached,
the table is not there or has another shape, a query runs out of time — is a
:class:`~memorydesk.core.errors.BadInput` with one sentence.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qs, unquote, urlsplit

from memorydesk.core.errors import BadInput

DEFAULT_DATABASE: Final = "default"  # the exporter's default database
DEFAULT_TABLE: Final = "otel_traces"  # the exporter's default traces table
QUERY_SECONDS: Final = 30
CONNECT_SECONDS: Final = 5
INSTALL: Final = "pip install 'memory-desk[fleet]'"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,190}")
_chdb_lock = threading.Lock()
_chdb_open: dict[str, int] = {}  # chDB: the one data directory open in this process, and its sessions
_stderr_lock = threading.Lock()  # one borrower of file descriptor 2 at a time


def is_source(text: str) -> bool:
    """``text`` names a ClickHouse source (rather than a file or a workspace)."""
    return text.startswith(("chdb:", "clickhouse://"))


@dataclass(frozen=True)
class FleetSource:
    """Where the receipts are: ``kind`` ``chdb`` (``path``) or ``clickhouse`` (``host``, ``port``…)."""

    kind: str
    database: str = DEFAULT_DATABASE
    table: str = DEFAULT_TABLE
    path: str = ""
    host: str = ""
    port: int = 0
    user: str = ""
    password: str = ""
    secure: bool = False
    query_seconds: int = QUERY_SECONDS

    @property
    def qualified(self) -> str:
        """``database.table`` quoted for SQL (both were checked to be plain names)."""
        return f"`{self.database}`.`{self.table}`"

    def describe(self) -> str:
        where = f"chdb:{self.path}" if self.kind == "chdb" else f"clickhouse://{self.host}:{self.port}"
        return f"{where} ({self.database}.{self.table})"

    @contextmanager
    def open(self) -> Iterator[Engine]:
        """An open connection for the reads of one piece of work."""
        engine = self.connect()
        try:
            yield engine
        finally:
            engine.close()

    def connect(self) -> Engine:
        """An open connection the caller closes."""
        return _ChdbEngine(self) if self.kind == "chdb" else _HttpEngine(self)


def parse_source(text: str) -> FleetSource:
    """A :class:`FleetSource` from its name; a malformed one is :class:`BadInput`."""
    if text.startswith("chdb:"):
        rest = text[len("chdb:"):]
        path, _, query = rest.partition("?")
        options = _options(query, ("database", "table"), text)
        if not path:
            raise BadInput(f"{text}: name the ClickHouse data directory after 'chdb:'")
        folder = Path(unquote(path)).expanduser()
        if not folder.is_dir():
            raise BadInput(f"{text}: {folder} is not a directory (a chDB source is a ClickHouse data directory)")
        return FleetSource("chdb", _name(options.get("database", DEFAULT_DATABASE), "database", text),
                           _name(options.get("table", DEFAULT_TABLE), "table", text), path=str(folder.resolve()))
    if text.startswith("clickhouse://"):
        parts = urlsplit(text)
        options = _options(parts.query, ("table", "secure", "database"), text)
        secure = options.get("secure", "0") in ("1", "true")
        try:
            port = parts.port or (8443 if secure else 8123)
        except ValueError:
            raise BadInput(f"{text}: the port is not a number from 1 to 65535") from None
        if not parts.hostname:
            raise BadInput(f"{text}: name the server, clickhouse://HOST[:PORT][/DATABASE][?table=TABLE]")
        database = parts.path.strip("/") or options.get("database", DEFAULT_DATABASE)
        return FleetSource("clickhouse", _name(unquote(database), "database", text),
                           _name(options.get("table", DEFAULT_TABLE), "table", text), host=parts.hostname, port=port,
                           user=unquote(parts.username or os.environ.get("CLICKHOUSE_USER", "default")),
                           password=unquote(parts.password or os.environ.get("CLICKHOUSE_PASSWORD", "")),
                           secure=secure)
    raise BadInput(f"{text}: not a ClickHouse source (chdb:PATH or clickhouse://HOST)")


def _options(query: str, allowed: tuple[str, ...], text: str) -> dict[str, str]:
    options = {}
    for key, values in parse_qs(query, keep_blank_values=True).items():
        if key not in allowed:
            raise BadInput(f"{text}: unknown option {key!r} (known: {', '.join(allowed)})")
        options[key] = values[-1]
    return options


def _name(value: str, what: str, text: str) -> str:
    if not _NAME.fullmatch(value):
        raise BadInput(f"{text}: {value!r} is not a plain {what} name (letters, digits, underscores)")
    return value


class Engine:
    """One open connection: :meth:`arrow` runs a query and returns a ``pyarrow.Table``."""

    def __init__(self, source: FleetSource) -> None:
        self.source = source
        self.lookup = False  # the exporter's trace-id lookup table is there (``layout.check`` finds out)

    def arrow(self, sql: str) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def _failed(self, exc: BaseException) -> BadInput:
        return BadInput(_sentence(self.source, exc))


class _ChdbEngine(Engine):
    def __init__(self, source: FleetSource) -> None:
        super().__init__(source)
        try:
            from chdb import session
        except ImportError:
            raise BadInput(f"reading a chdb: source needs chDB ({INSTALL})") from None
        path = source.path
        with _chdb_lock:
            other = next((p for p, n in _chdb_open.items() if n and p != path), None)
            if other is not None:
                raise BadInput(f"chdb:{path} cannot be opened while chdb:{other} is open in this process "
                               "(chDB opens one data directory per process)")
            try:
                with _engine_stderr_held() as said:
                    self.session = session.Session(path)
            except Exception as exc:
                if "EmbeddedServer" in str(exc) or "Cannot lock file" in said.text:
                    raise BadInput(f"chdb:{path} is open in another process (chDB opens a data directory in "
                                   "one process at a time)") from None
                raise self._failed(exc) from None
            _chdb_open[path] = _chdb_open.get(path, 0) + 1
        self.closed = False

    def arrow(self, sql: str) -> Any:
        try:
            return self.session.query(f"{sql} SETTINGS max_execution_time = {self.source.query_seconds}",
                                      "ArrowTable")
        except Exception as exc:
            raise self._failed(exc) from None

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        with _chdb_lock:
            try:
                self.session.close()
            finally:
                _chdb_open[self.source.path] -= 1


class _Said:
    text = ""


@contextmanager
def _engine_stderr_held() -> Iterator[_Said]:
    """chDB's engine writes its own errors straight to the process's standard error (file
    descriptor 2, below Python) before it raises: while it opens a directory, what it writes there
    is kept (``.text``) instead, so that the desk says what went wrong in its one sentence."""
    said = _Said()
    with _stderr_lock, tempfile.TemporaryFile() as held:
        try:
            sys.stderr.flush()
        except (AttributeError, OSError, ValueError):
            pass
        saved = os.dup(2)
        os.dup2(held.fileno(), 2)
        try:
            yield said
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            said.text = held.read().decode("utf-8", "replace")
            if said.text.strip():
                logging.getLogger("memorydesk.fleet").info("chDB said: %s", said.text.strip())


class _HttpEngine(Engine):
    def __init__(self, source: FleetSource) -> None:
        super().__init__(source)
        try:
            import clickhouse_connect
        except ImportError:
            raise BadInput(f"reading a clickhouse:// source needs clickhouse-connect ({INSTALL})") from None
        for name in ("clickhouse_connect", "urllib3"):  # its retries are ours to say, in one sentence
            logging.getLogger(name).setLevel(logging.CRITICAL)
        try:
            self.client = clickhouse_connect.get_client(
                host=source.host, port=source.port, username=source.user, password=source.password,
                database=source.database, secure=source.secure, connect_timeout=CONNECT_SECONDS,
                send_receive_timeout=source.query_seconds + CONNECT_SECONDS, autogenerate_session_id=False,
                settings={"max_execution_time": source.query_seconds})
        except Exception as exc:
            raise self._failed(exc) from None

    def arrow(self, sql: str) -> Any:
        try:
            return self.client.query_arrow(sql)
        except Exception as exc:
            raise self._failed(exc) from None

    def close(self) -> None:
        self.client.close()
        self.closed = True


def _sentence(source: FleetSource, exc: BaseException) -> str:
    """What went wrong with a query or a connection, in one sentence."""
    text = " ".join(str(exc).split())
    where = source.describe()
    code = re.search(r"Code: (\d+)", text)
    number = int(code.group(1)) if code else None
    if number in (159, 160) or "TIMEOUT_EXCEEDED" in text or "timed out" in text.lower() or "ReadTimeout" in text:
        return f"{where}: the query ran out of its {source.query_seconds} s"
    if number == 81 or "UNKNOWN_DATABASE" in text:
        return f"{where}: there is no database {source.database}"
    if number == 60 or "UNKNOWN_TABLE" in text:
        return f"{where}: there is no table {source.database}.{source.table}"
    if number in (192, 193, 194, 516) or "Authentication failed" in text:
        return f"{where}: the server refused the user name or password"
    if any(w in text for w in ("Connection refused", "Failed to establish", "Name or service not known",
                               "No route to host", "Max retries exceeded", "ConnectTimeout")):
        return f"{where}: the server cannot be reached"
    first = re.sub(r"^.*?Code: \d+\. (DB::Exception: )?", "", text).split(". (")[0].split(". ")[0]
    return f"{where}: {first[:300]}"
