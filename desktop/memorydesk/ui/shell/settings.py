"""The desk's settings (QSettings, INI format): recent workspaces, the reviewer's name, and
what the window remembers (``ui.shell.window_state``)."""

from __future__ import annotations

import getpass
from pathlib import Path

from PySide6.QtCore import QSettings

from memorydesk.ui.shell.app import APPLICATION, ORGANIZATION

MAX_RECENT = 10


def _store() -> QSettings:
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)


def store() -> QSettings:
    """The desk's settings file (the window's memory is kept there too: ``ui.shell.window_state``)."""
    return _store()


def recent() -> list[str]:
    value = _store().value("recent", [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in (value or [])]


def add_recent(path: str | Path) -> list[str]:
    path = str(Path(path).resolve())
    items = [path] + [p for p in recent() if p != path]
    items = items[:MAX_RECENT]
    store = _store()
    store.setValue("recent", items)
    store.sync()
    return items


def actor() -> str:
    """Who the history names for a change: the configured name, else the login name."""
    name = str(_store().value("actor", "") or "")
    if name:
        return name
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some sandboxes
        return "reviewer"


def search_cache_mb() -> int | None:
    """The bound on what search keeps in memory, in MB (``search/cache_mb``); None when not set."""
    value = _store().value("search/cache_mb", None)
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def apply_search_cache_setting() -> None:
    """Give search the configured memory bound (the default otherwise: 2 GB, or the environment's).
    Search's modules are loaded here only when a bound is set (the window's first paint needs none)."""
    mb = search_cache_mb()
    if mb is not None and mb >= 0:
        from memorydesk.search.copies.follow import configure

        configure(max_bytes=mb * 1024 * 1024)
