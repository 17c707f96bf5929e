"""The Policies tab: the list (active/inactive, domain, rule, advisory role), the full
rule of the selected policy, its actions, and what every dispatch carries.

Every change asks why in the dialog that confirms it and names the policy; after an edit
(a supersession) the selection follows the new version."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse import detail as browse_detail
from memorydesk.browse.detail import PolicyRow
from memorydesk.core.changes import Kind, Shown
from memorydesk.search.preamble import MIN_TASK_UNITS
from memorydesk.ui.actions import WriteActions
from memorydesk.ui.operations import dialog_result
from memorydesk.ui.policies.dialogs import PolicyEditDialog
from memorydesk.ui.policies.dispatch import DispatchPanel
from memorydesk.ui.policies.model import PolicyTableModel
from memorydesk.ui.session import Change, DeskSession
from memorydesk.ui.tab import DeskTab
from memorydesk.ui.widgets.delegates import BidiDelegate
from memorydesk.ui.widgets.prompts import ask_reason
from memorydesk.ui.widgets.splitter import splitter
from memorydesk.ui.widgets.word_columns import WordColumns


class PoliciesTab(DeskTab):
    name, title = "policies", "Policies"
    kinds = frozenset({Kind.POLICY, Kind.FACT, Kind.NOTE})  # the dispatch preview shows facts and notes

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
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
        for i, width in enumerate((0, 130, 300, 120, 125)):
            header.resizeSection(i, width)
        # the status as wide as its longest state, also after a narrower width is restored
        self.word_columns = WordColumns(self.view, {0: "inactive · replaced"})
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.view.selectionModel().selectionChanged.connect(lambda *_a: self._selection_changed())
        self.view.doubleClicked.connect(lambda _i: self.act_edit.trigger())
        self.rule = QPlainTextEdit()
        self.rule.setObjectName("policy-rule")
        self.rule.setReadOnly(True)
        self.rule.setPlaceholderText("Select a policy to read its whole rule.")
        self.rule_meta = QLabel("")
        self.rule_meta.setObjectName("policy-meta")
        self.rule_meta.setWordWrap(True)

        self.acts = WriteActions(self, "policy")
        self.act_edit = self.acts.add("Edit…", self.edit_selected, name="edit", key="F2")
        self.act_delete = self.acts.add("Delete", self.delete_selected, name="delete",
                                        key=QKeySequence.StandardKey.Delete)
        self.act_activate = self.acts.add("Activate", lambda: self.set_active(True), name="activate",
                                          key="Ctrl+Shift+A")
        self.act_deactivate = self.acts.add("Deactivate", lambda: self.set_active(False), name="deactivate",
                                            key="Ctrl+Shift+D")
        self.write_actions = self.acts.all
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
        rule_box = QWidget()
        rlay = QVBoxLayout(rule_box)
        rlay.setContentsMargins(0, 0, 0, 0)
        rlay.addWidget(self.rule_meta)
        rlay.addWidget(self.rule, 1)
        lay.addWidget(splitter(Qt.Orientation.Vertical, self.view, rule_box, name="policies-rule-split",
                               sizes=(420, 220)), 1)
        self.dispatch = DispatchPanel(self.run)
        split = splitter(Qt.Orientation.Horizontal, left, self.dispatch, name="policies-split", sizes=(760, 500))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(split)
        self._update_actions()

    def open(self, session: DeskSession) -> None:
        super().open(session)
        self.acts.bind(session)
        self._update_actions()
        self.reload()
        self.dispatch.refresh()

    def reload(self) -> None:
        self.run(browse_detail.policies, self._loaded, label="reading policies")

    def showing(self, kind: Kind) -> Shown:
        """Facts are in the dispatch preview only for a task long enough to earn them."""
        if kind is Kind.FACT and len(self.dispatch.task.text().strip()) < MIN_TASK_UNITS:
            return frozenset()
        return None

    def refresh(self, change: Change) -> None:
        if change.touches(frozenset({"policy"})):
            self.reload()
        self.dispatch.refresh()

    def prepare_shot(self) -> None:
        if self.model.rowCount():
            self.select_row(0)

    def wants_keyboard(self) -> QWidget | None:
        return self.view

    def _loaded(self, rows: list[PolicyRow]) -> None:
        current = self.selected()
        self.model.set_rows(rows)
        fm = self.view.fontMetrics()  # the domain whole (“repo:acme-lumen-web/conventions”), up to a third of the list
        longest = max((fm.horizontalAdvance(r.domain) for r in rows), default=0) + 16
        self.view.horizontalHeader().resizeSection(1, max(130, min(longest, self.view.width() // 3)))
        active = sum(1 for r in rows if r.active)
        self.summary.setText(f"{len(rows)} policies · {active} active")
        if not self.mark_ready() and current is not None:  # a policy held for this list, else the one selected
            self._select_id(current.id)
        self._selection_changed()

    def show_target(self, target: dict[str, Any]) -> None:
        """``{"policy": id}`` selects that policy; not listed yet, it waits for the next list."""
        if target.get("policy") and not self._select_id(str(target["policy"])):
            self.hold(target)

    def _select_id(self, policy_id: str) -> bool:
        row = self.model.row_of(policy_id)
        if row is not None:
            self.select_row(row)
            self.view.scrollTo(self.model.index(row, 0))
        return row is not None

    def select_row(self, row: int) -> None:
        flags = QItemSelectionModel.SelectionFlag
        self.view.selectionModel().setCurrentIndex(self.model.index(row, 0), flags.ClearAndSelect | flags.Rows)

    def selected(self) -> PolicyRow | None:
        rows = self.view.selectionModel().selectedRows()
        return self.model.policy(rows[0].row()) if rows else None

    def _selection_changed(self) -> None:
        p = self.selected()
        self.rule.setPlainText(p.rule if p else "")
        if p:
            sources = len(p.source_fact_ids)
            self.rule_meta.setText(
                f"<b>{'Active' if p.active else 'Inactive'}</b> · domain {p.domain} · required role "
                f"{p.required_role or 'none'} (advisory) · {sources} source fact(s) · id {p.id}")
        else:
            self.rule_meta.setText("")
        self._update_actions()

    def _update_actions(self) -> None:
        p = self.selected()
        rules = {
            self.act_edit: (p is not None, "select a policy"),
            self.act_delete: (p is not None, "select a policy"),
            self.act_activate: (p is not None and not p.active, "select an inactive policy"),
            self.act_deactivate: (p is not None and bool(p.active), "select an active policy"),
        }
        self.acts.update(rules)

    @staticmethod
    def name_of(p: PolicyRow) -> str:
        """A policy as a confirmation names it: “[domain] first words of the rule”."""
        words = " ".join(str(p.rule).split())
        return f"[{p.domain}] " + (words if len(words) <= 90 else words[:89] + "…")

    async def edit_selected(self) -> None:
        p = self.selected()
        if p is None or not self.acts.allowed(self.act_edit) or self.session is None:
            return
        dialog = PolicyEditDialog(p, self)
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        v = dialog.values()
        dialog.deleteLater()
        self.dialog = None
        if accepted:
            from memorydesk.memory.reviewer import Reviewer  # loaded by the first write

            result = await self.session.write("editing the policy", Reviewer.edit_policy, p.id, domain=v["domain"],
                                              rule=v["rule"], required_role=v["required_role"], reason=v["reason"])
            if len(result.ids) > 1:
                self._follow(result.ids[-1])  # the new version

    def _follow(self, policy_id: str) -> None:
        self.show_target({"policy": policy_id})  # not listed yet: the list being read again will hold it

    async def _ask(self, title: str, verb: str, p: PolicyRow, informative: str) -> str | None:
        self.dialog, answer = ask_reason(self, title, f"{verb} policy “{self.name_of(p)}”?", yes_text=verb,
                                         informative=informative, name="policy-" + verb.lower())
        reason = await answer
        self.dialog = None
        return reason

    async def delete_selected(self) -> None:
        p = self.selected()
        if p is None or not self.acts.allowed(self.act_delete) or self.session is None:
            return
        reaches = ("It stops reaching agents at once." if p.active else
                   "It is inactive: it reaches no agent now, and deleting it changes no dispatch.")
        reason = await self._ask("Delete policy", "Delete", p, f"{reaches} Undo brings it back.")
        if reason is not None:
            from memorydesk.memory.reviewer import Reviewer  # loaded by the first write

            await self.session.write("deleting the policy", Reviewer.delete_policy, p.id, reason=reason)

    async def set_active(self, active: bool) -> None:
        p = self.selected()
        action = self.act_activate if active else self.act_deactivate
        if p is None or not self.acts.allowed(action) or self.session is None:
            return
        verb = "Activate" if active else "Deactivate"
        follows = ("Every agent dispatch carries it from now on." if active
                   else "It stops reaching agents at once; it stays in the list, inactive.")
        if active and p.replaced_by:
            follows = (f"This is an older version: an edit replaced it by policy {p.replaced_by}. Activating it "
                       "sends both versions to every agent from now on (deactivate or delete the other one to "
                       "go back to this version).")
        reason = await self._ask(f"{verb} policy", verb, p, follows)
        if reason is not None:
            from memorydesk.memory.reviewer import Reviewer  # loaded by the first write

            await self.session.write("activating the policy" if active else "deactivating the policy",
                                     Reviewer.set_policy_active, p.id, active, reason=reason)
            self._follow(p.id)
