"""The audited facts as a table: each fact, the query asked (its topic), the stage where the
agent's recall lost it, and the numbers behind it. Read-only; rows are the report's."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from memorydesk.search.loss import STAGE_WORDS
from memorydesk.ui.text import one_line

Index = QModelIndex | QPersistentModelIndex
COLUMNS = (("lost_at", "Where"), ("rank", "Rank"), ("query", "Query (its topic)"), ("domain", "Domain"),
           ("memory_type", "Type"), ("age_days", "Age (days)"), ("score_rank", "By score"),
           ("undecayed_rank", "Undecayed"), ("id", "Fact id"))
NUMERIC = {"rank", "age_days", "score_rank", "undecayed_rank"}


class AuditFactsModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._all: list[dict[str, Any]] = []
        self._rows: list[dict[str, Any]] = []
        self._stage: str | None = None

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self._all = list(rows)
        self._rows = [r for r in self._all if self._stage is None or r["lost_at"] == self._stage]
        self.endResetModel()

    def set_stage(self, stage: str | None) -> None:
        self._stage = stage
        self.set_rows(self._all)

    def row(self, row: int) -> dict[str, Any] | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

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
        if not index.isValid() or not 0 <= index.row() < len(self._rows) or not 0 <= index.column() < len(COLUMNS):
            return None
        entry, name = self._rows[index.row()], COLUMNS[index.column()][0]
        value = entry.get(name)
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "lost_at":
                return STAGE_WORDS.get(str(value), str(value))
            if value is None:
                return "—"
            return one_line(str(value), 200)
        if role == Qt.ItemDataRole.TextAlignmentRole and name in NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return entry["id"]
        return None
