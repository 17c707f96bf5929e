"""Selecting facts in the Facts tab's list: by row, by key (kept across a reload), by id
(widening the filters that hide it, or leaving the agent view for it)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionModel

from memorydesk.browse import facts as browse
from memorydesk.ui.facts.model import COLUMNS


class FactSelection:
    """Mixed into ``FactsTab``: uses its ``view``, ``model``, ``filters``, ``run`` and
    ``_selection_changed``, and ``hold`` (``DeskTab``) for a selection a reload will make."""

    view: Any
    model: Any
    filters: Any
    hold: Any
    _listed_query: Any

    def selected_rows(self) -> list[int]:
        return sorted(i.row() for i in self.view.selectionModel().selectedRows())

    def selected_keys(self) -> list[int]:
        return [k for k in (self.model.key_at(r) for r in self.selected_rows()[:1000]) if k is not None]

    def selected_facts(self) -> list[browse.FactRow]:
        return [f for f in (self.model.fact(r) for r in self.selected_rows()) if f is not None]

    def _select_keys(self, keys: list[int], current: int | None) -> None:
        sm = self.view.selectionModel()
        selection = QItemSelection()
        for key in keys:
            row = self.model.row_of_key(key)
            if row is not None:
                selection.select(self.model.index(row, 0), self.model.index(row, len(COLUMNS) - 1))
        sm.select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        row = self.model.row_of_key(current) if current is not None else None
        if row is not None:
            sm.setCurrentIndex(self.model.index(row, 0), QItemSelectionModel.SelectionFlag.NoUpdate)
        self._selection_changed()

    def row_after(self, ids: set[str]) -> str | None:
        """The fact that takes the selection's place once these facts leave the list: the
        first row below the selection that is not one of them, else the nearest above."""
        rows = self.selected_rows()
        if not rows:
            return None
        for candidates in (range(rows[-1] + 1, self.model.rowCount()), range(rows[0] - 1, -1, -1)):
            for row in candidates:
                fact = self.model.fact(row)
                if fact is None:
                    break  # not read yet: let the selection go rather than guess
                if fact.id not in ids:
                    return str(fact.id)
        return None

    def select_row(self, row: int) -> None:
        """Select exactly this row (whatever keyboard modifiers are held) and show it."""
        index = self.model.index(row, 0)
        flags = QItemSelectionModel.SelectionFlag
        self.view.selectionModel().setCurrentIndex(index, flags.ClearAndSelect | flags.Rows)
        self.view.scrollTo(index)

    def select_fact(self, fact_id: str, leave_agent_view: bool = True) -> None:
        """Select a fact by id, widening the state filter if it is hidden. In the agent view a
        fact that is not a hit is shown by leaving the view (a link followed), or not at all."""
        if self.model.agent_view:
            for row in range(self.model.rowCount()):
                fact = self.model.fact(row)
                if fact is not None and fact.id == fact_id:
                    self.select_row(row)
                    return
            if leave_agent_view:
                self.hold({"select": fact_id})
                self.filters.agent_view.setChecked(False)
            return

        def found(position: int | None) -> None:
            if position is None and self.filters.search.text().strip():
                self.hold({"select": fact_id})
                self.filters.set_search("")  # the search hides it: show the whole list
                return
            if position is None and self.filters.state.currentData() != "all":
                self.filters.state.setCurrentIndex(self.filters.state.findData("all"))
                self.hold({"select": fact_id})
                return
            if position is not None and position < self.model.rowCount():
                self.select_row(position)
        query = self._listed_query
        self.run(lambda ws: browse.position_of(ws, query, fact_id), found, label="finding the fact")

