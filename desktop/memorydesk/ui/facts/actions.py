"""The reviewer's actions on the selected facts: edit (a supersession), delete (soft),
restore (undoes a delete), purge (erases content once the topic is typed).

There is no way to create a fact (memory is written by agents). Each action is one
Reviewer call run as an operation; its result goes out through ``changed`` and every
view refreshes itself from that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from memorydesk.browse import detail as browse_detail
from memorydesk.browse.facts import FactRow
from memorydesk.memory.reviewer import Reviewer
from memorydesk.store.workspace import Workspace
from memorydesk.ui import settings
from memorydesk.ui.facts.dialogs import FactEditDialog, PurgeDialog
from memorydesk.ui.operations import Operations
from memorydesk.ui.prompts import confirm


class FactActions(QObject):
    changed = Signal(object)  # a ChangeResult after a successful write
    status = Signal(str)
    select_after = Signal(str)  # a fact to select once the list is read again (an edit's new version)

    def __init__(self, owner: QWidget, ws: Workspace, ops: Operations, write_block: str | None,
                 selected: Callable[[], list[FactRow]], domains: Callable[[], list[str]]) -> None:
        super().__init__(owner)
        self.owner, self.ws, self.ops, self.write_block = owner, ws, ops, write_block
        self.selected, self.domains = selected, domains
        self.dialog: Any = None
        self.edit = self._action("Edit…", "F2", self.edit_selected, "edit")
        self.delete = self._action("Delete", QKeySequence.StandardKey.Delete, self.delete_selected, "delete")
        self.restore = self._action("Restore", None, self.restore_selected, "restore")
        self.purge = self._action("Purge…", None, self.purge_selected, "purge")
        self.all = [self.edit, self.delete, self.restore, self.purge]

    def _action(self, text: str, key: Any, slot: Any, name: str) -> QAction:
        action = QAction(text, self.owner)
        action.setObjectName(f"fact-{name}")
        if key is not None:
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(slot)
        self.owner.addAction(action)
        return action

    def update(self) -> None:
        """Enable what the selection allows, and say why the rest is off."""
        block = self.write_block
        facts = self.selected()
        states = {f.state() for f in facts}
        rules = {
            self.edit: (len(facts) == 1 and "deleted" not in states, "Select one fact that is not deleted"),
            self.delete: (bool(facts) and states != {"deleted"}, "Select facts to delete"),
            self.restore: ("deleted" in states, "Select deleted facts to restore them"),
            self.purge: (bool(facts), "Select facts to purge"),
        }
        for action, (ok, why) in rules.items():
            base = action.text().rstrip("…")
            if block:
                action.setEnabled(False)
                action.setToolTip(f"{base}: unavailable — {block}")
            else:
                action.setEnabled(ok)
                action.setToolTip(base if ok else f"{base}: {why.lower()}")

    def _write(self, label: str, call: Any, select_new: bool = False) -> None:
        ws = self.ws

        def work() -> Any:
            return call(Reviewer(ws, settings.actor()))

        def done(result: Any) -> None:
            ids = list(getattr(result, "ids", []) or [])
            if select_new and ids:
                self.select_after.emit(ids[-1])  # the new version
            self.status.emit(getattr(result, "message", "") or f"{label}: done")
            self.changed.emit(result)

        self.ops.run_for(self.owner, work, done, label=label)

    def edit_selected(self) -> None:
        facts = self.selected()
        if not self.edit.isEnabled() or len(facts) != 1:
            return
        fact = browse_detail.fact_detail(self.ws, facts[0].id)
        if fact is None:
            return
        dialog = FactEditDialog(fact, self.domains(), self.owner)
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
        ids = [f.id for f in self.selected() if f.state() != "deleted"]
        if not self.delete.isEnabled() or not ids:
            return
        what = "this fact" if len(ids) == 1 else f"{len(ids)} facts"
        self.dialog = confirm(self.owner, "Delete facts", f"Delete {what}?", lambda: self._write(
            "deleting facts", lambda r: r.delete_facts(ids)), yes_text="Delete",
            informative="Deleted facts stop reaching agents. They stay in the file and can be restored.")

    def restore_selected(self) -> None:
        ids = [f.id for f in self.selected() if f.state() == "deleted"]
        if self.restore.isEnabled() and ids:
            self._write("restoring facts", lambda r: r.restore_facts(ids))

    def purge_selected(self) -> None:
        facts = self.selected()
        if not self.purge.isEnabled() or not facts:
            return
        dialog = PurgeDialog([f.topic for f in facts], self.owner)
        self.dialog = dialog
        ids = [f.id for f in facts]

        def purge() -> None:
            reason = dialog.reason.text().strip()  # read here: the worker never touches widgets
            self._write("purging facts", lambda r: r.purge_facts(ids, reason=reason))

        dialog.accepted.connect(purge)
        dialog.finished.connect(lambda _r: dialog.deleteLater())
        dialog.open()
