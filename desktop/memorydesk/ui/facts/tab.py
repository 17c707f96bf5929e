"""The Facts tab: filter bar, lazy fact list, detail pane, and the reviewer's actions.

There is no way to create a fact here (memory is written by agents): edit supersedes,
delete is soft, restore undoes a delete, purge erases content after the topic is typed.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView, QHeaderView, QMenu, QSplitter, QTableView, QToolBar, QVBoxLayout, QWidget,
)

from memorydesk.memory import browse
from memorydesk.memory.browse import FactQuery
from memorydesk.store.workspace import Workspace
from memorydesk.ui import services, settings
from memorydesk.ui.delegates import BidiDelegate
from memorydesk.ui.facts.detail import FactDetail
from memorydesk.ui.facts.dialogs import FactEditDialog, PurgeDialog
from memorydesk.ui.facts.filterbar import FilterBar
from memorydesk.ui.facts.model import COLUMNS, FactTableModel
from memorydesk.ui.operations import Operations
from memorydesk.ui.prompts import confirm

log = logging.getLogger("memorydesk.ui.facts")


class FactsTab(QWidget):
    changed = Signal(object)  # a ChangeResult after a successful write
    status = Signal(str)

    def __init__(self, ws: Workspace, ops: Operations, write_block: str | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("facts-tab")
        self.ws, self.ops, self.write_block = ws, ops, write_block
        self.base = FactQuery(state="active")
        self.query = self.base
        self.total: int | None = None
        self._generation = 0
        self._restore: tuple[list[int], int | None, int] | None = None
        self.dialog: Any = None

        self.filters = FilterBar()
        self.filters.changed.connect(self.reload)
        self._idle_note = "keyword search" if services.search_available() else "substring filter"
        self.filters.search_mode.setText(self._idle_note)
        self._pending_select: str | None = None
        self.act_edit = self._action("Edit…", "F2", self.edit_selected, "edit")
        self.act_delete = self._action("Delete", QKeySequence.StandardKey.Delete, self.delete_selected, "delete")
        self.act_restore = self._action("Restore", None, self.restore_selected, "restore")
        self.act_purge = self._action("Purge…", None, self.purge_selected, "purge")
        self.write_actions = [self.act_edit, self.act_delete, self.act_restore, self.act_purge]
        self.model = FactTableModel(ws, self)
        self.view = QTableView()
        self.view.setObjectName("facts-view")
        self.view.setModel(self.model)
        self.view.setItemDelegate(BidiDelegate(self.view))
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.NoDragDrop)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        widths = {"domain": 150, "topic": 170, "content": 420, "memory_type": 85, "veracity": 72,
                  "confidence": 80, "created_at": 120, "recall_count": 60, "mention_count": 70, "state": 80}
        for i, (name, _label) in enumerate(COLUMNS):
            header.resizeSection(i, widths[name])
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSortIndicator(6, Qt.SortOrder.DescendingOrder)
        self.view.setSortingEnabled(True)
        self.model.sort_requested = self._sort
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._menu)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.view.doubleClicked.connect(lambda _i: self.edit_selected())

        self.detail = FactDetail()
        self.detail.open_fact.connect(self.select_fact)

        bar = QToolBar()
        bar.setObjectName("facts-toolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in self.write_actions:
            bar.addAction(action)

        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("facts-split")
        split.addWidget(self.view)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([380, 270])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filters)
        layout.addWidget(bar)
        layout.addWidget(split, 1)
        self._update_actions()
        self.reload()  # the list first: it is what a person waits for
        self.reload_domains()

    def _action(self, text: str, key: Any, slot: Any, name: str) -> QAction:
        action = QAction(text, self)
        action.setObjectName(f"fact-{name}")
        if key is not None:
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    # --- loading ------------------------------------------------------------------------

    def reload_domains(self) -> None:
        self.ops.run_for(self, lambda: browse.domains(self.ws), self.filters.set_domains, label="reading domains")

    def reload(self, keep_selection: bool = False) -> None:
        """Re-read the list for the current filters, in the background."""
        query = self.filters.query(self.query)
        self._generation += 1
        generation = self._generation
        if keep_selection:
            self._restore = (self.selected_keys(), self.model.key_at(self.view.currentIndex().row()),
                             self.view.verticalScrollBar().value())
        else:
            self._restore = None
        ws = self.ws
        text = query.text.strip()

        def work() -> tuple[Any, int, str]:
            q, note = query, ""
            if text:
                ids, note = services.search_ids(ws, text)
                if ids is not None:
                    q = query.with_(text="", ids=tuple(ids))
            return browse.fact_keys(ws, q), browse.count_facts(ws, FactQuery(state="all")), note

        self.filters.show_counts(None, None)
        self.ops.run_for(self, work, lambda result: self._loaded(generation, query, *result), label="reading facts")

    def _loaded(self, generation: int, query: FactQuery, keys: Any, total: int, note: str) -> None:
        if generation != self._generation:
            return
        label, _sep, why = (note or self._idle_note).partition("|")
        self.filters.search_mode.setText(label)
        self.filters.search_mode.setToolTip(why)
        self.query, self.total = query, total
        restore = self._restore
        self.model.set_keys(keys)
        self.filters.show_counts(len(keys), total)
        if restore is not None:
            selected, current, scroll = restore
            self.view.verticalScrollBar().setValue(scroll)
            self._select_keys(selected, current)
        if self._pending_select is not None:
            fact_id, self._pending_select = self._pending_select, None
            self.select_fact(fact_id)
        self._update_actions()

    def refresh(self) -> None:
        """The file changed: read the list again, keeping selection and scroll position."""
        self.reload(keep_selection=True)
        self.reload_domains()

    def _sort(self, column: str, descending: bool) -> None:
        self.query = self.query.with_(sort=column, descending=descending)
        self.reload(keep_selection=True)

    # --- selection ----------------------------------------------------------------------

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

    def select_row(self, row: int) -> None:
        """Select exactly this row (whatever keyboard modifiers are held) and show it."""
        index = self.model.index(row, 0)
        flags = QItemSelectionModel.SelectionFlag
        self.view.selectionModel().setCurrentIndex(index, flags.ClearAndSelect | flags.Rows)
        self.view.scrollTo(index)

    def select_fact(self, fact_id: str) -> None:
        """Select a fact by id (widening the state filter if it is hidden)."""
        def found(position: int | None) -> None:
            if position is None and self.filters.state.currentData() != "all":
                self.filters.state.setCurrentIndex(self.filters.state.findData("all"))
                self._pending_select = fact_id
                return
            if position is not None:
                self.select_row(position)
        query = self.query
        self.ops.run_for(self, lambda: browse.position_of(self.ws, query, fact_id), found, label="finding the fact")

    def _selection_changed(self, *_args: Any) -> None:
        self._update_actions()
        facts = self.selected_facts()
        if len(facts) != 1:
            self.detail.show_fact(None)
            return
        fact_id = facts[0].id
        ws = self.ws

        def work() -> tuple[Any, Any]:
            d = browse.fact_detail(ws, fact_id)
            history = None
            if ws.desk_schema == 0:
                history = []  # a product file never opened for writing: the desk has no history here
            elif services.reviewer_missing() is None:
                history = services.reviewer(ws, settings.actor()).history(entity="fact", entity_id=fact_id)
            return d, history

        def show(result: tuple[Any, Any]) -> None:
            current = self.selected_facts()
            if len(current) == 1 and current[0].id == fact_id:
                self.detail.show_fact(*result)

        self.ops.run_for(self, work, show, label="reading the fact")

    def _update_actions(self) -> None:
        block = self.write_block
        facts = self.selected_facts()
        states = {f.state() for f in facts}
        rules = {
            self.act_edit: (len(facts) == 1 and "deleted" not in states, "Select one fact that is not deleted"),
            self.act_delete: (bool(facts) and states != {"deleted"}, "Select facts to delete"),
            self.act_restore: ("deleted" in states, "Select deleted facts to restore them"),
            self.act_purge: (bool(facts), "Select facts to purge"),
        }
        for action, (ok, why) in rules.items():
            base = action.text().rstrip("…")
            if block:
                action.setEnabled(False)
                action.setToolTip(f"{base}: unavailable — {block}")
            else:
                action.setEnabled(ok)
                action.setToolTip(base if ok else f"{base}: {why.lower()}")

    def _menu(self, pos: Any) -> None:
        menu = QMenu(self)
        for action in self.write_actions:
            menu.addAction(action)
        menu.popup(self.view.viewport().mapToGlobal(pos))

    # --- actions ------------------------------------------------------------------------

    def _write(self, label: str, call: Any, select_new: bool = False) -> None:
        ws = self.ws

        def work() -> Any:
            return call(services.reviewer(ws, settings.actor()))

        def done(result: Any) -> None:
            ids = list(getattr(result, "ids", []) or [])
            if select_new and ids:
                self._pending_select = ids[-1]  # the new version
            self.status.emit(getattr(result, "message", "") or f"{label}: done")
            self.changed.emit(result)

        self.ops.run_for(self, work, done, label=label)

    def edit_selected(self) -> None:
        facts = self.selected_facts()
        if not self.act_edit.isEnabled() or len(facts) != 1:
            return
        fact = browse.fact_detail(self.ws, facts[0].id)
        if fact is None:
            return
        domains = [self.filters.domain.itemData(i) for i in range(self.filters.domain.count())]
        dialog = FactEditDialog(fact, [d for d in domains if d and not d.endswith("/*") and not d.startswith("*/")],
                                self)
        self.dialog = dialog

        def save() -> None:
            v = dialog.values()
            self._write("editing the fact", lambda r: r.edit_fact(
                fact["id"], domain=v["domain"], topic=v["topic"], content=v["content"],
                confidence=v["confidence"], reason=v["reason"], expected_updated_at=fact["updated_at"]), select_new=True)

        dialog.accepted.connect(save)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        dialog.open()

    def delete_selected(self) -> None:
        ids = [f.id for f in self.selected_facts() if f.state() != "deleted"]
        if not self.act_delete.isEnabled() or not ids:
            return
        what = "this fact" if len(ids) == 1 else f"{len(ids)} facts"
        self.dialog = confirm(self, "Delete facts", f"Delete {what}?", lambda: self._write(
            "deleting facts", lambda r: r.delete_facts(ids)), yes_text="Delete",
            informative="Deleted facts stop reaching agents. They stay in the file and can be restored.")

    def restore_selected(self) -> None:
        ids = [f.id for f in self.selected_facts() if f.state() == "deleted"]
        if self.act_restore.isEnabled() and ids:
            self._write("restoring facts", lambda r: r.restore_facts(ids))

    def purge_selected(self) -> None:
        facts = self.selected_facts()
        if not self.act_purge.isEnabled() or not facts:
            return
        dialog = PurgeDialog([f.topic for f in facts], self)
        self.dialog = dialog
        ids = [f.id for f in facts]
        def purge() -> None:
            reason = dialog.reason.text().strip()  # read here: the worker never touches widgets
            self._write("purging facts", lambda r: r.purge_facts(ids, reason=reason))

        dialog.accepted.connect(purge)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        dialog.open()
