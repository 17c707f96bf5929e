"""The anomaly report of an import as a table: the rows ``--json`` prints."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from memorydesk.lineage.memoryos import Anomaly

COLUMNS = ("Kind", "User", "File", "Path", "Detail")
Index = QModelIndex | QPersistentModelIndex


class AnomalyModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[Anomaly] = []

    def set_anomalies(self, anomalies: list[Anomaly]) -> None:
        self.beginResetModel()
        self.rows = list(anomalies)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def cell(self, row: int, column: int) -> str:
        a = self.rows[row]
        return (a.kind, a.user or "— (assistant file)", a.file, a.path, a.detail)[column]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(index.row(), index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            a = self.rows[index.row()]
            return f"{a.file} {a.path}\n{a.detail}"
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal \
                and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None
