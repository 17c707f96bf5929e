"""Selecting in the grant matrix, by position or by (domain, role), and keeping a selection
across a re-read (the rows are domains, so a selection is remembered by name)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionModel
from PySide6.QtWidgets import QComboBox, QLineEdit, QTableView

from memorydesk.browse.grants import GrantMatrix
from memorydesk.core.product.grants import ROLES, Cell
from memorydesk.ui.grants.model import GrantMatrixModel


class MatrixSelection:
    """Mixed into the Grants tab (``view``, ``model``, ``show_mode``, ``search``)."""

    view: QTableView
    model: GrantMatrixModel
    show_mode: QComboBox
    search: QLineEdit
    matrix: GrantMatrix | None

    def _selected_positions(self) -> list[tuple[str, int]]:
        out = []
        for index in self.view.selectionModel().selectedIndexes():
            domain = self.model.domain(index.row())
            if domain is not None:
                out.append((domain, index.column()))
        return out

    def _current_position(self) -> tuple[str, int] | None:
        index = self.view.currentIndex()
        domain = self.model.domain(index.row()) if index.isValid() else None
        return (domain, index.column()) if domain is not None else None

    def _restore(self, keep: list[tuple[str, int]], current: tuple[str, int] | None) -> None:
        selection = QItemSelection()
        for domain, col in keep:
            row = self.model.row_of(domain)
            if row is not None:
                index = self.model.index(row, col)
                selection.select(index, index)
        flags = QItemSelectionModel.SelectionFlag
        model = self.view.selectionModel()
        if current is not None and (row := self.model.row_of(current[0])) is not None:
            model.setCurrentIndex(self.model.index(row, current[1]), flags.NoUpdate)
        model.select(selection, flags.ClearAndSelect)

    def select_cell(self, row: int, col: int) -> None:
        flags = QItemSelectionModel.SelectionFlag
        index = self.model.index(row, col)
        self.view.selectionModel().setCurrentIndex(index, flags.ClearAndSelect)
        self.view.scrollTo(index)

    def select_current_row(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self.view.selectRow(index.row())

    def select_current_column(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self.view.selectColumn(index.column())

    def _go(self, target: dict[str, Any]) -> None:
        row = self.model.row_of(str(target["domain"]))
        if row is None and self.matrix is not None and self.matrix.row_of(str(target["domain"])) is not None:
            self.show_mode.setCurrentIndex(0)
            self.search.clear()
            row = self.model.row_of(str(target["domain"]))
        if row is None:
            return
        role = target.get("role")
        if role in [r.value for r in ROLES]:
            self.select_cell(row, [r.value for r in ROLES].index(role))
        else:
            self.view.selectRow(row)
            self.view.scrollTo(self.model.index(row, 0))

    def selected_cells(self) -> list[Cell]:
        cells = []
        for index in self.view.selectionModel().selectedIndexes():
            cell = self.model.cell(index.row(), index.column())
            if cell is not None:
                cells.append(cell)
        return cells

    def current_cell(self) -> Cell | None:
        index = self.view.currentIndex()
        return self.model.cell(index.row(), index.column()) if index.isValid() else None

