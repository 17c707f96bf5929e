"""The first 100 bytes of an SQLite file: what in them is damaged, said once, and repaired once.

One rule for both users of the header: ``files.inspect_header`` (every open, and so ``check``)
says what is actually wrong with a header SQLite would refuse — the magic string, the
page size, the file-format bytes 18–19, the payload fractions, the schema format, the text
encoding, or a page count the file does not have — instead of "not an SQLite database" or
"truncated"; ``repaired`` gives the header with exactly those fields set to values SQLite
reads, which is how ``salvage`` reads through a damaged header (from a copy; the source
is never written). A page count larger than the file is the file's truncation only when
the pages it has do not hold the database whole (``page_count_damaged`` asks SQLite).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import sqlean

from memorydesk.store.engine import file_uri

MAGIC = b"SQLite format 3\x00"
SIZE = 100
PAGE_TYPES = (0x02, 0x05, 0x0A, 0x0D)  # the b-tree page kinds; page 1's header starts at byte 100


def page_size_of(head: bytes) -> int:
    value = int.from_bytes(head[16:18], "big")
    return 65536 if value == 1 else value


def _valid_page_size(size: int) -> bool:
    return 512 <= size <= 65536 and not size & (size - 1)


def _int(head: bytes, start: int) -> int:
    return int.from_bytes(head[start:start + 4], "big")


@dataclass(frozen=True)
class Damage:
    """One damaged header field: where it is and what it holds, in words."""

    field: str
    detail: str


def looks_like_sqlite(head: bytes, size: int) -> bool:
    """Apart from the magic string, the header holds what every SQLite file holds (fixed payload
    fractions 64/32/32, a page size that divides the file): a damaged mark, not another kind of file."""
    return len(head) >= SIZE and head[21:24] == b"\x40\x20\x20" and (
        _valid_page_size(page_size_of(head)) and size % page_size_of(head) == 0)


def damage(head: bytes, size: int, *, wal_pending: bool) -> list[Damage]:
    """The fields of a whole header (``len(head) == 100``) that SQLite would refuse, in file order.

    The page count counts only when it claims more pages than the file has and SQLite trusts it
    (its version-valid-for number matches the change counter) with no log beside the file."""
    found = []
    if head[:16] != MAGIC:
        found.append(Damage("magic", f"bytes 0–15 hold {head[:16]!r}, not SQLite's mark 'SQLite format 3'"))
    page = page_size_of(head)
    if not _valid_page_size(page):
        found.append(Damage("page_size", f"bytes 16–17 say the page size is {page}, which no SQLite file has"))
    if head[18] not in (1, 2) or head[19] not in (1, 2):
        found.append(Damage("format", f"bytes 18–19 (the file-format versions) hold {head[18]} and {head[19]}, "
                                      "where SQLite writes 1 (rollback journal) or 2 (write-ahead log)"))
    if head[21:24] != b"\x40\x20\x20":
        found.append(Damage("fractions", f"bytes 21–23 (the payload fractions) hold {head[21]}, {head[22]} and "
                                         f"{head[23]}, where every SQLite file has 64, 32 and 32"))
    if not 1 <= _int(head, 44) <= 4:
        found.append(Damage("schema_format", f"bytes 44–47 (the schema format) hold {_int(head, 44)}, not 1 to 4"))
    if _int(head, 56) not in (1, 2, 3):
        found.append(Damage("encoding", f"bytes 56–59 (the text encoding) hold {_int(head, 56)}, not 1, 2 or 3"))
    count = _int(head, 28)
    if _valid_page_size(page) and _int(head, 92) == _int(head, 24) and count and size < count * page \
            and not wal_pending:
        found.append(Damage("page_count", f"bytes 28–31 say the file has {count:,} pages of {page:,} bytes, and it "
                                          f"has {size // page:,} ({size:,} bytes)"))
    return found


def guess_page_size(path: Path, size: int) -> int:
    """The page size of a file whose header lost it: the one whose second page starts like a b-tree
    (or is a free or overflow page of zeros); 4096, SQLite's default, when none or several fit."""
    fits = []
    with path.open("rb") as fh:
        for candidate in (2**n for n in range(9, 17)):
            if size % candidate or size < 2 * candidate:
                continue
            fh.seek(candidate)
            first = fh.read(1)
            if first and first[0] in PAGE_TYPES:
                fits.append(candidate)
    return fits[0] if len(fits) == 1 else 4096


def repaired(head: bytes, size: int, *, page_size: int, wal: bool) -> bytes:
    """``head`` with every field ``damage`` names (and the page count, always) set to what SQLite reads:
    the mark, ``page_size``, format versions 1/1 (2/2 with a log beside the copy), the fixed fractions,
    schema format 4, UTF-8, the file's own page count, no free list when it points past the file."""
    out = bytearray(head[:SIZE].ljust(SIZE, b"\x00"))
    out[:16] = MAGIC
    out[16:18] = (1 if page_size == 65536 else page_size).to_bytes(2, "big")
    out[18:20] = b"\x02\x02" if wal else b"\x01\x01"
    if page_size - out[20] < 480:
        out[20] = 0
    out[21:24] = b"\x40\x20\x20"
    pages = size // page_size
    out[28:32] = pages.to_bytes(4, "big")
    out[92:96] = out[24:28]  # the count is valid for this change counter
    if _int(out, 32) > pages or _int(out, 36) > pages:
        out[32:40] = bytes(8)
    if not 1 <= _int(out, 44) <= 4:
        out[44:48] = (4).to_bytes(4, "big")
    if _int(out, 56) not in (1, 2, 3):
        out[56:60] = (1).to_bytes(4, "big")
    return bytes(out)


def write_repaired_copy(source: Path, copy: Path, *, wal: bool) -> Path:
    """``source`` copied to ``copy`` with its header ``repaired`` (the log copied beside it when ``wal``)."""
    size = source.stat().st_size
    with source.open("rb") as fh:
        head = fh.read(SIZE)
    page = page_size_of(head)
    if not _valid_page_size(page) or size % page:
        page = guess_page_size(source, size)
    shutil.copyfile(source, copy)
    if wal:
        shutil.copyfile(f"{source}-wal", f"{copy}-wal")
    with copy.open("r+b") as fh:
        fh.write(repaired(head, size, page_size=page, wal=wal))
    return copy


def page_count_damaged(path: Path) -> bool:
    """The file holds the whole database although its header counts more pages: read with the count
    set to the pages it has, SQLite's quick_check finds nothing wrong (a truncated file loses pages
    its tables point to). Answered from a private copy; False when no copy can be made."""
    try:
        size = path.stat().st_size
        folder = Path(tempfile.mkdtemp(prefix="memorydesk-header-"))
    except OSError:
        return False
    try:
        if shutil.disk_usage(folder).free < size + 2**24:
            return False
        copy = write_repaired_copy(path, folder / "probe.db", wal=False)
        conn = sqlean.connect(file_uri(copy, read_only=True, immutable=True), uri=True)
        try:
            return conn.execute("PRAGMA quick_check(1)").fetchone()[0] == "ok"
        finally:
            conn.close()
    except (OSError, sqlean.Error):
        return False
    finally:
        shutil.rmtree(folder, ignore_errors=True)
