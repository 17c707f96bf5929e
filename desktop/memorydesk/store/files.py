"""Looking at a file before SQLite touches it: what the path is, its header, free space, backups.

These checks turn "file is not a database" and friends into one clear sentence and
refuse truncated files, and paths that are not regular files (a FIFO would block every
read forever), before any connection could write a journal next to them.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

import sqlean

from memorydesk.core import outputs
from memorydesk.core.errors import DiskFull, WorkspaceDamaged, WorkspaceUnusable
from memorydesk.store import header
from memorydesk.store.engine import file_uri

HEADER = b"SQLite format 3\x00"
SIDE_FILES = ("-wal", "-shm", "-journal")
#: Free space kept in reserve on top of what an operation is estimated to need.
SPARE_BYTES = 8 * 2**20
_KINDS = ((stat.S_ISDIR, "is a folder"), (stat.S_ISFIFO, "is a named pipe (FIFO)"), (stat.S_ISSOCK, "is a socket"),
          (stat.S_ISCHR, "is a character device"), (stat.S_ISBLK, "is a block device"))


def inspect_path(path: Path) -> bool:
    """True when ``path`` is a regular file (through symbolic links), False when nothing is there.

    Anything else is refused with one sentence before SQLite could open it: a folder, a
    FIFO, a socket, a device, a loop of symbolic links, a link to nothing; so are side
    files (``-wal``, ``-shm``, ``-journal``) that are not regular files.
    """
    check_length(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise WorkspaceUnusable(f"{path}: a symbolic link to {os.readlink(path)}, which does not exist") from None
        return False
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise WorkspaceUnusable(f"{path}: a loop of symbolic links; point it at a real workspace file") from None
        raise WorkspaceUnusable(f"{path}: cannot look at the file ({exc.strerror or exc})") from None
    _refuse_special(path, info.st_mode, "a workspace database file")
    for suffix in SIDE_FILES:
        side = Path(f"{path}{suffix}")
        try:
            _refuse_special(side, side.stat().st_mode, "a regular file SQLite keeps beside the workspace")
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise WorkspaceUnusable(f"{side}: cannot look at the file ({exc.strerror or exc})") from None
    return True


#: SQLite's unix file system layer opens paths of at most this many bytes (MAX_PATHNAME).
SQLITE_MAX_PATH = 512


def check_length(path: Path) -> None:
    """Refuse a path longer than SQLite can open (it would say only "unable to open")."""
    try:
        size = len(os.fsencode(os.path.abspath(path))) + len("-journal")
    except (UnicodeError, ValueError):
        return
    if size > SQLITE_MAX_PATH:
        raise WorkspaceUnusable(f"{path}: the path is {size - len('-journal'):,} bytes long and SQLite opens paths of "
                                f"at most {SQLITE_MAX_PATH} bytes (with its side files' suffixes); move the file to a "
                                "shorter path")


def _refuse_special(path: Path, mode: int, wanted: str) -> None:
    for test, what in _KINDS:
        if test(mode):
            raise WorkspaceUnusable(f"{path}: {what}, not {wanted}")


def inspect_header(path: Path) -> None:
    """Raise ``WorkspaceUnusable`` unless ``path`` looks like a whole SQLite file; a damaged header
    is said field by field (``store.header``), with the way to read through it."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            head = fh.read(100)
    except PermissionError as exc:
        raise WorkspaceUnusable(f"{path}: cannot read the file ({exc.strerror})") from exc
    except OSError as exc:
        raise WorkspaceUnusable(f"{path}: cannot read the file ({exc.strerror or exc})") from exc
    if size == 0:
        raise WorkspaceUnusable(f"{path}: the file is empty, not a workspace database")
    if len(head) < 100:
        if not HEADER.startswith(head[:16]) and not head.startswith(HEADER):
            raise WorkspaceUnusable(f"{path}: not an SQLite database (or it is encrypted)")
        raise WorkspaceUnusable(f"{path}: the file is truncated ({size} bytes, shorter than an SQLite header)")
    if not head.startswith(HEADER) and not header.looks_like_sqlite(head, size):
        raise WorkspaceUnusable(f"{path}: not an SQLite database (or it is encrypted)")
    # With a WAL beside it, the file may legitimately be shorter than its header says: a
    # checkpoint cut short (a killed process) writes page 1 before the file grows, and
    # SQLite's recovery finishes the job from the WAL.
    found = header.damage(head, size, wal_pending=wal_pending(path))
    if not found:
        return
    if [d.field for d in found] == ["page_count"]:
        if not header.page_count_damaged(path):
            page = header.page_size_of(head)
            raise WorkspaceUnusable(f"{path}: the file is truncated ({size} bytes, its header says "
                                    f"{int.from_bytes(head[28:32], 'big') * page}); open the newest backup beside it")
        found = [header.Damage("page_count", found[0].detail + ", and every page it has reads whole: the count is "
                                                               "damaged, not the file")]
    raise WorkspaceDamaged(f"{path}: the file's header is damaged — {'; '.join(d.detail for d in found)}; "
                           f"`memory-desk salvage {path} OUT.db` reads through a damaged header and copies every "
                           "readable row into a new workspace, or open the newest backup beside it")


def folder_writable(path: Path) -> bool:
    return os.access(path.parent, os.W_OK | os.X_OK)


def database_bytes(path: Path) -> int:
    """The file and its write-ahead log: what a copy of the database can take at most."""
    total = 0
    for suffix in ("", "-wal"):
        try:
            total += Path(f"{path}{suffix}").stat().st_size
        except OSError:
            pass
    return total


def megabytes(n: int) -> str:
    return f"{n / 2**20:,.1f} MB"


def free_bytes(folder: Path) -> int:
    return shutil.disk_usage(folder).free


def require_free(folder: Path, needed: int, what: str) -> None:
    """Refuse with the numbers when ``folder``'s disk has less than ``needed`` (plus a reserve) free."""
    try:
        free = free_bytes(folder)
    except OSError:
        return  # cannot tell: let the operation try (a full disk still rolls back)
    if free < needed + SPARE_BYTES:
        raise DiskFull(f"{folder}: not enough free space for {what}: it needs about "
                       f"{megabytes(needed + SPARE_BYTES)} and {megabytes(free)} are free; free some space "
                       "and try again (nothing was changed)")


def backup_path(path: Path, label: str = "backup") -> Path:
    stamp = dt.datetime.now(dt.timezone.utc).strftime(outputs.BACKUP_STAMP)
    return path.with_name(outputs.backup_name(path, label, stamp))


def backups_beside(path: Path) -> list[Path]:
    """The backups Memory Desk made beside ``path`` (``backup_path``'s names), oldest first."""
    try:
        found = [p for p in path.parent.iterdir() if outputs.is_backup_of(path, p.name) and p.is_file()]
    except OSError:
        return []
    return sorted(found, key=lambda p: p.name.rsplit("-", 1)[-1])


def remove_database(path: Path) -> None:
    """Delete a database file we created, with its side files."""
    for suffix in ("", *SIDE_FILES):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def backup_copy(path: Path, target: Path | None = None, label: str = "backup") -> Path:
    """Copy a live database with SQLite's backup API (consistent even while it is written).

    Refuses up front when the disk lacks the room. The copy is written under a
    temporary name (``partial_name``) and moved into place once complete, so a copy
    that fails half-way (the disk filled anyway) is removed and one cut short by a kill
    is recognised and dealt with at the next open (``settle_partial_backups``).
    """
    target = target or backup_path(path, label)
    if target.exists():
        raise WorkspaceUnusable(f"{target}: already exists; a backup never replaces a file")
    require_free(target.parent, database_bytes(path), f"a backup copy of {path.name}")
    partial = write_partial_backup(path, target)
    os.replace(partial, target)
    return target


def partial_name(target: Path) -> Path:
    return target.with_name(outputs.partial_name(target, os.getpid()))


def write_partial_backup(path: Path, target: Path, *, verify: bool = False) -> Path:
    """The backup of ``path`` under ``partial_name(target)`` (removed again if it fails).

    ``verify``: the copy is then opened and must hold every table of the source with the
    same row count (counted in the read transaction the copy was made in), else
    ``WorkspaceUnusable`` and no copy is left: a backup that is not one never stands in
    for the file."""
    partial = partial_name(target)
    try:
        src = sqlean.connect(file_uri(path, read_only=True), uri=True, isolation_level=None)
        try:
            src.execute("BEGIN")  # the counts and the copy see one snapshot
            counts = table_counts(src) if verify else {}
            dst = sqlean.connect(file_uri(partial, read_only=False), uri=True)
            try:
                src.backup(dst)
            finally:
                dst.close()
            src.execute("COMMIT")
        finally:
            src.close()
        if verify:
            _verify_backup(path, partial, counts)
    except BaseException:
        remove_database(partial)
        raise
    return partial


def table_counts(conn: sqlean.Connection) -> dict[str, int]:
    """Row count of every ordinary table (virtual tables are counted through their shadow tables)."""
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                        "coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name")]
    return {name: int(conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]) for name in names}


def _verify_backup(path: Path, partial: Path, counts: dict[str, int]) -> None:
    try:
        conn = sqlean.connect(file_uri(partial, read_only=True, immutable=True), uri=True)  # no side files
        try:
            found = table_counts(conn)
        finally:
            conn.close()
    except sqlean.Error as exc:
        raise WorkspaceUnusable(f"{path}: the backup copy made before the first change cannot be read ({exc}); "
                                "nothing was changed") from None
    if found != counts:
        differ = sorted(set(found) ^ set(counts)) or [t for t in counts if found.get(t) != counts[t]]
        raise WorkspaceUnusable(f"{path}: the backup copy made before the first change does not hold what the file "
                                f"holds ({differ[0]}: {counts.get(differ[0], 'absent')} rows in the file, "
                                f"{found.get(differ[0], 'absent')} in the copy); nothing was changed")


_PARTIAL = re.compile(r"\.(?P<name>.+)\.partial-(?P<pid>\d+)(?P<side>-journal|-wal|-shm)?")


def settle_partial_backups(path: Path, *, complete: bool) -> list[Path]:
    """Backups of ``path`` left under their temporary name by a process that was killed.

    ``complete``: the change the backup was made for was committed (the file is at our
    schema), so the copy is whole: it takes its final name. Otherwise it is deleted.
    Returns what was deleted or renamed."""
    settled = []
    try:
        candidates = list(path.parent.glob(f".{path.stem}.*.partial-*"))
    except OSError:
        return []
    for candidate in candidates:
        match = _PARTIAL.fullmatch(candidate.name)
        if match is None or process_alive(int(match["pid"])):
            continue
        if complete and not match["side"]:
            os.replace(candidate, candidate.with_name(match["name"]))
        else:
            candidate.unlink(missing_ok=True)
        settled.append(candidate)
    return settled


def fold_log(path: Path) -> None:
    """Fold the write-ahead log into the database file so the file can be moved on its own."""
    conn = sqlean.connect(str(path))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def building_path(path: Path, tag: str) -> Path:
    """Where a new file for ``path`` is built before it is moved into place (``.NAME.TAG-PID``)."""
    return path.with_name(outputs.build_name(path, tag, os.getpid()))


def remove_dead_builds(path: Path, tag: str) -> list[Path]:
    """Delete files that builds of ``path`` (``building_path``) left when their process was killed."""
    pattern = re.compile(re.escape(f".{path.name}.{tag}-") + r"(\d+)(?:-header)?(?:-wal|-shm|-journal)?")
    removed = []
    for candidate in sorted(path.parent.glob(f".{path.name}.{tag}-*")):
        match = pattern.fullmatch(candidate.name)
        if match is None or process_alive(int(match[1])):
            continue
        candidate.unlink(missing_ok=True)
        removed.append(candidate)
    return removed


BUILD_TAGS = outputs.BUILD_TAGS


def remove_all_dead_builds(path: Path) -> list[Path]:
    """What killed runs of the desk's own commands left beside ``path`` (every ``building_path`` tag)."""
    return [p for tag in BUILD_TAGS for p in remove_dead_builds(path, tag)]


def process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


COPY_PREFIX = "memorydesk-copy-"


def wal_pending(path: Path) -> bool:
    """``path-wal`` holds something (committed changes may be there and not yet in the file)."""
    try:
        return Path(f"{path}-wal").stat().st_size > 0
    except OSError:
        return False


def private_copy(path: Path, attempts: int = 3) -> Path:
    """The file and its write-ahead log copied into a private temporary folder; returns the copy.

    For a file that must be read without writing beside it (a folder the person cannot write,
    a read-only mount) while ``-wal`` holds committed changes: opened immutable, SQLite would
    silently ignore them; the copy is read with its log. The copy is made again when the file
    changed while it was copied. ``remove_private_copy`` deletes it; folders left by a killed
    process are removed the next time a copy is made."""
    base = Path(tempfile.gettempdir())
    for old in base.glob(f"{COPY_PREFIX}*"):
        pid = old.name.removeprefix(COPY_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    require_free(base, database_bytes(path), f"a private copy of {path.name} and its write-ahead log")
    folder = Path(tempfile.mkdtemp(prefix=f"{COPY_PREFIX}{os.getpid()}-", dir=base))
    target = folder / (path.name if len(path.name) < 200 else "workspace.db")
    try:
        for _ in range(attempts):
            before = _stamp(path)
            shutil.copyfile(path, target)
            shutil.copyfile(f"{path}-wal", f"{target}-wal")
            if _stamp(path) == before:
                return target
        raise WorkspaceUnusable(f"{path}: the file kept changing while Memory Desk copied it to read it (its folder "
                                "cannot be written, so it is read from a copy); try again")
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise WorkspaceUnusable(f"{path}: cannot copy the file to read its recent changes "
                                f"({exc.strerror or exc}); open a copy made elsewhere") from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def remove_private_copy(copy: Path | None) -> None:
    if copy is not None and copy.parent.name.startswith(COPY_PREFIX):
        shutil.rmtree(copy.parent, ignore_errors=True)


def _stamp(path: Path) -> tuple:
    out = []
    for suffix in ("", "-wal"):
        info = Path(f"{path}{suffix}").stat()
        out.append((info.st_size, info.st_mtime_ns, info.st_ino))
    return tuple(out)
