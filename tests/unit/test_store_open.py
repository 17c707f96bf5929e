"""Opening files: create, adopt, read-only, backups, migrations and refusals."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
import sqlean
from sqlalchemy import func, select

from helpers import sha256
from memorydesk.core.errors import ReadOnlyWorkspace, SchemaTooNew, WorkspaceUnusable
from memorydesk.store import files, open_workspace, ours
from memorydesk.store.layout import SUFFIXED, UNSUFFIXED
from memorydesk.store.models import PRODUCT_MODELS, MemoryFact
from memorydesk.store.product_ddl import product_schema_statements

PRODUCT_TABLES = {m.__tablename__ for m in PRODUCT_MODELS}


def _names(path: Path) -> set[str]:
    conn = sqlean.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()


def _dump(path: Path, tables: list[str]) -> dict[str, list[tuple]]:
    conn = sqlean.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return {t: conn.execute(f'SELECT * FROM "{t}" ORDER BY rowid').fetchall() for t in tables}
    finally:
        conn.close()


def test_new_path_gets_the_full_schema(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    with open_workspace(path, name="Team", create=True) as ws:
        assert ws.layout.kind == SUFFIXED and not ws.read_only and ws.desk_schema == ours.SCHEMA_VERSION
        with ws.read() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA user_version").scalar() == 13
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA secure_delete").scalar() == 1
            assert conn.exec_driver_sql("SELECT vec_version()").scalar().startswith("v")
            meta = dict(conn.exec_driver_sql("SELECT key, value FROM memdesk_meta").all())
            ws_meta = conn.exec_driver_sql("SELECT workspace_id FROM workspace_meta").scalar()
    assert meta == {"schema_version": str(ours.SCHEMA_VERSION), "workspace_id": ws.workspace_id,
                    "workspace_name": "Team"}
    assert ws_meta == ws.workspace_id
    names = _names(path)
    assert PRODUCT_TABLES <= names
    assert {"memdesk_meta", "memdesk_history", "memdesk_receipt_blocks", "memdesk_receipt_names", ours.VECTOR_TABLE,
            "memory_facts_fts"} <= names
    assert "memdesk_receipts" not in names  # receipts are stored as blocks only
    assert {"memory_facts_ai", "memory_facts_ad", "memory_facts_au"} <= names


def test_new_file_ddl_matches_the_product_file(sample_db: Path, tmp_path: Path) -> None:
    """Every statement we issue is the one the product's file holds (SQLite drops IF NOT EXISTS)."""
    conn = sqlean.connect(f"file:{sample_db}?immutable=1", uri=True)
    product = {r[0]: " ".join(r[1].split()) for r in conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'memory_facts_fts_%'")}
    conn.close()
    ours_sql = [" ".join(s.replace(" IF NOT EXISTS", "").split()) for s in product_schema_statements()]
    assert sorted(ours_sql) == sorted(product.values())


def test_models_match_the_product_columns(sample_db: Path) -> None:
    conn = sqlean.connect(f"file:{sample_db}?immutable=1", uri=True)
    for model in PRODUCT_MODELS:
        info = conn.execute(f'PRAGMA table_info("{model.__tablename__}")').fetchall()
        table = model.__table__
        assert [r[1] for r in info] == [c.name for c in table.columns], model.__tablename__
        for cid, name, typ, notnull, default, pk in info:
            column = table.columns[name]
            assert column.type.compile(dialect=_sqlite_dialect()) in (typ, "BLOB" if typ == "BLOB" else typ)
            assert bool(notnull) == (not column.nullable) or column.primary_key
            assert bool(pk) == column.primary_key
            ours_default = column.server_default.arg.text if column.server_default is not None else None
            assert ours_default == default, (model.__tablename__, name)
    conn.close()


def _sqlite_dialect():
    from sqlalchemy.dialects import sqlite

    return sqlite.dialect()


def test_every_model_reads_the_product_file(sample_db: Path, expected: dict) -> None:
    before = sha256(sample_db)
    counts = expected["counts"]
    want = {
        "agents_table": counts["agents"], "agent_working_memory_table": counts["agent_working_memory_rows"],
        "memory_domains_table": counts["domains"], "memory_facts_table": counts["facts_total"],
        "memory_policies_table": counts["policies_active"] + counts["policies_inactive"],
        "memory_access_grants_table": counts["grants_rows"], "memory_conflicts_table": counts["conflicts_total"],
        "episodic_edges_table": counts["edges"], "working_memory_items_table": counts["working_memory_items"],
        "memory_consolidation_log_table": counts["consolidation_log_rows"],
        "memory_beliefs_table": counts["beliefs"], "workspace_meta": 1,
    }
    with open_workspace(sample_db, read_only=True) as ws:
        assert ws.workspace_id == expected["workspace_id"]
        with ws.read() as conn:  # the models are Core tables (store.tables): no ORM session
            for model in PRODUCT_MODELS:
                rows = conn.execute(select(model)).all()
                assert len(rows) == want[model.__tablename__], model.__tablename__
            active = conn.scalar(select(func.count()).select_from(MemoryFact).where(
                MemoryFact.superseded_by.is_(None)))
            assert active == counts["facts_active"]
            for spec in expected["specific_facts"]:
                fact = conn.execute(select(MemoryFact).where(MemoryFact.id == spec["id"])).one_or_none()
                assert fact is not None and fact.topic == spec["topic"]
                assert len(fact.content.encode("utf-8")) == spec["content_utf8_bytes"]
    assert sha256(sample_db) == before


def test_read_only_open_never_changes_the_file(product_db: Path) -> None:
    before = sha256(product_db)
    with open_workspace(product_db, read_only=True) as ws:
        assert ws.desk_schema == 0 and ws.read_only
        with ws.read() as conn:
            conn.exec_driver_sql("SELECT * FROM memory_facts_fts WHERE memory_facts_fts MATCH 'pnpm'").all()
        with pytest.raises(ReadOnlyWorkspace):
            with ws.write():
                pass
        assert ws.changed_on_disk() is False
    assert sha256(product_db) == before
    assert "memdesk_meta" not in _names(product_db)


def test_read_only_in_an_unwritable_folder_opens_immutable(product_db: Path, monkeypatch) -> None:
    for suffix in ("-wal", "-shm"):
        Path(str(product_db) + suffix).unlink(missing_ok=True)
    # Tests run as root, where permission bits do not bind: make the folder count as unwritable.
    monkeypatch.setattr(files, "folder_writable", lambda path: False)
    before = sha256(product_db)
    with open_workspace(product_db, read_only=True) as ws:
        assert ws.immutable and not ws.live_refresh
        assert any("live refresh is off" in n for n in ws.notes)
        with ws.read() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM memory_facts_table").scalar() == 12
    assert sha256(product_db) == before
    assert not Path(str(product_db) + "-wal").exists() and not Path(str(product_db) + "-shm").exists()


def _schema_and_rows(path: Path) -> dict[str, list[tuple]]:
    """The file's schema (``sqlite_master``) and the rows of every ordinary table."""
    conn = sqlean.connect(f"file:{path}?immutable=1", uri=True)
    try:
        out = {"sqlite_master": conn.execute("SELECT * FROM sqlite_master ORDER BY name").fetchall()}
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                    "sql NOT LIKE 'CREATE VIRTUAL%'"):
            out[name] = sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
        return out
    finally:
        conn.close()


def test_opening_read_write_and_closing_changes_nothing(product_db: Path) -> None:
    """Issue 22 point 14: no tables added, no backup, until the first change."""
    from memorydesk.browse.detail import fact_detail
    from memorydesk.browse.facts import counts
    from memorydesk.search.agent import search

    before = _schema_and_rows(product_db)
    with open_workspace(product_db) as ws:
        assert not ws.read_only and ws.desk_schema == 0 and not ws.adopted and ws.backup is None
        assert search(ws, "pnpm turbo", mode="keyword").hits
        assert counts(ws) and fact_detail(ws, "f-01") is not None
        assert ws.take_notice() == ""
    assert _schema_and_rows(product_db) == before
    assert files.backups_beside(product_db) == []
    assert sorted(p.name for p in product_db.parent.iterdir() if "backup" in p.name) == []


def test_the_first_change_backs_up_then_adds_our_tables(product_db: Path) -> None:
    from memorydesk.memory.reviewer import Reviewer

    product_rows = _dump(product_db, sorted(PRODUCT_TABLES))
    with open_workspace(product_db) as ws:
        Reviewer(ws, "tester", embedder=False).delete_facts(["f-03"], reason="wrong deploy day")
        assert ws.backup is not None and ws.backup.parent == product_db.parent
        assert ws.backup.name.startswith("product.backup-") and ws.backup.suffix == ".db"
        assert _dump(ws.backup, sorted(PRODUCT_TABLES)) == product_rows
        assert "memdesk_meta" not in _names(ws.backup)
        assert ws.workspace_id == "5b0c3f7e-1d2a-4c6b-9e8f-0a1b2c3d4e5f"
        with ws.read() as conn:
            assert conn.exec_driver_sql(f"SELECT count(*) FROM {ours.VECTOR_TABLE}").scalar() == 0
        notice = ws.take_notice()
        assert "added its own tables" in notice and str(ws.backup) in notice and product_db.name in notice
        assert ws.take_notice() == ""  # said once
        Reviewer(ws, "tester", embedder=False).restore_facts(["f-03"], reason="it was right")
        assert ws.take_notice() == "" and files.backups_beside(product_db) == [ws.backup]
    assert {"memdesk_meta", "memdesk_history", "memdesk_receipt_blocks"} <= _names(product_db)
    with open_workspace(product_db) as again:  # adopted once: no second backup
        assert again.adopted and again.backup is None


def test_adoption_indexes_existing_embeddings(sample_db: Path, expected: dict) -> None:
    with open_workspace(sample_db) as ws:
        ws.adopt()
        with ws.read() as conn:
            n = conn.exec_driver_sql(f"SELECT count(*) FROM {ours.VECTOR_TABLE}").scalar()
    assert n == expected["counts"]["facts_total"] - expected["counts"]["facts_without_embedding"]


def test_newer_product_layout_is_detected_and_adopted(newer_product_db: Path) -> None:
    with open_workspace(newer_product_db, read_only=True) as ws:
        assert ws.layout.kind == UNSUFFIXED and ws.layout.facts.name == "memory_facts"
        with ws.read() as conn:
            assert conn.execute(select(func.count()).select_from(ws.layout.facts)).scalar() == 12
            assert conn.execute(select(func.count()).select_from(ws.layout.grants)).scalar() == 32
    with open_workspace(newer_product_db) as ws:
        ws.adopt()
        assert ws.backup is not None
    names = _names(newer_product_db)
    assert "memdesk_meta" in names and "memory_facts_table" not in names


def test_newer_desk_schema_is_refused(product_db: Path) -> None:
    with open_workspace(product_db) as ws:
        with ws.write() as conn:
            conn.exec_driver_sql("UPDATE memdesk_meta SET value = '99' WHERE key = 'schema_version'")
    before = sha256(product_db)
    for read_only in (True, False):
        with pytest.raises(SchemaTooNew, match=rf"schema 99.*up to {ours.SCHEMA_VERSION}"):
            open_workspace(product_db, read_only=read_only)
    assert sha256(product_db) == before


def test_older_desk_schema_is_backed_up_then_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with open_workspace(path, create=True) as ws:
        with ws.write() as conn:  # freeze the file at schema 1: no vector index yet, receipts as rows
            conn.exec_driver_sql(f"DROP TABLE {ours.VECTOR_TABLE}")
            ours.DeskReceipt.__table__.create(conn)
            conn.exec_driver_sql("UPDATE memdesk_meta SET value = '1' WHERE key = 'schema_version'")
    with open_workspace(path, read_only=True) as ws:
        assert ws.desk_schema == 1 and not ws.has_vectors
    with open_workspace(path) as ws:
        assert ws.desk_schema == 1 and ws.backup is None  # opening changes nothing
        ws.adopt()
        assert ws.backup is not None and f"before-schema-{ours.SCHEMA_VERSION}" in ws.backup.name
        assert ws.desk_schema == ours.SCHEMA_VERSION
    assert ours.VECTOR_TABLE in _names(path)
    assert ours.VECTOR_TABLE not in _names(ws.backup)


@pytest.mark.parametrize("kind", ["text", "empty", "random", "truncated", "plain_sqlite", "folder"])
def test_bad_files_are_refused_and_untouched(tmp_path: Path, product_db: Path, kind: str) -> None:
    path = tmp_path / f"{kind}.db"
    if kind == "text":
        path.write_text("these are my notes, not a database\n")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "random":  # an encrypted database looks like noise from the first byte
        path.write_bytes(os.urandom(8192))
    elif kind == "truncated":
        data = product_db.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif kind == "plain_sqlite":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE recipes (name TEXT)")
        conn.commit()
        conn.close()
    else:
        path.mkdir()
    before = None if path.is_dir() else sha256(path)
    for read_only in (True, False):
        with pytest.raises(WorkspaceUnusable) as info:
            open_workspace(path, read_only=read_only)
        message = str(info.value)
        assert "\n" not in message and str(path) in message
    if before is not None:
        assert sha256(path) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(kind)) == [path.name]


def test_locked_file_gets_a_clear_message(product_db: Path) -> None:
    holder = sqlean.connect(str(product_db), isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(WorkspaceUnusable, match="locked by another program"):
            open_workspace(product_db, read_only=True, timeout_ms=100)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_data_version_sees_another_process_commit(product_db: Path) -> None:
    with open_workspace(product_db) as ws:
        assert ws.changed_on_disk() is False
        other = sqlean.connect(str(product_db))
        other.execute("UPDATE memory_facts_table SET recall_count = recall_count + 1 WHERE id = 'f-01'")
        other.commit()
        other.close()
        assert ws.changed_on_disk() is True
        assert ws.changed_on_disk() is False


def test_backup_copy_is_a_consistent_database(product_db: Path, tmp_path: Path) -> None:
    target = files.backup_copy(product_db, tmp_path / "copy.db")
    assert _dump(target, ["memory_facts_table"]) == _dump(product_db, ["memory_facts_table"])


def test_a_short_file_with_a_pending_wal_is_not_called_truncated(product_db: Path, tmp_path: Path) -> None:
    """After a checkpoint cut short by a kill, page 1 may promise more pages than the file has
    yet; the WAL beside it still holds them, so only a file without a WAL is truncated."""
    data = product_db.read_bytes()
    short = tmp_path / "short.db"
    short.write_bytes(data[: len(data) - 4096])
    with pytest.raises(WorkspaceUnusable, match="truncated"):
        files.inspect_header(short)
    Path(f"{short}-wal").write_bytes(b"\x37\x7f\x06\x82" + b"\x00" * 28)
    files.inspect_header(short)  # no verdict from the header alone: SQLite recovers from the WAL
