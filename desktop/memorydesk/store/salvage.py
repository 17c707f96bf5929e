"""Salvage: copy every readable row of a damaged workspace into a fresh one.

Each table (the product's, ours, and tables the desk does not know) is read row by row by
``salvage_reader.Reader``: in rowid order through its own b-tree, stepping over damaged
stretches, bounded so it always finishes. The new workspace is built beside the target
and moved into place only when complete; the full-text and vector indexes are rebuilt
from the copied facts. The source is never written (opened read-only, or immutable).

A file whose header SQLite refuses (the magic string, the page size, bytes 18–19, the page
count, …) is read from a copy with those fields repaired (``store.header``, the rule ``check``
names them by); the copy is removed after.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import sqlean

from memorydesk import testpoints
from memorydesk.core.errors import WorkspaceDamaged, WorkspaceUnusable
from memorydesk.core.outputs import refuse_overwriting_input
from memorydesk.store import files, header, receipt_blocks
from memorydesk.store.engine import file_uri, raw_connect
from memorydesk.store.errors import translated
from memorydesk.store.layout import LAYOUTS, SUFFIXED, detect
from memorydesk.store.ours import SCHEMA_VERSION
from memorydesk.store.product_ddl import fts_statements
from memorydesk.store.salvage_reader import BATCH, FAILURES, MAX_ROWID, Reader
from memorydesk.store.wal import PENDING_KEY, truncate_log
from memorydesk.store.workspace import open_workspace

FTS_TRIGGERS = ("memory_facts_ai", "memory_facts_ad", "memory_facts_au")


@dataclass
class TableSalvage:
    table: str  # the table's name in the new workspace
    copied: int = 0
    skipped: int = 0  # read, but refused by the new table's constraints (a damaged value)
    lost: list[tuple[int, int]] = field(default_factory=list)  # rowid ranges that could not be read
    failed: str = ""  # the whole table could not be read: why
    source_rows: int | None = None  # SQLite's count of the source table (None: it could not count them)
    target_rows: int | None = None  # the rows the new table holds once copied

    @property
    def complete(self) -> bool:
        counted = self.source_rows is not None and self.source_rows == self.copied
        return counted and not (self.lost or self.failed or self.skipped)

    def line(self) -> str:
        text = f"{self.table}: {self.copied:,} row(s) copied"
        if self.source_rows is not None:
            text += f" of {self.source_rows:,}" if self.source_rows != self.copied else " (all)"
        if self.failed:
            return text + f"; the table could not be read ({self.failed})"
        if self.lost:
            spans = ", ".join(f"{a}" if a == b else f"{a} and above" if b == MAX_ROWID else f"{a}–{b}"
                              for a, b in self.lost[:5])
            more = f" and {len(self.lost) - 5} more stretches" if len(self.lost) > 5 else ""
            text += f"; rows with rowids {spans}{more} could not be read"
        if self.skipped:
            text += f"; {self.skipped:,} row(s) read but refused by the table's rules (damaged values)"
        if self.source_rows is None:
            text += "; SQLite could not count the source's rows, so whether every row was copied is not known"
        elif self.copied != self.source_rows and not (self.lost or self.skipped):
            text += f"; SQLite counts {self.source_rows:,} row(s) in the source, so some could not be reached"
        return text


def salvage(source: Path, target: Path, progress: Callable[[str], None] | None = None) -> list[TableSalvage]:
    """Build ``target`` from what can be read of ``source``; one ``TableSalvage`` per table."""
    source = Path(source).expanduser()
    target = refuse_overwriting_input(target, [source], "OUT.db")
    say = progress or (lambda _line: None)
    if not files.inspect_path(source):
        raise WorkspaceUnusable(f"{source}: no such file")
    if files.inspect_path(target):
        raise WorkspaceUnusable(f"{target}: already exists; choose a new file for the salvaged workspace")
    if not target.parent.is_dir():
        raise WorkspaceUnusable(f"{target}: the folder {target.parent} does not exist")
    files.require_free(target.parent, 2 * files.database_bytes(source), f"salvaging {source.name}")
    building = files.building_path(target, "salvage")
    files.remove_dead_builds(target, "salvage")  # what a killed salvage of this target left
    # Where the folder cannot be written, an immutable read would miss what the log holds: read a copy.
    private = files.private_copy(source) if not files.folder_writable(source) and files.wal_pending(source) else None
    base = private or source
    readable = None
    try:
        readable = _readable_copy(base, building)
        with translated(source):
            copied = readable != base  # a copy with its header repaired: immutable unless its log came along
            conn = raw_connect(readable, read_only=True, immutable=(copied and not files.wal_pending(readable))
                               or (not copied and private is None and not files.folder_writable(source)))
        try:
            report = _build(conn, source, building, say)
        finally:
            conn.close()
        os.replace(building, target)
    except BaseException:
        files.remove_database(building)
        raise
    finally:
        if readable is not None and readable != base:
            files.remove_database(readable)
        files.remove_private_copy(private)
    return report


def _readable_copy(source: Path, building: Path) -> Path:
    """``source``, or — when SQLite cannot read its list of tables — a copy whose header has its
    damaged fields repaired (``store.header``: the magic string, the page size, bytes 18–19, the
    page count, …); the log beside it is copied too."""
    first = _unreadable(source, immutable=True)
    if first is None:
        return source
    copy = building.with_name(building.name + "-header")
    header.write_repaired_copy(source, copy, wal=files.wal_pending(source))
    again = _unreadable(copy, immutable=not files.wal_pending(source))
    if again is not None:
        files.remove_database(copy)
        raise WorkspaceDamaged(f"{source}: SQLite cannot read even the list of tables ({first}; with its header "
                               f"repaired: {again}); nothing can be salvaged; open the newest backup beside it")
    return copy


def _unreadable(path: Path, *, immutable: bool) -> str | None:
    """Why SQLite cannot read ``path``'s list of tables, or None when it can."""
    probe = sqlean.connect(file_uri(path, read_only=True, immutable=immutable), uri=True)
    try:
        probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return None
    except sqlean.Error as exc:
        return str(exc)
    finally:
        probe.close()


def _build(conn, source: Path, building: Path, say: Callable[[str], None]) -> list[TableSalvage]:
    schema = _source_schema(conn)
    names = set(schema.tables)
    layout = detect(names)
    if layout is None:
        raise WorkspaceUnusable(f"{source}: its readable tables include no memory_facts table; nothing to salvage")
    meta = _desk_meta(conn, names)
    ws = open_workspace(building, create=True, name=meta.get("workspace_name") or source.stem)
    out = LAYOUTS[SUFFIXED]
    renamed = {getattr(layout, role).name: getattr(out, role).name for role in ROLES}
    report = []
    try:
        with ws.engine.connect() as dest:
            raw = dest.connection.driver_connection
            raw.execute("PRAGMA foreign_keys = OFF")  # copy what is there; check names what dangles
            raw.execute("PRAGMA cache_size = -262144")  # 256 MB: indexes of a big table stay in memory
            raw.execute("BEGIN IMMEDIATE")
            raw.execute("DELETE FROM workspace_meta")
            for trigger in FTS_TRIGGERS:  # the index is rebuilt once at the end, not row by row
                raw.execute(f"DROP TRIGGER {trigger}")
            present = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for src_name in schema.copied():
                dst_name = renamed.get(src_name, src_name)
                if dst_name not in present:  # a table the desk does not know: made as it was
                    made = _make_table(raw, schema, src_name)
                    if made:
                        report.append(TableSalvage(src_name, failed=made))
                        continue
                testpoints.reached("salvage.table")
                say(f"salvaging {src_name}…")
                report.append(_copy_table(conn, raw, src_name, dst_name,
                                          rowid="WITHOUT ROWID" not in schema.tables[src_name].upper()))
            if receipt_blocks.has_rows(raw):  # receipts of the older row layout: into blocks, as migrating does
                receipt_blocks.move_rows(raw)
            raw.execute("INSERT OR REPLACE INTO memdesk_meta (key, value) VALUES ('schema_version', ?)",
                        (str(SCHEMA_VERSION),))
            raw.execute("DELETE FROM memdesk_meta WHERE key = ?", (PENDING_KEY,))  # the new file's log is empty
            workspace_id = meta.get("workspace_id") or _product_workspace_id(raw, out)
            if workspace_id:  # the source's own id, so its rows stay this workspace's
                raw.execute("UPDATE memdesk_meta SET value = ? WHERE key = 'workspace_id'", (workspace_id,))
            report += [TableSalvage(name, failed="a virtual table of a kind Memory Desk does not rebuild; its rows "
                                    "were not copied") for name in schema.foreign_virtual()]
            for statement in fts_statements():
                if "CREATE TRIGGER" in statement:
                    raw.execute(statement)
            raw.execute("COMMIT")
        from memorydesk.store.integrity import repair  # the indexes, from the copied facts

        testpoints.reached("salvage.indexes")
        repair(ws)
    finally:
        ws.close()
    truncate_log(building, wait_ms=1000)
    for suffix in ("-wal", "-shm"):
        Path(f"{building}{suffix}").unlink(missing_ok=True)
    testpoints.reached("salvage.built")  # complete, not yet moved into place
    return report


REBUILT = frozenset({"memory_facts_fts", "memdesk_fact_vectors"})  # made again from the copied facts
ROLES = ("agents", "domains", "facts", "policies", "grants", "conflicts", "edges", "notes", "items",
         "consolidation_log", "beliefs")


@dataclass
class _Schema:
    """The source's tables as ``sqlite_master`` names them: their SQL, indexes, and which are derived."""

    tables: dict[str, str]  # name -> CREATE statement
    indexes: dict[str, list[str]]  # table -> CREATE INDEX statements
    virtual: set[str]
    shadow: set[str]

    def copied(self) -> list[str]:
        """Every table whose rows are copied: all but SQLite's own and the derived indexes (full-text,
        vectors: virtual tables and their shadow tables are rebuilt from the facts)."""
        return [t for t in self.tables if t not in self.virtual and t not in self.shadow
                and not t.startswith("sqlite_")]

    def foreign_virtual(self) -> list[str]:
        """Virtual tables the new workspace does not rebuild (their rows are not copied)."""
        return sorted(self.virtual - REBUILT)


def _source_schema(conn) -> _Schema:
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").fetchall()
    tables = {name: sql or "" for kind, name, _t, sql in rows if kind == "table"}
    indexes: dict[str, list[str]] = {}
    for kind, _name, table, sql in rows:
        if kind == "index" and sql:
            indexes.setdefault(table, []).append(sql)
    virtual = {name for name, sql in tables.items() if sql.upper().startswith("CREATE VIRTUAL TABLE")}
    prefixes = tuple(f"{v}_" for v in virtual & REBUILT)  # sqlite-vec does not mark its shadow tables
    shadow = {t for t in tables if t.startswith(prefixes) and t not in virtual}
    try:
        shadow |= {r[1] for r in conn.execute("PRAGMA main.table_list") if r[2] == "shadow"}
    except sqlean.Error:  # a damaged schema, or a module that is not loaded: by their names
        shadow |= {t for t in tables if t.startswith(tuple(f"{v}_" for v in virtual)) and t not in virtual}
    return _Schema(tables, indexes, virtual, shadow)


def _make_table(raw, schema: _Schema, name: str) -> str:
    """Create a table the new workspace lacks with the source's own statement (and its indexes);
    returns why it could not be made, or ''."""
    try:
        raw.execute(schema.tables[name])
        for statement in schema.indexes.get(name, []):
            raw.execute(statement)
    except sqlean.Error as exc:
        return f"its definition could not be made in the new file: {exc}"
    return ""


def _product_workspace_id(raw, layout) -> str | None:
    """A product file's id (it has no memdesk_meta): its workspace_meta row, else its facts'."""
    for sql in ("SELECT workspace_id FROM workspace_meta ORDER BY id LIMIT 1",
                f'SELECT workspace_id FROM "{layout.facts.name}" LIMIT 1'):
        row = raw.execute(sql).fetchone()
        if row and row[0]:
            return str(row[0])
    return None


def _desk_meta(conn, names: set[str]) -> dict[str, str]:
    if "memdesk_meta" not in names:
        return {}
    try:
        return dict(conn.execute("SELECT key, value FROM memdesk_meta").fetchall())
    except sqlean.Error:
        return {}


def read_budget(src) -> int:
    """Reads one table may take: enough to read every row of every page one at a time, and no more."""
    try:
        pages = int(src.execute("PRAGMA page_count").fetchone()[0])
    except FAILURES:
        pages = 1_000_000
    return 10_000 + 500 * pages


def _copy_table(src, dst, src_name: str, dst_name: str, *, rowid: bool = True) -> TableSalvage:
    """Copy the columns both tables have. ``memdesk_meta`` replaces the new file's keys (its own
    schema version is set again after); a table WITHOUT ROWID is read whole, in one go."""
    result = TableSalvage(dst_name)
    try:
        src_cols = [r[1] for r in src.execute(f'PRAGMA table_info("{src_name}")')]
    except sqlean.Error as exc:
        result.failed = str(exc)
        return result
    dst_cols = {r[1] for r in dst.execute(f'PRAGMA table_info("{dst_name}")')}
    cols = [c for c in src_cols if c in dst_cols]
    quoted = ", ".join(f'"{c}"' for c in cols)
    verb = "INSERT OR REPLACE" if dst_name == "memdesk_meta" else "INSERT OR IGNORE"
    if rowid:
        insert = f'{verb} INTO "{dst_name}" (rowid, {quoted}) VALUES ({", ".join("?" * (len(cols) + 1))})'
        batches = Reader(src, src_name, quoted, result, read_budget(src)).batches()
    else:
        insert = f'{verb} INTO "{dst_name}" ({quoted}) VALUES ({", ".join("?" * len(cols))})'
        batches = _whole(src, src_name, quoted, result)
    for batch in batches:
        testpoints.reached("salvage.batch")
        copied = dst.executemany(insert, batch).rowcount
        result.copied += copied
        result.skipped += len(batch) - copied
    try:
        result.source_rows = int(src.execute(f'SELECT count(*) FROM "{src_name}" NOT INDEXED').fetchone()[0])
    except FAILURES:
        result.source_rows = None
    result.target_rows = int(dst.execute(f'SELECT count(*) FROM "{dst_name}"').fetchone()[0])
    return result


def _whole(src, table: str, columns: str, result: TableSalvage) -> Iterator[list[tuple]]:
    try:
        rows = src.execute(f'SELECT {columns} FROM "{table}"').fetchall()
    except FAILURES as exc:
        result.failed = str(exc)
        return
    for start in range(0, len(rows), BATCH):
        yield rows[start:start + BATCH]
