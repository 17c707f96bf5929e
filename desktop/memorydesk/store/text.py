"""Connections that read text which is not UTF-8 instead of failing the query.

SQLite stores whatever bytes a program gives it as TEXT; Python's default conversion
(fast, in C) refuses bytes that are not UTF-8 and the whole query fails ("Could not
decode to UTF-8"). A custom ``text_factory`` on every connection would cost every
text value a Python call, so the fast conversion stays until it fails: then that
connection switches to a lenient decoder (U+FFFD for bad bytes) for good, and the
statement runs again from the start, skipping the rows already handed out (in the same
transaction the file shows the same rows in the same order).

Covered: ``execute`` (on the connection and on cursors; it converts the first row
already), ``fetchone``, ``fetchmany``, ``fetchall`` — all SQLAlchemy uses. Iterating a
raw cursor directly keeps C speed and is not covered; code that iterates text that way
should use ``fetchall``.
"""

from __future__ import annotations

from typing import Any

import sqlean

_DECODE = "could not decode to utf-8"


def lenient_text(raw: bytes) -> str:
    """SQLite text as ``str``: UTF-8, with U+FFFD where the bytes are not UTF-8."""
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")


def _undecodable(exc: BaseException) -> bool:
    return _DECODE in str(exc).lower()


class TolerantCursor(sqlean.Cursor):
    """A cursor that, on text it cannot decode, re-runs its statement with the lenient decoder."""

    _sql: str | None = None
    _params: Any = ()
    _taken = 0

    def execute(self, sql: str, parameters: Any = ()) -> TolerantCursor:  # type: ignore[override]
        self._sql, self._params, self._taken = sql, parameters, 0
        try:
            super().execute(sql, parameters)  # it reads the first row already
        except sqlean.OperationalError as exc:
            self._again(exc)
        return self

    def _again(self, exc: Exception) -> None:
        if not _undecodable(exc) or self._sql is None or self.connection.text_factory is lenient_text:
            raise exc
        self.connection.text_factory = lenient_text
        super().execute(self._sql, self._params)
        for _ in range(self._taken):
            super().fetchone()

    def fetchone(self) -> Any:
        try:
            row = super().fetchone()
        except sqlean.OperationalError as exc:
            self._again(exc)
            row = super().fetchone()
        self._taken += row is not None
        return row

    def fetchmany(self, size: int | None = None) -> list[Any]:
        size = self.arraysize if size is None else size
        try:
            rows = super().fetchmany(size)
        except sqlean.OperationalError as exc:
            self._again(exc)
            rows = super().fetchmany(size)
        self._taken += len(rows)
        return rows

    def fetchall(self) -> list[Any]:
        try:
            rows = super().fetchall()
        except sqlean.OperationalError as exc:
            self._again(exc)
            rows = super().fetchall()
        self._taken += len(rows)
        return rows


class TolerantConnection(sqlean.Connection):
    """A connection whose cursors are ``TolerantCursor``s (its ``execute`` shortcut too)."""

    def cursor(self, factory: Any = TolerantCursor) -> Any:  # noqa: D102
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = ()) -> Any:  # noqa: D102
        return self.cursor().execute(sql, parameters)
