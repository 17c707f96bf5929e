"""What the import dialog remembers between uses (QSettings): the last folder, time zone
and short-term capacity — so a second import of the same deployment is one click."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from memorydesk.ui.shell.app import APPLICATION, ORGANIZATION

KEYS = ("folder", "timezone", "stm_capacity")


def _store() -> QSettings:
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)


def last() -> dict[str, str]:
    store = _store()
    return {key: str(store.value(f"import_memoryos/{key}", "") or "") for key in KEYS}


def remember(**values: str) -> None:
    store = _store()
    for key, value in values.items():
        store.setValue(f"import_memoryos/{key}", value)
    store.sync()
