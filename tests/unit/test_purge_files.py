"""Purge keeps its word: the text leaves the write-ahead log and the backups beside the file too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fixtures import damage
from memorydesk.core.errors import StaleEdit
from memorydesk.memory.actions.purge import purge
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.store import files, open_workspace, wal
from memorydesk.store.vectors import put_vector

SECRET = "Zebra-7781 passphrase for the staging vault"


def _bytes_of(path: Path) -> bytes:
    return b"".join(Path(f"{path}{s}").read_bytes() for s in ("", "-wal") if Path(f"{path}{s}").exists())


def _plant(ws) -> tuple[str, bytes]:
    """A fact with the secret and an embedding only it has."""
    fid = MemoryService(ws, embedder=False).propose_fact(domain="ops", topic="vault", content=SECRET).fact_id
    vector = np.random.default_rng(5).random(384, dtype=np.float32)
    blob = (vector / np.linalg.norm(vector)).astype(np.float32).tobytes()
    with ws.write() as conn:
        conn.exec_driver_sql("UPDATE memory_facts_table SET embedding = ? WHERE id = ?", (blob, fid))
        put_vector(conn, fid, blob)
    return fid, blob


def _holds(path: Path, blob: bytes) -> bool:
    data = _bytes_of(path)
    return SECRET.encode() in data or any(blob[o:o + 32] in data for o in range(0, 1536, 256))


def test_a_reader_holding_the_log_is_named_and_the_erase_finishes_when_it_lets_go(tmp_path: Path) -> None:
    path = tmp_path / "ws.db"
    ws = open_workspace(path, create=True)
    fid, blob = _plant(ws)
    with damage.reader_holding(path) as reader:
        result = Reviewer(ws, "alice", embedder=False).purge_facts([fid], reason="leaked")
        assert "the erased text is still in ws.db-wal" in result.message
        assert f"(pid {reader.pid})" in result.message and "python" in result.message
        assert ws.pending_erase
        with ws.read() as conn:
            assert wal.is_pending(conn)
        assert _holds(path, blob)  # said, not hidden: the log still has it
    ws.changed_on_disk()  # the desk's poll: the reader is gone, the erase finishes
    assert not ws.pending_erase
    with ws.read() as conn:
        assert not wal.is_pending(conn)
    ws.close()
    assert not _holds(path, blob)


def test_an_erase_left_pending_finishes_at_the_next_open(tmp_path: Path) -> None:
    path = tmp_path / "ws.db"
    with damage.reader_holding(path_of(tmp_path)) as reader:
        ws = open_workspace(path)
        fid, blob = _plant(ws)
        Reviewer(ws, "alice", embedder=False).purge_facts([fid], reason="leaked")
        assert ws.pending_erase
        ws.close()
        reader.kill()  # the other program dies holding the file: nobody folds the log back
        reader.wait(timeout=30)
    assert _holds(path, blob)
    with open_workspace(path) as again:
        assert not again.pending_erase
        with again.read() as conn:
            assert not wal.is_pending(conn)
    assert not _holds(path, blob)


def path_of(tmp_path: Path) -> Path:
    path = tmp_path / "ws.db"
    open_workspace(path, create=True).close()
    return path


def test_without_a_reader_the_purge_is_complete_at_once(tmp_path: Path) -> None:
    path = tmp_path / "ws.db"
    with open_workspace(path, create=True) as ws:
        fid, blob = _plant(ws)
        outcome = purge(ws, "alice", [fid], "leaked")
        assert outcome.complete and outcome.wal is not None and outcome.wal.done
        assert not _holds(path, blob)


def test_backups_holding_the_text_are_listed_then_erased_or_deleted(product_db: Path) -> None:
    text = b"The web app builds with pnpm and turbo"
    with open_workspace(product_db) as ws:
        ws.adopt()  # what the first change does first: the first backup
        backup = ws.backup
        assert backup is not None and text in backup.read_bytes()
        kept = purge(ws, "alice", ["f-01"], "wrong build tool")
        assert [h.path for h in kept.kept] == [backup] and kept.kept[0].fact_ids == ["f-01", "f-02"]  # + older
        assert not kept.complete and any("still holds the text" in line for line in kept.lines())
        assert text not in _bytes_of(product_db)

        erased = purge(ws, "alice", ["f-01"], "wrong build tool", backups="erase")  # now only in the backup
        assert erased.change is None and erased.erased == [backup] and erased.complete
        assert text not in _bytes_of(backup)
        with open_workspace(backup, read_only=True) as old, old.read() as conn:
            left = {r[0] for r in conn.exec_driver_sql("SELECT id FROM memory_facts_table")}
        assert not {"f-01", "f-02"} & left and "f-03" in left  # the rest of the backup is intact

        with pytest.raises(StaleEdit, match="no fact f-01"):
            purge(ws, "alice", ["f-01"], "again")

        second = files.backup_copy(product_db, label="backup")
        deleted = purge(ws, "alice", ["f-03"], "gone", backups="delete")
        assert backup in deleted.deleted or second in deleted.deleted
        assert not backup.exists() and not second.exists() and deleted.complete
