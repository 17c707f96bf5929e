"""Opening a workspace file: create, adopt, migrate, or refuse (DESIGN.md section 2).

``open_workspace`` is the only way the rest of the program gets a database. It
never leaves a half-written file: a new file is built in one transaction (and
removed if that fails); a product file opened for writing is first copied beside
itself with the backup API, then gets our tables in one transaction; a read-only
opening never writes to the database file at all.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import sqlean
from sqlalchemy import Connection, Engine, select
from sqlalchemy import exc as sa_exc

from memorydesk.core.errors import ReadOnlyWorkspace, SchemaTooNew, WorkspaceBusy, WorkspaceUnusable
from memorydesk.store import files, guard, ours
from memorydesk.store.engine import BEGIN_OPTION, BUSY_TIMEOUT_MS, make_engine, raw_connect
from memorydesk.store.layout import LAYOUTS, SUFFIXED, Layout, detect, table_names
from memorydesk.store.product_ddl import PRODUCT_USER_VERSION, product_schema_statements

log = logging.getLogger("memorydesk.store")


@dataclass
class Workspace:
    """An open workspace file. Cheap to pass around; ``close()`` when done."""

    path: Path
    read_only: bool
    immutable: bool
    layout: Layout
    engine: Engine
    workspace_id: str
    name: str
    desk_schema: int  # 0 when our tables are absent (a product file opened read-only)
    backup: Path | None = None
    notes: list[str] = field(default_factory=list)
    _watch: sqlean.Connection | None = field(default=None, repr=False)
    _last_data_version: int | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _seen_lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @property
    def has_vectors(self) -> bool:
        return self.desk_schema >= 2

    @property
    def mode(self) -> str:
        return "read-only" if self.read_only else "read-write"

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection for reads (one short use; don't hold it while waiting for a person)."""
        with _translate_errors(self.path), self.engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """One write transaction, started as BEGIN IMMEDIATE, committed on success."""
        if self.read_only:
            raise ReadOnlyWorkspace(f"{self.path.name} is open read-only; nothing was changed")
        with _translate_errors(self.path), self.engine.connect() as conn:
            conn.execution_options(**{BEGIN_OPTION: "IMMEDIATE"})
            with conn.begin():
                yield conn

    def data_version(self) -> int:
        """SQLite's ``data_version``: changes when another connection commits to the file."""
        guard.check("a data_version read")
        with self._lock:
            if self._watch is None:
                self._watch = raw_connect(self.path, read_only=True, immutable=self.immutable)
            return int(self._watch.execute("PRAGMA data_version").fetchone()[0])

    def changed_on_disk(self) -> bool:
        """True when someone else (or another of our connections) committed since the last call."""
        with self._seen_lock:
            current = self.data_version()
            changed = self._last_data_version is not None and current != self._last_data_version
            self._last_data_version = current
            return changed

    @contextlib.contextmanager
    def own_commits(self) -> Iterator[None]:
        """Commits made inside are ours: ``changed_on_disk`` (the watcher, on another thread)
        waits until they are done and does not report them. A commit by another process
        during the block is taken as seen too; its next one is noticed."""
        with self._seen_lock:
            yield
            self._last_data_version = self.data_version()

    @property
    def live_refresh(self) -> bool:
        return not self.immutable

    def close(self) -> None:
        with self._lock:
            if self._watch is not None:
                self._watch.close()
                self._watch = None
        self.engine.dispose()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def _translate_errors(path: Path) -> Iterator[None]:
    """Turn SQLite's environment errors into one clear sentence."""
    try:
        yield
    except sa_exc.OperationalError as exc:
        text = str(exc.orig) if exc.orig else str(exc)
        if "locked" in text or "busy" in text:
            raise WorkspaceBusy(
                f"{path}: the workspace is locked by another program; close it or open a copy"
            ) from exc
        if "unable to open" in text:
            raise WorkspaceUnusable(f"{path}: cannot open the file ({text})") from exc
        if "readonly" in text or "read-only" in text:
            raise ReadOnlyWorkspace(f"{path}: the file cannot be written ({text})") from exc
        raise
    except sa_exc.DatabaseError as exc:
        text = str(exc.orig) if exc.orig else str(exc)
        if "not a database" in text or "encrypted" in text:
            raise WorkspaceUnusable(f"{path}: not an SQLite database (or it is encrypted)") from exc
        if "malformed" in text or "corrupt" in text:
            raise WorkspaceUnusable(f"{path}: the database is damaged ({text})") from exc
        raise


def open_workspace(path: str | Path, *, read_only: bool = False, name: str | None = None,
                   timeout_ms: int = BUSY_TIMEOUT_MS) -> Workspace:
    """Open (or create) the workspace at ``path``.

    Read-only: never changes a byte of the file; where the folder is not writable the
    file is opened immutable and live refresh is off. Read-write: a new path gets the
    full schema; a product file is backed up, then adopted; an older desk schema is
    backed up, then migrated; a newer one is refused.
    """
    path = Path(path).expanduser()
    if not path.exists():
        if read_only:
            raise WorkspaceUnusable(f"{path}: no such file")
        return _create(path, name=name, timeout_ms=timeout_ms)
    if path.is_dir():
        raise WorkspaceUnusable(f"{path}: is a folder, not a workspace database")
    files.inspect_header(path)

    immutable = read_only and not files.folder_writable(path)
    probe = make_engine(path, read_only=True, immutable=immutable, timeout_ms=timeout_ms)
    try:
        with _translate_errors(path), probe.connect() as conn:
            names = table_names(conn)
            layout = detect(names)
            if layout is None:
                raise WorkspaceUnusable(
                    f"{path}: an SQLite database, but not an agent workspace (it has no memory_facts table)"
                )
            desk_schema = _desk_schema(conn, names)
            workspace_id, ws_name = _identity(conn, layout, names)
    finally:
        probe.dispose()

    if desk_schema > ours.SCHEMA_VERSION:
        raise SchemaTooNew(
            f"{path}: written by a newer Memory Desk (workspace schema {desk_schema}; "
            f"this build reads up to {ours.SCHEMA_VERSION}); update Memory Desk to open it"
        )
    ws_name = name or ws_name or path.stem
    if read_only:
        ws = Workspace(path, True, immutable, layout, make_engine(path, read_only=True, immutable=immutable,
                       timeout_ms=timeout_ms), workspace_id or "", ws_name, desk_schema)
        if immutable:
            ws.notes.append("the folder is not writable: opened immutable, live refresh is off")
        return ws

    if not files.folder_writable(path):
        raise WorkspaceUnusable(f"{path}: the folder is not writable; open it read-only or open a copy")
    engine = make_engine(path, read_only=False, timeout_ms=timeout_ms)
    ws = Workspace(path, False, False, layout, engine, workspace_id or str(uuid.uuid4()), ws_name, desk_schema)
    if desk_schema < ours.SCHEMA_VERSION:
        label = "backup" if desk_schema == 0 else f"before-schema-{ours.SCHEMA_VERSION}"
        with _translate_errors(path):
            ws.backup = files.backup_copy(path, label=label)
            _ensure_wal(engine)
            with ws.write() as conn:
                _migrate(conn, layout, desk_schema, ws.workspace_id, ws_name)
        ws.desk_schema = ours.SCHEMA_VERSION
    return ws


def _create(path: Path, *, name: str | None, timeout_ms: int) -> Workspace:
    if not path.parent.is_dir():
        raise WorkspaceUnusable(f"{path}: the folder {path.parent} does not exist")
    workspace_id = str(uuid.uuid4())
    ws_name = name or path.stem
    engine = make_engine(path, read_only=False, timeout_ms=timeout_ms)
    layout = LAYOUTS[SUFFIXED]
    try:
        _ensure_wal(engine)
        with engine.connect() as conn:
            conn.execution_options(**{BEGIN_OPTION: "IMMEDIATE"})
            with conn.begin():
                for statement in product_schema_statements():
                    conn.exec_driver_sql(statement)
                conn.exec_driver_sql(
                    "INSERT INTO workspace_meta (id, workspace_id, install_id, created_with_schema_version, "
                    "created_at) VALUES (0, ?, ?, ?, ?)",
                    (workspace_id, str(uuid.uuid4()), PRODUCT_USER_VERSION, int(time.time())),
                )
                conn.exec_driver_sql(f"PRAGMA user_version = {PRODUCT_USER_VERSION}")
                _migrate(conn, layout, 0, workspace_id, ws_name)
    except BaseException:
        engine.dispose()
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        raise
    return Workspace(path, False, False, layout, engine, workspace_id, ws_name, ours.SCHEMA_VERSION)


def _ensure_wal(engine: Engine) -> None:
    """WAL, like the product (outside any transaction, so on the raw connection)."""
    raw = engine.raw_connection()
    try:
        raw.driver_connection.execute("PRAGMA journal_mode = WAL")
    finally:
        raw.close()


def _migrate(conn: Connection, layout: Layout, start: int, workspace_id: str, name: str) -> None:
    for step in ours.MIGRATIONS[start:]:
        step(conn, layout)
    meta = ours.DeskMeta.__table__
    for key, value in (("schema_version", str(ours.SCHEMA_VERSION)), ("workspace_id", workspace_id),
                       ("workspace_name", name)):
        conn.execute(meta.delete().where(meta.c.key == key))
        conn.execute(meta.insert().values(key=key, value=value))


def _desk_schema(conn: Connection, names: set[str]) -> int:
    if "memdesk_meta" not in names:
        return 0
    meta = ours.DeskMeta.__table__
    value = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version")).scalar()
    try:
        return int(value) if value is not None else 0
    except ValueError as exc:
        raise WorkspaceUnusable(f"unreadable Memory Desk schema version {value!r}") from exc


def _identity(conn: Connection, layout: Layout, names: set[str]) -> tuple[str | None, str | None]:
    ws_id = ws_name = None
    if "memdesk_meta" in names:
        meta = ours.DeskMeta.__table__
        rows = dict(conn.execute(select(meta.c.key, meta.c.value)).all())
        ws_id, ws_name = rows.get("workspace_id"), rows.get("workspace_name")
    if not ws_id and "workspace_meta" in names:
        ws_id = conn.exec_driver_sql("SELECT workspace_id FROM workspace_meta ORDER BY id LIMIT 1").scalar()
    if not ws_id:
        facts = layout.facts
        ws_id = conn.execute(select(facts.c.workspace_id).limit(1)).scalar()
    return ws_id, ws_name
