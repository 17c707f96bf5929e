"""A lazy table model over the facts of one filter and sort.

It holds the list's row keys (8 bytes a fact, read once off the UI thread) and a
cache of row windows read on demand (``WINDOW`` rows at a time, a couple of
milliseconds each, wherever they are in the list). A window that cannot be read
is drawn as disabled "unavailable" rows rather than raising. The model is read-only:
no editing, no inserting, no dropping.
"""

from __future__ import annotations

import array
import logging
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import QApplication

from memorydesk.memory import browse
from memorydesk.memory.browse import FactRow
from memorydesk.store.workspace import Workspace
from memorydesk.ui.text import is_rtl, one_line, when

log = logging.getLogger("memorydesk.ui.facts")

WINDOW = 200
COLUMNS: tuple[tuple[str, str], ...] = (
    ("domain", "Domain"), ("topic", "Topic"), ("content", "Content"), ("memory_type", "Type"),
    ("veracity", "Veracity"), ("confidence", "Confidence"), ("created_at", "Created"),
    ("recall_count", "Recalls"), ("mention_count", "Mentions"), ("state", "State"),
)
NUMERIC = {"confidence", "recall_count", "mention_count"}
_FAILED = object()
Index = QModelIndex | QPersistentModelIndex


class FactTableModel(QAbstractTableModel):
    def __init__(self, ws: Workspace, parent: Any = None) -> None:
        super().__init__(parent)
        self._ws = ws
        self._keys: array.array | None = None
        self._windows: dict[int, Any] = {}
        self._sort: tuple[int, Qt.SortOrder] = (6, Qt.SortOrder.DescendingOrder)
        self.sort_requested = None  # set by the tab: callable(column_name, descending)

    # --- state --------------------------------------------------------------------------

    def set_keys(self, keys: array.array) -> None:
        self.beginResetModel()
        self._keys = keys
        self._windows.clear()
        self.endResetModel()

    def invalidate(self) -> None:
        """Forget the cached rows (they are read again when drawn)."""
        self._windows.clear()
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, len(COLUMNS) - 1))

    def count_known(self) -> bool:
        return self._keys is not None

    def rows_loaded(self) -> int:
        return sum(len(w) for w in self._windows.values() if w is not _FAILED)

    def is_row_loaded(self, row: int) -> bool:
        w = self._windows.get(row // WINDOW)
        return w is not None and w is not _FAILED

    def key_at(self, row: int) -> int | None:
        if self._keys is None or not 0 <= row < len(self._keys):
            return None
        return self._keys[row]

    def row_of_key(self, key: int) -> int | None:
        if self._keys is None:
            return None
        try:
            return self._keys.index(key)
        except ValueError:
            return None

    def fact(self, row: int) -> FactRow | None:
        if self._keys is None or not 0 <= row < len(self._keys):
            return None
        window = self._window(row // WINDOW)
        if window is _FAILED:
            return None
        return window[row % WINDOW]

    def _window(self, w: int) -> Any:
        cached = self._windows.get(w)
        if cached is not None:
            return cached
        assert self._keys is not None
        keys = self._keys[w * WINDOW:(w + 1) * WINDOW]
        try:
            cached = browse.rows_for_keys(self._ws, keys)
        except Exception:  # noqa: BLE001 - drawn as unavailable rows, logged once
            log.warning("could not read rows %d-%d", w * WINDOW, w * WINDOW + len(keys), exc_info=True)
            cached = _FAILED
        self._windows[w] = cached
        return cached

    # --- Qt model -----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.isValid() or self._keys is None:
            return 0
        return len(self._keys)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
                return COLUMNS[section][1]
            if orientation == Qt.Orientation.Vertical:
                return str(section + 1)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if self.fact(index.row()) is None:
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.column() < len(COLUMNS):
            return None
        fact = self.fact(index.row())
        name = COLUMNS[index.column()][0]
        if fact is None:
            if role == Qt.ItemDataRole.DisplayRole:
                return "unavailable" if index.column() == 2 else ""
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(fact, name)
        if role == Qt.ItemDataRole.ToolTipRole and name in ("content", "topic", "domain"):
            return one_line(getattr(fact, name), 1000)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if name in NUMERIC:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        if role == Qt.ItemDataRole.ForegroundRole and fact.state() in ("superseded", "deleted"):
            return QBrush(QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        if role == Qt.ItemDataRole.BackgroundRole and name == "state" and fact.state() == "expired":
            return QBrush(QColor(230, 160, 40, 60))
        if role == Qt.ItemDataRole.UserRole:
            return fact.id
        return None

    @staticmethod
    def _display(fact: FactRow, name: str) -> str:
        if name == "content":
            return one_line(fact.content)
        if name in ("topic", "domain"):
            return one_line(getattr(fact, name), 200)
        if name == "confidence":
            return f"{fact.confidence:.2f}"
        if name == "created_at":
            return when(fact.created_at)
        if name == "state":
            return fact.state()
        return str(getattr(fact, name))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        self._sort = (column, order)
        if self.sort_requested is not None:
            self.sort_requested(COLUMNS[column][0], order == Qt.SortOrder.DescendingOrder)


__all__ = ["COLUMNS", "FactTableModel", "WINDOW", "is_rtl"]
