"""Lazy list models read a window of rows at a time, on a worker: the part the Facts and
Conflicts lists share.

A model mixes in ``Windowed`` and holds ``_keys`` (the whole list's keys, or None while they
are not known), ``_windows`` (window number → its rows, ``LOADING`` or ``FAILED``),
``_resets`` (a ``ui.runner.Latest``: every reset, ``_stale_windows()``, takes a newer
token, so windows asked for before it are dropped when they arrive), ``fetch`` (set by its
tab: ``fetch(keys, deliver)`` reads the rows off the UI thread and calls ``deliver(rows or
None)`` on it) and a ``window_loaded(first, last)`` signal.
"""

from __future__ import annotations

import logging
from typing import Any

from memorydesk.ui.runner import Latest, Token

log = logging.getLogger("memorydesk.ui.widgets.windowed")

WINDOW = 200
LOADING = object()
FAILED = object()


class Windowed:
    _keys: Any
    _windows: dict[int, Any]
    _resets: Latest
    fetch: Any
    window_loaded: Any

    def _stale_windows(self) -> None:
        """The rows changed under every window asked for so far: they are dropped on arrival."""
        self._resets.take("windows")

    def row_item(self, row: int) -> Any | None:
        """The row's item, or None while its window is loading (or could not be read)."""
        if not 0 <= row < self.rowCount():  # type: ignore[attr-defined]
            return None
        window = self._window(row // WINDOW)
        if window is FAILED or window is LOADING or row % WINDOW >= len(window):
            return None
        return window[row % WINDOW]

    def loaded_items(self) -> list[Any]:
        """The rows of every window read so far (what the list has on hand to show)."""
        return [item for w in self._windows.values() if isinstance(w, list) for item in w if item is not None]

    def loading(self) -> bool:
        """Some window was asked for and has not arrived."""
        return any(w is LOADING for w in self._windows.values())

    def row_loading(self, row: int) -> bool:
        return self._windows.get(row // WINDOW) is LOADING

    def _window(self, w: int) -> Any:
        cached = self._windows.get(w)
        if cached is not None or self._keys is None:
            return cached if cached is not None else FAILED
        if self.fetch is None:
            return FAILED
        keys = self._keys[w * WINDOW:(w + 1) * WINDOW]
        self._windows[w] = LOADING
        token = self._resets.current("windows")
        self.fetch(keys, lambda rows: self._arrived(token, w, rows))
        return LOADING

    def _arrived(self, token: Token, w: int, rows: list[Any] | None) -> None:
        if not token.fresh or self._windows.get(w) is not LOADING:
            return  # the list changed meanwhile; a newer request will come
        if rows is None:
            log.warning("%s: could not read rows %d-%d", type(self).__name__, w * WINDOW, (w + 1) * WINDOW - 1)
        self._windows[w] = rows if rows is not None else FAILED
        first, last = w * WINDOW, min(self.rowCount(), (w + 1) * WINDOW) - 1  # type: ignore[attr-defined]
        if last >= first:
            columns = self.columnCount() - 1  # type: ignore[attr-defined]
            self.dataChanged.emit(self.index(first, 0), self.index(last, columns))  # type: ignore[attr-defined]
            self.window_loaded.emit(first, last)
