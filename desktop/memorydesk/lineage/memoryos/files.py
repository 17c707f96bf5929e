"""Finding and reading the files of a MemoryOS data directory.

The layout (MemoryOS's ``data_storage_path``)::

    users/<user_id>/short_term.json        STM
    users/<user_id>/mid_term.json          MTM
    users/<user_id>/long_term_user.json    LPM: profile and the user's knowledge
    assistants/<assistant_id>/long_term_assistant.json   LPM: the assistant's knowledge

MemoryOS creates the folders when it starts and each file when it first saves it (the
long-term ones only after the first promotion), so any file may be missing. It
rewrites whole files in place, so a reader can catch one half written: a file that is
not complete JSON is read again after a short pause, and only refused when it stays so.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memorydesk.core.errors import BadInput
from memorydesk.core.inputs import JSON_HOOKS, check_json_strings

SHORT_TERM, MID_TERM, LONG_TERM_USER = "short_term.json", "mid_term.json", "long_term_user.json"
LONG_TERM_ASSISTANT = "long_term_assistant.json"
USER_FILES = (SHORT_TERM, MID_TERM, LONG_TERM_USER)

__all__ = ["IncompleteJson", "Layout", "NotMemoryOS", "find_layout", "read_json", "snapshot"]


class NotMemoryOS(BadInput):
    """DATA_DIR is not a MemoryOS data directory."""


class IncompleteJson(BadInput):
    """A file that is not complete JSON (truncated, or caught while MemoryOS rewrote it)."""

    def __init__(self, relative: str, detail: str) -> None:
        super().__init__(f"{relative}: not complete JSON ({detail}); the file is truncated or was being "
                         "written — nothing was imported")
        self.relative = relative


@dataclass(frozen=True)
class Layout:
    root: Path
    users: tuple[str, ...]
    assistants: tuple[str, ...]

    def user_file(self, user: str, name: str) -> Path:
        return self.root / "users" / user / name

    def assistant_file(self, assistant: str) -> Path:
        return self.root / "assistants" / assistant / LONG_TERM_ASSISTANT

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def files(self) -> Iterator[Path]:
        for user in self.users:
            for name in USER_FILES:
                yield self.user_file(user, name)
        for assistant in self.assistants:
            yield self.assistant_file(assistant)


def _subfolders(path: Path) -> tuple[str, ...]:
    try:
        return tuple(sorted(p.name for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")))
    except OSError:
        return ()


def find_layout(data_dir: str | os.PathLike[str]) -> Layout:
    """The users and assistants of a MemoryOS data directory, or one sentence why it is not one."""
    root = Path(data_dir).expanduser()
    if not root.exists():
        raise NotMemoryOS(f"{root}: no such folder")
    if not root.is_dir():
        raise NotMemoryOS(f"{root}: is a file; give the MemoryOS data folder (the one holding users/ and assistants/)")
    users, assistants = _subfolders(root / "users"), _subfolders(root / "assistants")
    if not users and not assistants:
        hint = ""
        if (root / "data" / "users").is_dir() or (root / "data" / "assistants").is_dir():
            hint = f"; its data/ folder is one — pass {root / 'data'}"
        raise NotMemoryOS(f"{root}: not a MemoryOS data directory (it has no users/<user_id>/ or "
                          f"assistants/<assistant_id>/ folders){hint}")
    layout = Layout(root, users, assistants)
    for path in layout.files():
        if path.exists() and not path.is_file():
            raise NotMemoryOS(f"{layout.relative(path)}: is not a file")
    if not any(path.is_file() for path in layout.files()):
        raise NotMemoryOS(f"{root}: not a MemoryOS data directory (no users/<user_id>/{SHORT_TERM}, {MID_TERM} or "
                          f"{LONG_TERM_USER}, no assistants/<assistant_id>/{LONG_TERM_ASSISTANT})")
    return layout


def read_json(path: Path, relative: str, *, attempts: int = 3, pause: float = 0.1) -> Any | None:
    """The decoded file, ``None`` when it does not exist; :class:`IncompleteJson` when it
    stays incomplete over ``attempts`` reads ``pause`` seconds apart."""
    detail = ""
    for attempt in range(attempts):
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise BadInput(f"{relative}: cannot read it ({exc.strerror or exc})") from None
        try:
            value = json.loads(raw.decode("utf-8"), **JSON_HOOKS)
            check_json_strings(value, relative)
            return value
        except UnicodeDecodeError as exc:
            raise BadInput(f"{relative}: not UTF-8 text (byte {exc.start + 1})") from None
        except RecursionError:
            raise BadInput(f"{relative}: JSON nested too deeply") from None
        except json.JSONDecodeError as exc:
            detail = "the file is empty" if not raw.strip() else f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
        except ValueError as exc:  # a number out of range (JSON_HOOKS)
            raise BadInput(f"{relative}: {exc}") from None
        if attempt + 1 < attempts:
            time.sleep(pause)
    raise IncompleteJson(relative, detail)


def snapshot(layout_root: Path) -> tuple[tuple[str, int, int], ...]:
    """What a watcher compares between polls: each MemoryOS file's path, size and mtime."""
    found = []
    for pattern in ("users/*/*.json", "assistants/*/*.json"):
        for path in layout_root.glob(pattern):
            try:
                stat = path.stat()
            except OSError:
                continue
            found.append((path.relative_to(layout_root).as_posix(), stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(found))
