"""Opening files that are not what they should be: every failure one sentence, nothing left behind."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
import sqlean

from fixtures import damage
from helpers import sha256
from memorydesk.core.errors import (
    DiskFull,
    ReadOnlyWorkspace,
    WorkspaceBusy,
    WorkspaceDamaged,
    WorkspaceUnusable,
)
from memorydesk.store import engine, files, open_workspace
from memorydesk.store.errors import explain


def _beside(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


@pytest.mark.parametrize("kind", ["fifo", "socket", "folder", "loop", "dangling", "fifo_wal"])
@pytest.mark.parametrize("read_only", [True, False])
def test_paths_that_are_not_files_are_refused_before_sqlite_opens_them(tmp_path: Path, product_db: Path,
                                                                       kind: str, read_only: bool) -> None:
    path = tmp_path / "odd.db"
    sock = socket.socket(socket.AF_UNIX)
    if kind == "fifo":
        os.mkfifo(path)  # opening it would block every reader forever
    elif kind == "socket":
        sock.bind(str(path))
    elif kind == "folder":
        path.mkdir()
    elif kind == "loop":
        path.symlink_to(tmp_path / "other.db")
        (tmp_path / "other.db").symlink_to(path)
    elif kind == "dangling":
        path.symlink_to(tmp_path / "gone.db")
    else:
        path.write_bytes(product_db.read_bytes())
        os.mkfifo(f"{path}-wal")
    before = _beside(path)
    with sock, pytest.raises(WorkspaceUnusable) as info:
        open_workspace(path, read_only=read_only)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    assert {"fifo": "named pipe", "socket": "socket", "folder": "folder", "loop": "loop of symbolic links",
            "dangling": "which does not exist", "fifo_wal": "named pipe"}[kind] in message
    assert _beside(path) == before  # nothing created, nothing deleted (a link is never removed)


def test_a_missing_path_is_refused_unless_creating(tmp_path: Path) -> None:
    path = tmp_path / "typo.db"
    for read_only in (True, False):
        with pytest.raises(WorkspaceUnusable, match="no such file"):
            open_workspace(path, read_only=read_only)
    assert list(tmp_path.iterdir()) == []
    open_workspace(path, create=True).close()
    with pytest.raises(WorkspaceUnusable, match="already exists"):
        open_workspace(path, create=True)


def _first_change(path: Path, **kw) -> None:
    """Open ``path`` read-write (which writes nothing) and make what the first change makes first."""
    ws = open_workspace(path, **kw)
    try:
        ws.adopt()
    finally:
        ws.close()


def test_a_damaged_product_file_is_not_adopted_and_gets_no_backup(product_db: Path) -> None:
    damage.checkpoint(product_db)
    damage.zero_page(product_db, damage.leaf_pages(product_db, "memory_facts_table")[0])
    before = sha256(product_db)
    with pytest.raises(WorkspaceDamaged, match="damaged.*memory-desk salvage"):
        _first_change(product_db)
    assert sha256(product_db) == before
    assert files.backups_beside(product_db) == []


def test_an_adoption_refused_by_a_lock_leaves_no_backup(product_db: Path) -> None:
    holder = sqlean.connect(str(product_db), isolation_level=None)
    holder.execute("PRAGMA journal_mode = WAL")
    holder.execute("BEGIN IMMEDIATE")  # another program is writing
    holder.execute("UPDATE memory_facts_table SET recall_count = recall_count + 1 WHERE id = 'f-01'")
    try:
        with pytest.raises(WorkspaceBusy, match="locked by another program"):
            _first_change(product_db, timeout_ms=200)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert files.backups_beside(product_db) == []


def test_a_disk_that_fills_during_adoption_rolls_back_and_removes_the_backup(product_db: Path, monkeypatch) -> None:
    """SQLite's own SQLITE_FULL, from ``max_page_count`` (a full disk needs root; ``test_full_disk``
    in the e2e suite uses a real one where it can)."""
    real = engine.raw_connect

    def capped(path: Path, *, read_only: bool, **kw):
        conn = real(path, read_only=read_only, **kw)
        if not read_only:
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(engine, "raw_connect", capped)
    before = sha256(product_db)
    with pytest.raises(DiskFull, match="the disk is full, so nothing was changed"):
        _first_change(product_db)
    assert files.backups_beside(product_db) == []
    damage.checkpoint(product_db)
    assert sha256(product_db) == before


def test_a_backup_is_refused_with_the_numbers_when_the_disk_lacks_room(product_db: Path, monkeypatch) -> None:
    """The free space reported by the operating system is replaced (a disk cannot be filled here
    without root); the check and its sentence are real."""
    monkeypatch.setattr(files, "free_bytes", lambda folder: 1_000_000)
    with pytest.raises(DiskFull, match=r"needs about 8\.\d MB and 1\.0 MB are free"):
        _first_change(product_db)
    assert files.backups_beside(product_db) == []


def test_every_sqlite_error_class_is_one_sentence_naming_the_file(tmp_path: Path, product_db: Path) -> None:
    """Each error comes from SQLite itself; ``explain`` names the file and what to do."""
    caught: dict[str, Exception] = {}

    def catch(name: str, action) -> None:
        try:
            action()
        except sqlean.Error as exc:
            caught[name] = exc

    junk = tmp_path / "junk.db"
    junk.write_bytes(b"x" * 8192)
    catch("notadb", lambda: sqlean.connect(str(junk)).execute("SELECT * FROM sqlite_master").fetchall())
    fmt = tmp_path / "format.db"
    fmt.write_bytes(product_db.read_bytes())
    damage.set_header_int(fmt, 44, 9)
    catch("format", lambda: sqlean.connect(str(fmt)).execute("SELECT * FROM sqlite_master").fetchall())
    broken = tmp_path / "broken.db"
    broken.write_bytes(product_db.read_bytes())
    damage.zero_page(broken, damage.root_page(broken, "memory_facts_table"))
    catch("corrupt", lambda: sqlean.connect(str(broken)).execute("SELECT * FROM memory_facts_table").fetchall())
    full = sqlean.connect(":memory:")
    full.execute("CREATE TABLE t (x)")
    full.execute("PRAGMA max_page_count = 2")
    catch("full", lambda: [full.execute("INSERT INTO t VALUES (?)", ("x" * 4000,)) for _ in range(10)])
    ro = sqlean.connect(f"file:{product_db}?mode=ro", uri=True)
    catch("readonly", lambda: ro.execute("DELETE FROM memory_facts_table"))
    catch("cantopen", lambda: sqlean.connect(str(tmp_path / "no" / "such.db")).execute("SELECT 1"))
    holder = sqlean.connect(str(product_db), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    waiter = sqlean.connect(str(product_db), timeout=0.05)
    catch("busy", lambda: waiter.execute("DELETE FROM memory_facts_table"))
    holder.execute("ROLLBACK")
    assert set(caught) == {"notadb", "format", "corrupt", "full", "readonly", "cantopen", "busy"}
    expected = {
        "notadb": (WorkspaceUnusable, "not an SQLite database"),
        "format": (WorkspaceUnusable, "cannot read this file's format"),
        "corrupt": (WorkspaceDamaged, "memory-desk salvage"),
        "full": (DiskFull, "free some space"),
        "readonly": (ReadOnlyWorkspace, "open it read-only or open a copy"),
        "cantopen": (WorkspaceUnusable, "SQLite cannot open the file"),
        "busy": (WorkspaceBusy, "close that program"),
    }
    for name, exc in caught.items():
        kind, words = expected[name]
        error = explain(product_db, exc)
        assert isinstance(error, kind), name
        assert words in str(error) and str(product_db) in str(error) and "\n" not in str(error), name
    assert explain(product_db, ValueError("a bug")) is None  # ours: keeps its traceback


def test_text_that_is_not_utf8_reads_with_replacement_characters(product_db: Path) -> None:
    from memorydesk.browse.detail import fact_detail
    from memorydesk.search.agent import search
    from memorydesk.search.preamble import build_preamble

    damage.not_utf8(product_db, "memory_facts_table", "content", "id = 'f-01'")
    with open_workspace(product_db, read_only=True) as ws:
        hits = search(ws, "pnpm turbo", mode="keyword").hits
        assert [h.id for h in hits] == ["f-01"] and hits[0].content.endswith("turbo\ufffd")
        assert "turbo\ufffd" in build_preamble(ws, "a-coder", "how does the web app build with pnpm and turbo")
        detail = fact_detail(ws, "f-01")
        assert detail is not None and detail.text_not_utf8 == ("content",)
        assert fact_detail(ws, "f-02").text_not_utf8 == ()


def test_read_only_commands_work_on_a_full_disk(tmp_path: Path, product_db: Path) -> None:
    with damage.small_disk(tmp_path, 4) as disk:
        path = disk / "ws.db"
        path.write_bytes(product_db.read_bytes())
        damage.fill(disk)
        with open_workspace(path, read_only=True) as ws:
            assert ws.immutable and any("the disk is full" in n for n in ws.notes)
            with ws.read() as conn:
                assert conn.exec_driver_sql("SELECT count(*) FROM memory_facts_table").scalar() == 12
        with pytest.raises(DiskFull, match="the disk is full .* or open it read-only"):
            open_workspace(path)
        assert files.backups_beside(path) == []


def _partial_by_a_dead_process(path: Path) -> Path:
    """What a process killed in the middle of adopting ``path`` leaves: its backup under the temporary name."""
    import subprocess
    import sys

    code = ("import sys; from pathlib import Path; from memorydesk.store import files; "
            "p = Path(sys.argv[1]); print(files.write_partial_backup(p, files.backup_path(p)))")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    return Path(done.stdout.strip())


def test_a_backup_cut_short_by_a_kill_is_settled_at_the_next_open(product_db: Path) -> None:
    partial = _partial_by_a_dead_process(product_db)  # killed before the adoption committed
    assert partial.exists() and partial.name.startswith(".product.backup-")
    with open_workspace(product_db) as ws:
        assert not partial.exists() and ws.backup is None  # the open settles it, and writes nothing
        ws.adopt()
    assert files.backups_beside(product_db) == [ws.backup]
    complete = _partial_by_a_dead_process(product_db)  # killed after the commit, before the rename
    with open_workspace(product_db):
        pass
    assert not complete.exists() and len(files.backups_beside(product_db)) == 2


def test_a_connection_switches_to_lenient_text_only_when_it_meets_bad_bytes(tmp_path: Path) -> None:
    from memorydesk.store.engine import raw_connect
    from memorydesk.store.text import lenient_text

    path = tmp_path / "t.db"
    setup = sqlean.connect(str(path))
    setup.execute("CREATE TABLE t (x TEXT)")
    setup.execute("INSERT INTO t VALUES ('a'), (CAST(X'62FF' AS TEXT)), ('c'), ('d'), ('e')")
    setup.commit()
    setup.close()
    want = [("a",), ("b\ufffd",), ("c",), ("d",), ("e",)]
    conn = raw_connect(path, read_only=True)
    assert conn.execute("SELECT x FROM t WHERE x = 'a'").fetchall() == [("a",)]
    assert conn.text_factory is str  # clean reads keep the fast conversion
    cur = conn.execute("SELECT x FROM t ORDER BY rowid")
    assert cur.fetchone() == ("a",)
    assert cur.fetchmany(2) == want[1:3] and cur.fetchall() == want[3:]
    assert conn.text_factory is lenient_text
    conn.close()
    for read in ("fetchall", "fetchmany", "fetchone"):
        conn = raw_connect(path, read_only=True)
        cur = conn.execute("SELECT x FROM t ORDER BY rowid")
        rows = cur.fetchall() if read == "fetchall" else cur.fetchmany(9) if read == "fetchmany" else \
            [cur.fetchone() for _ in range(5)]
        assert rows == want, read
        conn.close()
    engine_ws = engine.make_engine(path, read_only=True)
    with engine_ws.connect() as c:
        assert [tuple(r) for r in c.exec_driver_sql("SELECT x FROM t ORDER BY rowid")] == want
    engine_ws.dispose()
