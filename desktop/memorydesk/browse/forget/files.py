"""The forget check's file paths: the workspace file's own bytes (free pages keep what was
deleted without ``secure_delete``), its write-ahead log, and the backups beside it — each
searched byte for byte (``store.wal.files_holding``, the search purge uses), and a backup
also read as a workspace for the facts' rows by id."""

from __future__ import annotations

from pathlib import Path

from memorydesk.browse.forget.subject import Subject, fact_rows_in
from memorydesk.core.errors import MemoryDeskError
from memorydesk.core.forget.receipt import CANNOT_TELL, GONE, STILL, Answer, Found
from memorydesk.store import Workspace, files, wal

FILE = "file"
SLICE = 32  # bytes of an embedding searched for (a vector's bytes are unique to it)


def needles(subject: Subject) -> list[bytes]:
    """What a byte search looks for: the text's needles as written, and a slice of each vector."""
    out = list(subject.byte_needles)
    for blob in subject.embeddings:
        out += [blob[at:at + SLICE] for at in (0, len(blob) // 2) if len(blob) >= at + SLICE]
    return list(dict.fromkeys(n for n in out if n))


def file_bytes(ws: Workspace, subject: Subject, found: list[bytes]) -> Answer:
    label = f"the workspace file's bytes ({ws.path.name})"
    if not found:
        return Answer("file", label, FILE, CANNOT_TELL, why="nothing of its text or vector is known to look for")
    if wal.files_holding([ws.path], found):
        return Answer("file", label, FILE, STILL, (Found("file", (ws.path.name,)),),
                      "its bytes are in the file (in a row, or on a page a deletion left behind)")
    return Answer("file", label, FILE, GONE, why="no byte of its text or vector is in the file")


def wal_bytes(ws: Workspace, subject: Subject, found: list[bytes]) -> Answer:
    log = Path(f"{ws.path}-wal")
    label = f"the write-ahead log ({log.name})"
    size = wal.wal_bytes(ws.path)
    if size == 0:
        return Answer("wal", label, FILE, GONE, why="the log is empty")
    if not found:
        return Answer("wal", label, FILE, CANNOT_TELL, why=f"the log holds {size:,} bytes and nothing of its text "
                                                          "or vector is known to look for")
    if wal.files_holding([log], found):
        return Answer("wal", label, FILE, STILL, (Found("file", (log.name,)),),
                      "old page images in the log still hold it until the log is checkpointed and emptied")
    return Answer("wal", label, FILE, GONE, why=f"none of its bytes are in the log ({size:,} bytes)")


def backups(ws: Workspace, subject: Subject, found: list[bytes]) -> Answer:
    label = "backups beside the file"
    beside = files.backups_beside(ws.path)
    if not beside:
        return Answer("backups", label, FILE, GONE, why="there is no backup beside the file")
    holding: list[str] = []
    rows: list[str] = []
    unreadable: list[str] = []
    versions = list(subject.versions)
    for path in beside:
        try:
            ids = [r[0] for r in fact_rows_in(path, versions)] if versions else []
        except MemoryDeskError:
            ids = []
            unreadable.append(path.name)
        in_bytes = bool(found) and bool(wal.files_holding([path, Path(f"{path}-wal")], found))
        if ids or in_bytes:
            holding.append(path.name)
            rows += ids
    if holding:
        if rows:
            why = (f"{len(holding)} of {len(beside)} backup(s) still hold it ({len(set(rows))} version row(s) of "
                   "the fact); purging the fact erases it there, or deletes the backups")
        else:
            why = (f"{len(holding)} of {len(beside)} backup(s) still hold its bytes (in a row of the item that "
                   "held it when the backup was made — a fact, a note, a history row — or on a page a deletion "
                   "left behind; this path does not read which); purge that item with “erase from backups”, or "
                   "delete the backups")
        found_in = (Found("file", tuple(holding)),) + ((Found("fact", tuple(dict.fromkeys(rows))),) if rows else ())
        return Answer("backups", label, FILE, STILL, found_in, why)
    if unreadable:
        return Answer("backups", label, FILE, CANNOT_TELL, (Found("file", tuple(unreadable)),),
                      "SQLite could not read these backups (their bytes were searched)")
    if not found:
        return Answer("backups", label, FILE, CANNOT_TELL, why="no backup has a row of it, and nothing of its text "
                                                               "is known to search their bytes for")
    return Answer("backups", label, FILE, GONE, why=f"none of the {len(beside)} backup(s) holds it")
