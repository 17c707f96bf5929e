"""An output is never one of its own inputs: the one check every command and dialog that writes a file calls.

``refuse_overwriting_input(out, inputs, option)`` refuses, before anything is read or
written, an output path that is (through symbolic links, ``..``, hard links or a bind
mount: resolved paths and same-file identity are both compared) one of the inputs, a
file SQLite keeps beside an input workspace (``-wal``, ``-shm``, ``-journal``), a file
inside an input folder, or a file Memory Desk made beside a workspace: a backup made
before the first change (wherever it lies: its name says what it is), a backup still
being written, a build of ``salvage``, ``import memoryos`` or ``demo create`` (and their
side files). Those are inputs too: a backup is the only copy of the file as it was. The
refusal is one ``BadInput`` sentence (exit 2) that names the option, the path and what
it would destroy.

The names of the files the desk makes beside a workspace are defined here, once
(``backup_name``, ``build_name``, ``partial_name``); ``store.files`` makes them with these.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterable
from pathlib import Path

from memorydesk.core.errors import BadInput

SIDE_SUFFIXES = ("-wal", "-shm", "-journal")
BUILD_TAGS = ("salvage", "importing", "building")  # salvage, import memoryos, demo create
BACKUP_STAMP = "%Y%m%dT%H%M%S%fZ"  # UTC, to the microsecond: 8 digits, T, 12 digits, Z
_BACKUP = re.compile(r"(?P<stem>.+)\.(?P<label>[a-z0-9-]+)-(?P<stamp>\d{8}T\d{12}Z)(?P<suffix>\.[^./]+)")
_PARTIAL = re.compile(r"\.(?P<name>.+)\.partial-(?P<pid>\d+)")
_BUILD = re.compile(r"\.(?P<name>.+)\.(?P<tag>" + "|".join(BUILD_TAGS) + r")-(?P<pid>\d+)(?:-header)?")


def backup_name(path: Path, label: str, stamp: str) -> str:
    """The name of a backup of ``path`` made at ``stamp`` (``BACKUP_STAMP``): ``STEM.LABEL-STAMP.SUFFIX``."""
    return f"{path.stem}.{label}-{stamp}{path.suffix or '.db'}"


def is_backup_of(path: Path, name: str) -> bool:
    """``name`` is one of ``backup_name(path, …)``'s names."""
    found = _BACKUP.fullmatch(name)
    return found is not None and found["stem"] == path.stem and found["suffix"] == (path.suffix or ".db")


def names_a_backup(name: str) -> bool:
    """``name`` is one ``backup_name`` gives (of any workspace)."""
    return _BACKUP.fullmatch(name) is not None


def partial_name(target: Path, pid: int) -> str:
    """Where a copy that becomes ``target`` is written first: ``.NAME.partial-PID``."""
    return f".{target.name}.partial-{pid}"


def build_name(path: Path, tag: str, pid: int) -> str:
    """Where a new file for ``path`` is built before it is moved into place: ``.NAME.TAG-PID``."""
    return f".{path.name}.{tag}-{pid}"


def desk_made(name: str) -> str | None:
    """What Memory Desk made under this file name (a phrase), or None for a name it never gives."""
    base = name
    for suffix in SIDE_SUFFIXES:
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base.removesuffix(suffix)
            break
    side = "" if base == name else "the file SQLite keeps beside "
    if (found := _BACKUP.fullmatch(base)) is not None:
        return (f"{side}a backup Memory Desk made of {found['stem']}{found['suffix']} before a change (the only copy "
                "of that file as it was)")
    if (found := _PARTIAL.fullmatch(base)) is not None:
        return f"{side}a copy Memory Desk is writing (or was killed writing) that becomes {found['name']}"
    if (found := _BUILD.fullmatch(base)) is not None:
        return f"{side}a file Memory Desk builds (or was killed building) that becomes {found['name']}"
    return None


def _desk_files_in(folder: Path) -> list[Path]:
    """The files in ``folder`` whose names say the desk made them (for same-file checks)."""
    try:
        return [p for p in folder.iterdir() if desk_made(p.name) is not None]
    except OSError:
        return []


def _resolved(path: Path, option: str) -> Path:
    try:
        return Path(os.path.realpath(path, strict=False))
    except OSError as exc:  # pragma: no cover - realpath(strict=False) raises only on a loop in some Pythons
        if exc.errno == errno.ELOOP:
            raise BadInput(f"{option} {path}: a loop of symbolic links; choose another path (nothing was written)") \
                from None
        raise BadInput(f"{option} {path}: cannot look at the path ({exc.strerror or exc})") from None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def refuse_overwriting_input(out: str | Path, inputs: Iterable[str | Path], option: str) -> Path:
    """``out`` (expanded) when writing it cannot destroy any of ``inputs``; else ``BadInput``.

    ``inputs`` are the files and folders the command reads or writes in place (its
    workspace, its data folder, its receipts file). ``option`` names the output for the
    message (``--receipts-out``, ``OUT.db``, ``the audit file``)."""
    out = Path(out).expanduser()
    if out.is_symlink():
        try:
            out.stat()
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise BadInput(f"{option} {out}: a loop of symbolic links; choose another path "
                               "(nothing was written)") from None
    target = _resolved(out, option)
    for given in inputs:
        if given is None or str(given) in ("", "-"):
            continue
        source = Path(given).expanduser()
        real = _resolved(source, option)
        if target == real or _same_file(out, source):
            raise BadInput(f"{option} {out}: is {source} itself, which this command reads; writing it would "
                           "destroy it; choose another path (nothing was written)")
        for suffix in SIDE_SUFFIXES:
            side = Path(f"{real}{suffix}")
            if target == side or _same_file(out, side):
                raise BadInput(f"{option} {out}: is {source.name}{suffix}, the file SQLite keeps beside {source}; "
                               "writing it would damage the workspace; choose another path (nothing was written)")
        if real.is_dir() and (target == real or real in target.parents):
            raise BadInput(f"{option} {out}: lies inside {source}, the folder this command reads; choose a path "
                           "outside it (nothing was written)")
    for name in (out.name, target.name):  # the path as given, and where its links lead
        _refuse_desk_file(out, name, option)
    folders = {target.parent} | {_resolved(Path(g).expanduser(), option).parent for g in inputs
                                 if g is not None and str(g) not in ("", "-")}
    for folder in folders:  # a hard link (a second name) of a file the desk made beside a workspace
        for made in _desk_files_in(folder):
            if _same_file(out, made):
                _refuse_desk_file(out, made.name, option)
    return out


def _refuse_desk_file(out: Path, name: str, option: str) -> None:
    what = desk_made(name)
    if what is not None:
        raise BadInput(f"{option} {out}: is {name}, {what}; writing it would destroy it; choose another path "
                       "(nothing was written)")
