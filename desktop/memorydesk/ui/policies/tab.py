"""The Policies tab: the list (active/inactive, domain, rule, advisory role), the full
rule of the selected policy, its actions, and what every dispatch carries."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse import detail as browse_detail
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store.workspace import Workspace
from memorydesk.ui import settings
from memorydesk.ui.delegates import BidiDelegate
from memorydesk.ui.operations import Operations
from memorydesk.ui.policies.dialogs import PolicyEditDialog
from memorydesk.ui.policies.dispatch import DispatchPanel
from memorydesk.ui.policies.model import PolicyTableModel
from memorydesk.ui.prompts import confirm


class PoliciesTab(QWidget):
    changed = Signal(object)
    status = Signal(str)

    def __init__(self, ws: Workspace, ops: Operations, write_block: str | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("policies-tab")
        self.ws, self.ops, self.write_block = ws, ops, write_block
        self.dialog: Any = None
        self.model = PolicyTableModel(self)
        self.view = QTableView()
        self.view.setObjectName("policies-view")
        self.view.setModel(self.model)
        self.view.setItemDelegate(BidiDelegate(self.view))
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.NoDragDrop)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setWordWrap(False)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)  # as in Facts
        header = self.view.horizontalHeader()
        for i, width in enumerate((70, 130, 300, 120, 125)):
            header.resizeSection(i, width)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.view.selectionModel().selectionChanged.connect(lambda *_a: self._selection_changed())
        self.view.doubleClicked.connect(lambda _i: self.edit_selected())
        self.rule = QPlainTextEdit()
        self.rule.setObjectName("policy-rule")
        self.rule.setReadOnly(True)
        self.rule.setPlaceholderText("Select a policy to read its whole rule.")
        self.rule_meta = QLabel("")
        self.rule_meta.setObjectName("policy-meta")
        self.rule_meta.setWordWrap(True)

        self.act_edit = self._action("Edit…", "F2", self.edit_selected, "edit")
        self.act_delete = self._action("Delete", QKeySequence.StandardKey.Delete, self.delete_selected, "delete")
        self.act_activate = self._action("Activate", None, lambda: self.set_active(True), "activate")
        self.act_deactivate = self._action("Deactivate", None, lambda: self.set_active(False), "deactivate")
        self.write_actions = [self.act_edit, self.act_delete, self.act_activate, self.act_deactivate]
        bar = QToolBar()
        bar.setObjectName("policies-toolbar")
        for action in self.write_actions:
            bar.addAction(action)
        self.summary = QLabel("")
        self.summary.setObjectName("policies-summary")
        bar.addSeparator()
        bar.addWidget(self.summary)

        left = QWidget()
        lay = QVBoxLayout(left)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(bar)
        inner = QSplitter(Qt.Orientation.Vertical)
        inner.addWidget(self.view)
        rule_box = QWidget()
        rlay = QVBoxLayout(rule_box)
        rlay.setContentsMargins(0, 0, 0, 0)
        rlay.addWidget(self.rule_meta)
        rlay.addWidget(self.rule, 1)
        inner.addWidget(rule_box)
        inner.setSizes([420, 220])
        lay.addWidget(inner, 1)
        self.dispatch = DispatchPanel(ws, ops)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(self.dispatch)
        split.setSizes([760, 500])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(split)
        self._update_actions()
        self.reload()

    def _action(self, text: str, key: Any, slot: Any, name: str) -> QAction:
        action = QAction(text, self)
        action.setObjectName(f"policy-{name}")
        if key is not None:
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def reload(self) -> None:
        ws = self.ws
        self.ops.run_for(self, lambda: browse_detail.policies(ws), self._loaded, label="reading policies")

    def refresh(self) -> None:
        self.reload()
        self.dispatch.refresh()

    def _loaded(self, rows: list[dict[str, Any]]) -> None:
        current = self.selected()
        self.model.set_rows(rows)
        active = sum(1 for r in rows if r["active"])
        self.summary.setText(f"{len(rows)} policies · {active} active")
        if current is not None:
            row = self.model.row_of(current["id"])
            if row is not None:
                self.select_row(row)
        self._selection_changed()

    def select_row(self, row: int) -> None:
        flags = QItemSelectionModel.SelectionFlag
        self.view.selectionModel().setCurrentIndex(self.model.index(row, 0), flags.ClearAndSelect | flags.Rows)

    def selected(self) -> dict[str, Any] | None:
        rows = self.view.selectionModel().selectedRows()
        return self.model.policy(rows[0].row()) if rows else None

    def _selection_changed(self) -> None:
        p = self.selected()
        self.rule.setPlainText(p["rule"] if p else "")
        if p:
            sources = len(p["source_fact_ids"])
            self.rule_meta.setText(
                f"<b>{'Active' if p['active'] else 'Inactive'}</b> · domain {p['domain']} · required role "
                f"{p['required_role'] or 'none'} (advisory) · {sources} source fact(s) · id {p['id']}")
        else:
            self.rule_meta.setText("")
        self._update_actions()

    def _update_actions(self) -> None:
        p = self.selected()
        rules = {
            self.act_edit: (p is not None, "select a policy"),
            self.act_delete: (p is not None, "select a policy"),
            self.act_activate: (p is not None and not p["active"], "select an inactive policy"),
            self.act_deactivate: (p is not None and bool(p["active"]), "select an active policy"),
        }
        for action, (ok, why) in rules.items():
            base = action.text().rstrip("…")
            if self.write_block:
                action.setEnabled(False)
                action.setToolTip(f"{base}: unavailable — {self.write_block}")
            else:
                action.setEnabled(ok)
                action.setToolTip(base if ok else f"{base}: {why}")

    def _write(self, label: str, call: Any) -> None:
        ws = self.ws

        def done(result: Any) -> None:
            self.status.emit(getattr(result, "message", "") or f"{label}: done")
            self.changed.emit(result)

        self.ops.run_for(self, lambda: call(Reviewer(ws, settings.actor())), done, label=label)

    def edit_selected(self) -> None:
        p = self.selected()
        if p is None or not self.act_edit.isEnabled():
            return
        dialog = PolicyEditDialog(p, self)
        self.dialog = dialog

        def save() -> None:
            v = dialog.values()
            self._write("editing the policy", lambda r: r.edit_policy(
                p["id"], domain=v["domain"], rule=v["rule"], required_role=v["required_role"], reason=v["reason"]))

        dialog.accepted.connect(save)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        dialog.open()

    def delete_selected(self) -> None:
        p = self.selected()
        if p is None or not self.act_delete.isEnabled():
            return
        self.dialog = confirm(self, "Delete policy", "Delete this policy?", lambda: self._write(
            "deleting the policy", lambda r: r.delete_policy(p["id"])), yes_text="Delete",
            informative="It stops reaching agents at once. Undo brings it back.")

    def set_active(self, active: bool) -> None:
        p = self.selected()
        action = self.act_activate if active else self.act_deactivate
        if p is None or not action.isEnabled():
            return
        self._write("activating the policy" if active else "deactivating the policy",
                    lambda r: r.set_policy_active(p["id"], active))
