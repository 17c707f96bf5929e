"""A read-only table over a list of rows held whole (tens to a few thousand rows: policies,
one run's receipts, an import's anomalies, an audit's facts, a burst's conflicts).

A subclass names its ``COLUMNS`` as ``(key, header)`` pairs and answers ``cell(row, key,
role)``; bounds, headers and flags are here once. Lists that can hold millions (the
facts, the conflicts) have their own lazy models.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex
Row = TypeVar("Row")
_NO_PARENT = QModelIndex()


class RowsModel(QAbstractTableModel, Generic[Row]):
    COLUMNS: ClassVar[tuple[tuple[str, str], ...]] = ()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[Row] = []

    def set_rows(self, rows: list[Row]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def row_at(self, row: int) -> Row | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def cell(self, row: Row, key: str, role: int) -> Any:
        """What ``role`` shows for column ``key`` of ``row`` (None: nothing)."""
        return None

    def rowCount(self, parent: Index = _NO_PARENT) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = _NO_PARENT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal \
                and 0 <= section < len(self.COLUMNS):
            return self.COLUMNS[section][1]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows) \
                or not 0 <= index.column() < len(self.COLUMNS):
            return None
        return self.cell(self.rows[index.row()], self.COLUMNS[index.column()][0], role)
