"""A read-only table model of the workspace's policies (a workspace holds tens, not millions)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QPalette
from PySide6.QtWidgets import QApplication

from memorydesk.ui.text import one_line, when

COLUMNS = (("active", "Status"), ("domain", "Domain"), ("rule", "Rule"),
           ("required_role", "Role (advisory)"), ("updated_at", "Updated"))
Index = QModelIndex | QPersistentModelIndex


class PolicyTableModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[dict[str, Any]] = []

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def policy(self, row: int) -> dict[str, Any] | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, policy_id: str) -> int | None:
        for i, r in enumerate(self._rows):
            if r["id"] == policy_id:
                return i
        return None

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal \
                and 0 <= section < len(COLUMNS):
            return COLUMNS[section][1]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows) \
                or not 0 <= index.column() < len(COLUMNS):
            return None
        row = self._rows[index.row()]
        name = COLUMNS[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "active":
                return "active" if row["active"] else "inactive"
            if name == "rule":
                return one_line(row["rule"])
            if name == "updated_at":
                return when(row["updated_at"])
            if name == "required_role":
                return row["required_role"] or "—"
            return str(row[name])
        if role == Qt.ItemDataRole.ToolTipRole:
            if name == "rule":
                return row["rule"][:2000]
            if name == "required_role":
                return "Advisory only: the product records the author's role here but never enforces it."
        if role == Qt.ItemDataRole.ForegroundRole and not row["active"]:
            return QBrush(QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        if role == Qt.ItemDataRole.UserRole:
            return row["id"]
        return None
