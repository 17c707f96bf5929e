"""Connections to a workspace file: sqlean-py through SQLAlchemy, sqlite-vec loaded.

Every connection gets WAL (set when writable), ``busy_timeout=5000``,
``foreign_keys=ON`` and ``secure_delete=ON``. Text that SQLite stores but that is not
valid UTF-8 (another program can write any bytes) reads with replacement characters
(U+FFFD) instead of failing the whole query (``store.text``); ``check`` names such rows
(``text_not_utf8``). The DBAPI connection runs in
autocommit mode and SQLAlchemy's ``begin`` emits the BEGIN itself, so a write
transaction can start as ``BEGIN IMMEDIATE`` (take the write lock up front, wait
out a busy product process with the busy timeout, never fail half-way).
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
from pathlib import Path
from urllib.parse import quote

import sqlean
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.pool import NullPool, QueuePool

from memorydesk.store.text import TolerantConnection

log = logging.getLogger("memorydesk.store")

BUSY_TIMEOUT_MS = 5000
BEGIN_OPTION = "memdesk_begin"


def file_uri(path: Path, *, read_only: bool, immutable: bool = False) -> str:
    """The SQLite ``file:`` URI of ``path``: the ONE place a URI is built.

    The path is made absolute and percent-quoted (``?``, ``#``, ``%``, spaces, newlines,
    non-ASCII), so SQLite opens exactly that file whatever the folder's name."""
    uri = "file:" + quote(str(Path(path).resolve()), safe="/")
    params = []
    if read_only:
        params.append("mode=ro")
    if immutable:
        params.append("immutable=1")
    return uri + ("?" + "&".join(params) if params else "")


@functools.cache
def vec_extension() -> str:
    """Where sqlite-vec's loadable extension is, found without importing its Python package
    (whose ``__init__`` imports numpy: a tenth of a second every command would pay)."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("sqlite-vec is not installed")
    return os.path.join(next(iter(spec.submodule_search_locations)), "vec0")


def raw_connect(path: Path, *, read_only: bool, immutable: bool = False, timeout_ms: int = BUSY_TIMEOUT_MS):
    """A plain sqlean connection with our settings (used by the engine and the watcher)."""
    conn = sqlean.connect(
        file_uri(path, read_only=read_only, immutable=immutable),
        uri=True,
        check_same_thread=False,
        isolation_level=None,
        timeout=timeout_ms / 1000,
        factory=TolerantConnection,
    )
    try:
        conn.enable_load_extension(True)
        conn.load_extension(vec_extension())
        conn.enable_load_extension(False)
    except Exception:  # the desk still reads memory without the vector index
        log.warning("sqlite-vec could not be loaded; vector index unavailable", exc_info=True)
    conn.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")
    conn.execute("PRAGMA foreign_keys = ON")
    if not read_only:
        conn.execute("PRAGMA secure_delete = ON")
    return conn


def make_engine(path: Path, *, read_only: bool, immutable: bool = False,
                timeout_ms: int = BUSY_TIMEOUT_MS) -> Engine:
    engine = create_engine(
        "sqlite://",
        module=sqlean,
        creator=lambda: raw_connect(path, read_only=read_only, immutable=immutable, timeout_ms=timeout_ms),
        poolclass=NullPool if immutable else QueuePool,
        hide_parameters=True,  # error messages and logs never quote memory content
    )

    @event.listens_for(engine, "begin")
    def _begin(conn) -> None:  # noqa: ANN001 - SQLAlchemy event signature
        mode = conn.get_execution_options().get(BEGIN_OPTION, "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")

    return engine
