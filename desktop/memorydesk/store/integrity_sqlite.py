"""What SQLite itself says about a workspace file, as ``check`` problems.

- ``sqlite_corrupt``: each line of ``PRAGMA quick_check`` (or the full ``integrity_check``,
  which also compares every index with its table; FTS5 checks its own index structure
  in both), named by table where SQLite says which; with ``thorough``, FTS5's
  ``integrity-check`` of the full-text index against the fact table (a mismatch there is
  ``fts_out_of_sync``: ``--repair`` rebuilds it).
- ``text_not_utf8``: text SQLite stores but that is not valid UTF-8 (another program can
  write any bytes), one problem per row and column. It reads with U+FFFD everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlalchemy import Connection

from memorydesk.store.engine import raw_connect
from memorydesk.store.errors import READ_FAILURES
from memorydesk.store.ours import DeskHistory, DeskReceipt, DeskReceiptName
from memorydesk.store.workspace import Workspace

Make = Callable[..., object]
MAX_MESSAGES = 1000
_ROW_IN_INDEX = re.compile(r"row (\d+) missing from index (\S+)")
_INDEX = re.compile(r"(?:wrong # of entries in index|non-unique entry in index) (\S+)")
_TREE_PAGE = re.compile(r"(?:Tree|On tree page) (\d+)(?: page (\d+))?")
_PAGE = re.compile(r"Page (\d+)")
_NULL = re.compile(r"NULL value in ([\w]+)\.(\w+)")
_FTS5 = re.compile(r"FTS5 table main\.(\w+)")
_HEADER = re.compile(r"\*\*\* in database \w+ \*\*\*")


def sqlite_messages(conn: Connection, *, thorough: bool, table: str | None = None) -> list[str]:
    """SQLite's findings, one message each, in every form it returns them: one row per message,
    or (b-tree errors, SQLite 3.50) one row ``*** in database main ***`` followed by the
    messages on lines of their own. Only the header lines are dropped; anything but ``ok`` is
    a finding."""
    pragma = "integrity_check" if thorough else "quick_check"
    arg = f'"{table}"' if table else str(MAX_MESSAGES)
    rows = [str(r[0]) for r in conn.exec_driver_sql(f"PRAGMA {pragma}({arg})").all()]
    if rows == ["ok"]:
        return []
    lines = [line.strip() for row in rows for line in row.splitlines()]
    messages = [line for line in lines if line and line != "ok" and not _HEADER.fullmatch(line)]
    return messages or [f"{pragma} did not say ok: {' / '.join(rows)[:300]}"]


def corrupt_problems(conn: Connection, ws: Workspace, *, thorough: bool, make: Make) -> list:
    """One ``sqlite_corrupt`` problem per line SQLite reports.

    When the check itself stops on a damaged page (SQLite raises instead of reporting),
    each table is checked on its own, so the report still names the damaged ones."""
    try:
        messages = sqlite_messages(conn, thorough=thorough)
    except READ_FAILURES:
        return _per_table(conn, thorough=thorough, make=make)
    if not messages:
        return []
    roots, owners = _schema(conn)
    out = []
    for message in messages:
        table, where = _locate(message, roots, owners)
        if table and where.startswith("rowid "):
            where = _row_id(conn, table, int(where.split()[1])) or where
        out.append(make("sqlite_corrupt", table, where, f"SQLite: {message}"))
    return out


def _per_table(conn: Connection, *, thorough: bool, make: Make) -> list:
    _roots, owners = _schema(conn)
    out = []
    for table in sorted({t for t in owners.values()}):
        try:
            messages = sqlite_messages(conn, thorough=thorough, table=table)
        except READ_FAILURES as exc:
            text = str(getattr(exc, "orig", None) or exc)
            out.append(make("sqlite_corrupt", table, "", f"SQLite's check of this table stopped: {text}"))
            continue
        out += [make("sqlite_corrupt", table, "", f"SQLite: {m}") for m in messages]
    if not out:
        out.append(make("sqlite_corrupt", "", "", "SQLite's check stopped on a damaged page it could not place"))
    return out


def _schema(conn: Connection) -> tuple[dict[int, str], dict[str, str]]:
    """Root page → name, and index → its table, as far as the schema can be read."""
    try:
        rows = conn.exec_driver_sql("SELECT name, tbl_name, rootpage FROM sqlite_master").all()
    except READ_FAILURES:
        return {}, {}
    return {int(r[2]): r[1] for r in rows if r[2]}, {r[0]: r[1] for r in rows}


def _locate(message: str, roots: dict[int, str], owners: dict[str, str]) -> tuple[str, str]:
    if m := _ROW_IN_INDEX.search(message):
        return owners.get(m[2], ""), f"rowid {m[1]}"
    if m := _INDEX.search(message):
        return owners.get(m[1], ""), m[1]
    if m := _TREE_PAGE.search(message):
        return roots.get(int(m[1]), ""), f"page {m[2] or m[1]}"
    if m := _NULL.search(message):
        return m[1], m[2]
    if m := _FTS5.search(message):
        return m[1], ""
    if m := _PAGE.search(message):
        return "", f"page {m[1]}"
    return "", ""


def _row_id(conn: Connection, table: str, rowid: int) -> str | None:
    """The row's ``id`` column, when the table has one and the row can still be read."""
    try:
        value = conn.exec_driver_sql(f'SELECT id FROM "{table}" NOT INDEXED WHERE rowid = ?', (rowid,)).scalar()
    except READ_FAILURES:
        return None
    return str(value) if value is not None else None


def fts_content_problems(ws: Workspace, make: Make) -> list:
    """FTS5's own check of the full-text index against the fact table.

    It needs a connection that could write: it runs inside a transaction that is rolled
    back (nothing is written). Skipped, with a note, where the file cannot be written.
    """
    if ws.immutable:
        ws.notes.append("the full-text index was not compared with the fact table: the file is opened immutable")
        return []
    fts = ws.layout.fts
    try:
        conn = raw_connect(ws.path, read_only=False, timeout_ms=1000)
    except Exception:  # noqa: BLE001 - cannot open for writing: say so, the rest of the check stands
        ws.notes.append("the full-text index was not compared with the fact table: the file cannot be written")
        return []
    try:
        conn.execute("BEGIN")
        try:
            conn.execute(f"INSERT INTO {fts}({fts}, rank) VALUES('integrity-check', 1)")
        except Exception as exc:  # noqa: BLE001 - FTS5 reports a mismatch as "malformed"; the lock as busy
            text = str(exc)
            if "locked" in text or "busy" in text:
                ws.notes.append("the full-text index was not compared with the fact table: another program "
                                "was writing")
                return []
            return [make("fts_out_of_sync", fts, "", f"FTS5 integrity-check against the fact table: {text}")]
        finally:
            conn.execute("ROLLBACK")
    finally:
        conn.close()
    return []


def undecodable(raw: bytes | None) -> int | None:
    """Where ``raw`` stops being UTF-8 (None when it is UTF-8 or NULL)."""
    if raw is None:
        return None
    try:
        bytes(raw).decode()
    except UnicodeDecodeError as exc:
        return exc.start
    return None


def damaged_columns(conn: Connection, table, row_id: str) -> list[str]:
    """The text columns of one row (by ``id``) whose stored bytes are not UTF-8."""
    columns = [c.name for c in table.columns if c.type.python_type is str]
    blobs = ", ".join(f'CAST("{c}" AS BLOB)' for c in columns)
    row = conn.exec_driver_sql(f'SELECT {blobs} FROM "{table.name}" WHERE id = ?', (row_id,)).first()
    if row is None:
        return []
    return [c for c, raw in zip(columns, row, strict=True) if undecodable(raw) is not None]


def text_problems(conn: Connection, ws: Workspace, make: Make) -> list:
    """Rows whose text is not valid UTF-8.

    One pass per table reads each row's text columns joined by NUL as bytes (a NUL can
    never complete a UTF-8 sequence, so the join decodes exactly when every column
    does); a row that is not ASCII and does not decode is read again column by column."""
    layout = ws.layout
    tables = [layout.agents, layout.notes, layout.domains, layout.facts, layout.policies, layout.grants,
              layout.conflicts, layout.edges, layout.items, layout.consolidation_log, layout.beliefs]
    if ws.desk_schema >= 1:
        present = {name for (name,) in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'")}
        tables += [t for t in (DeskHistory.__table__, DeskReceipt.__table__, DeskReceiptName.__table__)
                   if t.name in present]
    out = []
    for table in tables:
        columns = [c.name for c in table.columns if c.type.python_type is str]
        if not columns:
            continue
        key = '"id"' if "id" in table.columns else "rowid"
        joined = " || char(0) || ".join(f'coalesce("{c}", \'\')' for c in columns)
        suspects = [(rowid, row_key) for rowid, row_key, raw in conn.exec_driver_sql(
            f'SELECT rowid, {key}, CAST({joined} AS BLOB) FROM "{table.name}"').fetchall()
            if not raw.isascii() and undecodable(raw) is not None]
        blobs = ", ".join(f'CAST("{c}" AS BLOB)' for c in columns)
        for rowid, row_key in suspects:
            row = conn.exec_driver_sql(f'SELECT {blobs} FROM "{table.name}" WHERE rowid = ?', (rowid,)).first()
            for column, raw in zip(columns, row or (), strict=False):
                at = undecodable(raw)
                if at is not None:
                    out.append(make("text_not_utf8", table.name, str(row_key),
                                    f"{column} is not valid UTF-8 (byte 0x{raw[at]:02x} at {at}); "
                                    "it reads with replacement characters (U+FFFD)"))
    return out
