"""The grant matrix as a read-only Qt table: domains down, the nine roles across.

The model holds a ``GrantMatrix`` read on the worker (two bytes per cell) and the list
of domain rows the filter shows; nothing is read here. A cell's rows and wording are
resolved only when it is painted or asked about, so 5,000 domains cost what the
visible cells cost. Re-reading the matrix after a change swaps it in place (the
selection and scroll position stay) when the rows shown are the same.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QFont, QPalette
from PySide6.QtWidgets import QApplication

from memorydesk.browse.grants import GrantMatrix
from memorydesk.core.product.grants import ROLES, Cell, Source
from memorydesk.ui.grants.paint import CELL_ROLE, DIM_ROLE

Index = QModelIndex | QPersistentModelIndex
CELL_MODES = ("fail_open", "write", "problems")  # filters that dim the other cells of a row

SOURCE_WORDS = {
    Source.EXACT: "an exact row",
    Source.BARE_NAME: "the bare name's row",
    Source.FAIL_OPEN: "no row: fail-open, reads as read",
    Source.UNKNOWN_VALUE: "a row with a string the product does not know",
    Source.AMBIGUOUS: "several rows match; the first the product reads decides",
}


def cell_tip(cell: Cell) -> str:
    head = f"{cell.role.value} on {cell.domain}: {cell.permission.value} — {SOURCE_WORDS[cell.source]}"
    rows = [f"  {i}. {r.describe()}" for i, r in enumerate(cell.rows, 1)]
    return "\n".join([head, *rows])


class GrantMatrixModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.matrix: GrantMatrix | None = None
        self.shown: list[int] = []
        self.mode = "all"

    # --- state --------------------------------------------------------------------------

    def set_matrix(self, matrix: GrantMatrix, shown: list[int], mode: str) -> bool:
        """Show ``matrix`` rows ``shown``; True when it was swapped in place (no reset)."""
        old = self.matrix
        same = (old is not None and shown == self.shown and mode == self.mode
                and [d.name for d in old.domains] == [d.name for d in matrix.domains])
        if same:
            self.matrix = matrix
            if shown:
                self.dataChanged.emit(self.index(0, 0), self.index(len(shown) - 1, len(ROLES) - 1))
                self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, len(shown) - 1)
            return True
        self.beginResetModel()
        self.matrix, self.shown, self.mode = matrix, list(shown), mode
        self.endResetModel()
        return False

    def domain_row(self, row: int) -> int | None:
        """The matrix row (domain index) behind a view row."""
        return self.shown[row] if 0 <= row < len(self.shown) else None

    def domain(self, row: int) -> str | None:
        i = self.domain_row(row)
        return self.matrix.domains[i].name if i is not None and self.matrix is not None else None

    def cell(self, row: int, column: int) -> Cell | None:
        i = self.domain_row(row)
        if i is None or self.matrix is None or not 0 <= column < len(ROLES) or not self.matrix.known(i):
            return None
        return self.matrix.cell(i, column)

    def row_of(self, domain: str) -> int | None:
        if self.matrix is None:
            return None
        i = self.matrix.row_of(domain)
        try:
            return self.shown.index(i) if i is not None else None
        except ValueError:
            return None

    # --- Qt model -----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.shown)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(ROLES)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.matrix is None:
            return None
        i = self.domain_row(index.row())
        j = index.column()
        if i is None or not 0 <= j < len(ROLES):
            return None
        if not self.matrix.known(i):  # a first screen: this domain's rows are still being read
            if role == Qt.ItemDataRole.DisplayRole:
                return "…"
            if role == Qt.ItemDataRole.ToolTipRole:
                return "reading the grant rows…"
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignCenter)
            return None
        if role == CELL_ROLE:
            return self.matrix.code(i, j)
        if role == Qt.ItemDataRole.DisplayRole:
            return self.matrix.code(i, j)[0].value
        if role == DIM_ROLE:
            return self.mode in CELL_MODES and not self.matrix.cell_matches(i, j, self.mode)
        if role in (Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.AccessibleTextRole):
            return cell_tip(self.matrix.cell(i, j))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            if not 0 <= section < len(ROLES):
                return None
            if role == Qt.ItemDataRole.DisplayRole:
                return ROLES[section].value
            if role == Qt.ItemDataRole.ToolTipRole:
                return f"Agents acting as {ROLES[section].value} (click to select the whole column)"
            return None
        i = self.domain_row(section)
        if i is None or self.matrix is None:
            return None
        entry = self.matrix.domains[i]
        if role == Qt.ItemDataRole.DisplayRole:
            return entry.name
        if role == Qt.ItemDataRole.ToolTipRole:
            if entry.has_row:
                return f"{entry.name} (click to select the whole row)"
            return (f"{entry.name}: no domain row — named by {', '.join(entry.named_by) or 'nothing'} only "
                    "(the product resolves its grants all the same)")
        if role == Qt.ItemDataRole.FontRole and not entry.has_row:
            font = QFont(QApplication.font())
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and not entry.has_row:
            return QBrush(QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        return None
