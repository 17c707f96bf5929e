"""An output is never one of its own inputs: the one check every command and dialog that writes a file calls.

``refuse_overwriting_input(out, inputs, option)`` refuses, before anything is read or
written, an output path that is (through symbolic links, ``..``, hard links or a bind
mount: resolved paths and same-file identity are both compared) one of the inputs, a
file SQLite keeps beside an input workspace (``-wal``, ``-shm``, ``-journal``), or a
file inside an input folder. The refusal is one ``BadInput`` sentence (exit 2) that
names the option, the path and what it would destroy.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from pathlib import Path

from memorydesk.core.errors import BadInput

SIDE_SUFFIXES = ("-wal", "-shm", "-journal")


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
    return out
