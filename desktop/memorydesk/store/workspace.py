"""Opening a workspace file: create, adopt, migrate, or refuse (docs/product-format.md, "What the desk adds").

``open_workspace`` is the only way the rest of the program gets a database. It
never leaves a half-written file: a new file is built in one transaction (and
removed if that fails). Opening changes nothing: a product file (or one of an older
desk schema) opened for writing keeps its schema and rows exactly as they were until
the first change; that change first copies the file beside itself with the backup API,
checks the copy (it opens and holds every table and row count of the file), then adds
or migrates our tables in one transaction, and leaves one sentence in
``Workspace.take_notice()`` saying what was added and where the backup is. A read-only
opening never writes to the database file at all.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlean
from sqlalchemy import Connection, Engine, select

from memorydesk import testpoints
from memorydesk.core import outputs
from memorydesk.core.errors import DiskFull, ReadOnlyWorkspace, SchemaTooNew, WorkspaceDamaged, WorkspaceUnusable
from memorydesk.store import files, guard, ours, schema_parts, wal
from memorydesk.store.engine import BEGIN_OPTION, BUSY_TIMEOUT_MS, make_engine, raw_connect
from memorydesk.store.errors import SQLITE_IOERR, recovery_advice, translated
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
    pending_erase: bool = False  # a purge's text may still be in the write-ahead log (see store.wal)
    notice: str = ""  # said once: what the first change added to the file, and where its backup is
    copy: Path | None = None  # the private copy read instead of ``path`` (see files.private_copy)
    # what search keeps of this open file (search.copies.follow.Copies, search.cache.Values): the
    # workspace owns them, so they go when it closes
    search_copies: Any = field(default=None, repr=False)
    search_values: Any = field(default=None, repr=False)
    fact_marks: Any = field(default=None, repr=False)  # every fact row's mark, read once a version (``watermarks``)
    _watch: sqlean.Connection | None = field(default=None, repr=False)
    _last_data_version: int | None = field(default=None, repr=False)
    own_commit_count: int = field(default=0, repr=False)  # blocks of our own commits so far (``own_commits``)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _seen_lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    _adopt_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def has_vectors(self) -> bool:
        return self.desk_schema >= 2

    @property
    def mode(self) -> str:
        return "read-only" if self.read_only else "read-write"

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection for reads (one short use; don't hold it while waiting for a person)."""
        with translated(self.path), self.engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """One write transaction, started as BEGIN IMMEDIATE, committed on success."""
        if self.read_only:
            raise ReadOnlyWorkspace(f"{self.path.name} is open read-only; nothing was changed")
        if self.desk_schema < ours.SCHEMA_VERSION:
            self.adopt()
        with self._transaction() as conn:
            yield conn

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Connection]:
        with translated(self.path), self.engine.connect() as conn:
            conn.execution_options(**{BEGIN_OPTION: "IMMEDIATE"})
            with conn.begin():
                yield conn

    @property
    def adopted(self) -> bool:
        """The file has our tables at this build's schema (a new change needs no backup first)."""
        return self.desk_schema == ours.SCHEMA_VERSION

    def adopt(self) -> None:
        """Back up, check the backup, then add (or migrate) our tables: what the first change does first."""
        if self.read_only:
            raise ReadOnlyWorkspace(f"{self.path.name} is open read-only; nothing was changed")
        with self._adopt_lock:
            if self.desk_schema < ours.SCHEMA_VERSION:
                _adopt(self, self.desk_schema)

    def take_notice(self) -> str:
        """The sentence about what the first change added (once; empty after)."""
        notice, self.notice = self.notice, ""
        return notice

    def data_version(self) -> int:
        """SQLite's ``data_version``: changes when another connection commits to the file."""
        guard.check("a data_version read")
        with self._lock, translated(self.path):
            if self._watch is None:
                self._watch = raw_connect(self.copy or self.path, read_only=True,
                                          immutable=self.immutable and self.copy is None)
            return int(self._watch.execute("PRAGMA data_version").fetchone()[0])

    def changed_on_disk(self) -> bool:
        """True when someone else (or another of our connections) committed since the last call.

        While a purge's erase is pending (``pending_erase``), each call also tries, without
        waiting, to empty the write-ahead log (``store.wal``); that commit is ours, not reported."""
        with self._seen_lock:
            current = self.data_version()
            changed = self._last_data_version is not None and current != self._last_data_version
            self._last_data_version = current
            if self.pending_erase and not self.read_only:
                with self.own_commits():
                    self.pending_erase = not wal.finish_pending_erase(self.path, wait_ms=0).done
            return changed

    @contextlib.contextmanager
    def own_commits(self) -> Iterator[None]:
        """Commits made inside are ours: ``changed_on_disk`` (the watcher, on another thread)
        waits until they are done and does not report them. A commit by another process
        during the block is taken as seen too; its next one is noticed."""
        with self._seen_lock:
            yield
            self._last_data_version = self.data_version()
            self.own_commit_count += 1

    @property
    def live_refresh(self) -> bool:
        return not self.immutable

    def close(self) -> None:
        with self._lock:
            if self._watch is not None:
                self._watch.close()
                self._watch = None
        held = (self.search_copies, self.search_values)
        self.search_copies = self.search_values = self.fact_marks = None
        for kept in held:
            if kept is not None:
                kept.close()  # their memory goes now, and a build under way stops
        self.engine.dispose()
        files.remove_private_copy(self.copy)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_workspace(path: str | Path, *, read_only: bool = False, create: bool = False, name: str | None = None,
                   timeout_ms: int = BUSY_TIMEOUT_MS, incomplete_ok: bool = False,
                   immutable: bool = False) -> Workspace:
    """Open the workspace at ``path`` (or, with ``create=True``, make a new one there).

    A path that does not exist is refused unless ``create`` (only ``demo create`` and
    ``import memoryos`` make workspaces); so is anything that is not a regular file.
    Read-only: never changes a byte of the file; where the folder is not writable, or the
    disk too full for SQLite's shared-memory index, the file is opened immutable and live
    refresh is off. Read-write: nothing is written at the open; at the first change
    (``Workspace.write``) a product file is checked (``quick_check``), backed up, then
    adopted, and an older desk schema backed up, then migrated; a newer one is refused at
    the open. A refused or failed adoption leaves no backup behind. ``immutable`` (read-only
    only) opens it immutable as a backup is, leaving no ``-wal``/``-shm`` beside it (a file
    compared with the open one).
    """
    path = Path(path).expanduser()
    if outputs.names_a_backup(path.name) and not read_only:  # kept as it was: read it, or open a copy of it
        raise WorkspaceUnusable(f"{path}: is {outputs.desk_made(path.name)}; Memory Desk only reads it, so it "
                                "stays as it was: open it read-only, or copy it and open the copy")
    if not files.inspect_path(path):
        if not create:
            make = f"memory-desk demo create {shlex.quote(str(path))} --empty"
            raise WorkspaceUnusable(f"{path}: no such file; check the path, or make an empty workspace there with "
                                    f"`{make}` (only `demo create` and `import memoryos` make new workspaces)")
        if read_only:
            raise WorkspaceUnusable(f"{path}: no such file")
        return _create(path, name=name, timeout_ms=timeout_ms)
    if create:
        raise WorkspaceUnusable(f"{path}: already exists; choose a new path for a new workspace")
    files.inspect_header(path)
    with translated(path):
        return _open_existing(path, read_only=read_only, name=name, timeout_ms=timeout_ms,
                              incomplete_ok=incomplete_ok and read_only, asked_immutable=immutable)


def _open_existing(path: Path, *, read_only: bool, name: str | None, timeout_ms: int,
                   incomplete_ok: bool = False, asked_immutable: bool = False) -> Workspace:
    # a backup the desk made is kept as it was: read without side files (no -wal/-shm left beside it)
    immutable = read_only and (asked_immutable or not files.folder_writable(path)
                               or outputs.names_a_backup(path.name))
    if immutable and files.wal_pending(path):  # immutable would not see what the log holds: read a copy
        return _open_copy(path, name=name, timeout_ms=timeout_ms, incomplete_ok=incomplete_ok)
    try:
        found = _probe(path, immutable=immutable, timeout_ms=timeout_ms, incomplete_ok=incomplete_ok)
    except WorkspaceUnusable as exc:
        if immutable or not _no_room_for_shm(path, exc):
            raise
        if not read_only:
            raise DiskFull(f"{path}: the disk is full ({files.megabytes(files.free_bytes(path.parent))} free), so "
                           f"nothing was changed; free some space in {path.parent}, or open it read-only") from exc
        if wal.wal_bytes(path):  # immutable would not see the changes waiting in the log
            raise WorkspaceUnusable(
                f"{path}: the disk is full, so SQLite cannot make the index it needs to read the recent changes "
                f"in {path.name}-wal; free some space in {path.parent} and try again") from exc
        immutable = True
        found = _probe(path, immutable=True, timeout_ms=timeout_ms, incomplete_ok=incomplete_ok)
    layout, desk_schema, workspace_id, ws_name = found
    _refuse_newer(path, desk_schema)
    ws_name = name or ws_name or path.stem
    if read_only:
        ws = Workspace(path, True, immutable, layout, make_engine(path, read_only=True, immutable=immutable,
                       timeout_ms=timeout_ms), workspace_id or "", ws_name, desk_schema)
        if immutable and not outputs.names_a_backup(path.name) and not asked_immutable:
            why = "the folder is not writable" if not files.folder_writable(path) else "the disk is full"
            ws.notes.append(f"{why}: opened immutable, live refresh is off")
        return ws

    if not files.folder_writable(path):
        raise WorkspaceUnusable(f"{path}: the folder is not writable; open it read-only or open a copy")
    files.settle_partial_backups(path, complete=desk_schema == ours.SCHEMA_VERSION)
    files.remove_all_dead_builds(path)
    engine = make_engine(path, read_only=False, timeout_ms=timeout_ms)
    ws = Workspace(path, False, False, layout, engine, workspace_id or str(uuid.uuid4()), ws_name, desk_schema)
    try:
        if desk_schema:
            _finish_erase_if_pending(ws)
    except BaseException:
        engine.dispose()
        raise
    return ws


def _refuse_newer(path: Path, desk_schema: int) -> None:
    if desk_schema > ours.SCHEMA_VERSION:
        raise SchemaTooNew(f"{path}: written by a newer Memory Desk (workspace schema {desk_schema}; "
                           f"this build reads up to {ours.SCHEMA_VERSION}); update Memory Desk to open it")


def _open_copy(path: Path, *, name: str | None, timeout_ms: int, incomplete_ok: bool) -> Workspace:
    """Read-only where the folder cannot be written and ``-wal`` holds changes: from a private copy."""
    copy = files.private_copy(path)
    try:
        layout, desk_schema, workspace_id, ws_name = _probe(copy, immutable=False, timeout_ms=timeout_ms,
                                                            incomplete_ok=incomplete_ok, shown=path)
        _refuse_newer(path, desk_schema)
        engine = make_engine(copy, read_only=True, timeout_ms=timeout_ms)
    except BaseException:
        files.remove_private_copy(copy)
        raise
    ws = Workspace(path, True, True, layout, engine, workspace_id or "", name or ws_name or path.stem, desk_schema,
                   copy=copy)
    ws.notes.append(f"the folder of {path.name} cannot be written and {path.name}-wal holds changes not yet in the "
                    f"file: showing a private copy of both made at {time.strftime('%H:%M:%S')}, with every committed "
                    "change; live refresh is off (open the file again to see later changes)")
    return ws


def _probe(path: Path, *, immutable: bool, timeout_ms: int, incomplete_ok: bool = False,
           shown: Path | None = None) -> tuple[Layout, int, str | None, str | None]:
    """Layout, desk schema and identity of the file; ``shown``: the name to give it in sentences."""
    probe = make_engine(path, read_only=True, immutable=immutable, timeout_ms=timeout_ms)
    named = shown or path
    try:
        with translated(named), probe.connect() as conn:
            names = table_names(conn)
            layout = detect(names)
            if layout is None:
                raise WorkspaceUnusable(
                    f"{named}: an SQLite database, but not an agent workspace (it has no memory_facts table)"
                )
            missing = schema_parts.missing_parts(conn, layout, names)
            if missing and not incomplete_ok:
                raise WorkspaceUnusable(schema_parts.sentence(named, missing))
            return layout, _desk_schema(conn, names, named), *_identity(conn, layout, names)
    finally:
        probe.dispose()


def _no_room_for_shm(path: Path, exc: WorkspaceUnusable) -> bool:
    """An I/O error from a reader on a nearly full disk: SQLite could not make ``FILE-shm``."""
    cause = getattr(exc.__cause__, "orig", exc.__cause__)
    code = getattr(cause, "sqlite_errorcode", None)
    if not (isinstance(code, int) and code & 0xFF == SQLITE_IOERR):
        return False
    try:
        return files.free_bytes(path.parent) < files.SPARE_BYTES
    except OSError:
        return False


def _adopt(ws: Workspace, desk_schema: int) -> None:
    """Check, back up, then add or migrate our tables in one transaction; no backup is left on failure."""
    path = ws.path
    problems = _quick_check(ws)
    if problems:
        raise WorkspaceDamaged(f"{path}: SQLite reports the file damaged ({problems[0]}); Memory Desk writes "
                               f"nothing into a damaged file; {recovery_advice(path)}")
    label = "backup" if desk_schema == 0 else f"before-schema-{ours.SCHEMA_VERSION}"
    target = files.backup_path(path, label)
    files.require_free(path.parent, files.database_bytes(path), f"a backup copy of {path.name}")
    # A kill from here on: the partial copy is settled at the next open. The copy is checked
    # (it opens, and holds the file's tables and row counts) before anything is changed.
    partial = files.write_partial_backup(path, target, verify=True)
    try:
        testpoints.reached("adopt.backup-written")
        _ensure_wal(ws.engine)
        with ws._transaction() as conn:
            _migrate(conn, ws.layout, desk_schema, ws.workspace_id, ws.name)
            testpoints.reached("adopt.tables-made")  # before the commit
        testpoints.reached("adopt.committed")  # the backup still under its partial name
    except BaseException:
        files.remove_database(partial)
        raise
    os.replace(partial, target)
    ws.backup = target
    ws.desk_schema = ours.SCHEMA_VERSION
    what = ("added its own tables (memdesk_*: history, receipts, tiers, vectors) to" if desk_schema == 0
            else f"updated its own tables from schema {desk_schema} to {ours.SCHEMA_VERSION} in")
    ws.notice = (f"Before this first change Memory Desk {what} {path.name}; the file as it was is kept in "
                 f"{target}")
    log.info("%s", ws.notice)


def _quick_check(ws: Workspace) -> list[str]:
    with ws.read() as conn:
        rows = [r[0] for r in conn.exec_driver_sql("PRAGMA quick_check").all()]
    return [] if rows == ["ok"] else rows


def _finish_erase_if_pending(ws: Workspace) -> None:
    with ws.read() as conn:
        pending = "memdesk_meta" in table_names(conn) and wal.is_pending(conn)
    if pending:
        ws.pending_erase = not wal.finish_pending_erase(ws.path, wait_ms=0).done


def _create(path: Path, *, name: str | None, timeout_ms: int) -> Workspace:
    if not path.parent.is_dir():
        raise WorkspaceUnusable(f"{path}: the folder {path.parent} does not exist")
    files.require_free(path.parent, 0, "a new workspace")
    workspace_id = str(uuid.uuid4())
    ws_name = name or path.stem
    engine = make_engine(path, read_only=False, timeout_ms=timeout_ms)
    layout = LAYOUTS[SUFFIXED]
    existing = {s for s in files.SIDE_FILES if Path(f"{path}{s}").exists()}
    try:
        with translated(path):
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
        for suffix in ("", *files.SIDE_FILES):  # only what we made: the path did not exist before
            if suffix not in existing:
                Path(f"{path}{suffix}").unlink(missing_ok=True)
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


def _desk_schema(conn: Connection, names: set[str], path: Path) -> int:
    if "memdesk_meta" not in names:
        return 0
    meta = ours.DeskMeta.__table__
    value = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version")).scalar()
    try:
        return int(value) if value is not None else 0
    except ValueError as exc:
        raise WorkspaceUnusable(f"{path}: unreadable Memory Desk schema version {value!r} in memdesk_meta") from exc


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
