"""The reviewer's actions on the selected facts: edit (a supersession), delete (soft),
restore (a deleted or superseded fact is active again), purge (erases content once the
fact's name is typed); after a delete or a purge the tab offers the forget check (``ui.forget``),
and "Check It Is Forgotten…" runs it on the selection.

Every one asks why in the dialog that confirms it (the reason is kept with the change),
and the dialog names the fact(s) it acts on (``browse.naming``).

There is no way to create a fact (memory is written by agents). Each action is a flow:
read what it needs on the worker, ask the person, make one reviewer call through the
session (which routes the change to every tab that shows facts), react to the result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from memorydesk.browse import detail as browse_detail
from memorydesk.browse import naming
from memorydesk.browse.facts import FactRow
from memorydesk.ui.actions import WriteActions
from memorydesk.ui.facts.dialogs import FactEditDialog, PurgeDialog
from memorydesk.ui.forget.dialog import CheckRequest, check_forgotten
from memorydesk.ui.operations import dialog_result
from memorydesk.ui.session import DeskSession
from memorydesk.ui.widgets.prompts import ask_reason

RESTORABLE = frozenset({"deleted", "superseded"})


class FactActions(QObject):
    select_after = Signal(str)  # a fact to select once the list is read again (an edit's new version)

    def __init__(self, owner: QWidget, selected: Callable[[], list[FactRow]], domains: Callable[[], list[str]]) -> None:
        super().__init__(owner)
        self.owner, self.selected, self.domains = owner, selected, domains
        self.session: DeskSession | None = None
        self.dialog: Any = None
        #: set by a list: (ids, action) -> the fact to select once they leave it (None: nothing to follow)
        self.next_after: Callable[[list[str], str], str | None] | None = None
        self.acts = WriteActions(owner, "fact")
        self.edit = self.acts.add("Edit…", self.edit_selected, name="edit", key="F2")
        self.delete = self.acts.add("Delete", self.delete_selected, name="delete", key=QKeySequence.StandardKey.Delete)
        self.restore = self.acts.add("Restore", self.restore_selected, name="restore", key="Ctrl+Shift+R")
        self.purge = self.acts.add("Purge…", self.purge_selected, name="purge", key="Shift+Del")  # delete for good
        self.all = self.acts.all
        self.conflicts = QAction("Show Its Conflicts", owner)  # not a write: the Conflicts tab, filtered to it
        self.conflicts.setObjectName("fact-show-conflicts")
        self.conflicts.triggered.connect(self.show_conflicts)
        self.graph = QAction("Show in Graph", owner)  # not a write: the Knowledge Graph, focused on it
        self.graph.setObjectName("fact-show-graph")
        self.graph.triggered.connect(self.show_in_graph)
        self.check = QAction("Check It Is Forgotten…", owner)  # not a write: asks every way back, shows a receipt
        self.check.setObjectName("fact-forget-check")
        self.check.triggered.connect(self.check_selected)
        self.forget_dialog: Any = None  # the receipt "Check It Is Forgotten…" showed last
        #: set by the tab: offer the forget check after a delete or a purge (the request, what was done)
        self.offer_check: Callable[[CheckRequest, str], None] | None = None

    def bind(self, session: DeskSession) -> None:
        self.session = session
        self.acts.bind(session)
        self.update()

    def update(self) -> None:
        """Enable what the selection allows, and say why the rest is off."""
        facts = self.selected()
        states = {f.state() for f in facts}
        self.conflicts.setEnabled(len(facts) == 1)
        self.graph.setEnabled(len(facts) == 1)
        self.check.setEnabled(bool(facts) and self.session is not None)
        self.acts.update({
            self.edit: (len(facts) == 1 and "deleted" not in states, "Select one fact that is not deleted"),
            self.delete: (bool(facts) and states != {"deleted"}, "Select facts to delete"),
            self.restore: (bool(states & RESTORABLE), "Select deleted or superseded facts to restore them"),
            self.purge: (bool(facts), "Select facts to purge"),
        })

    def show_conflicts(self) -> None:
        facts = self.selected()
        if len(facts) == 1 and self.session is not None:
            self.session.navigate("conflicts", fact=facts[0].id)

    def check_selected(self) -> None:
        facts = self.selected()
        if facts and self.session is not None:
            self.session.ops.start(self._check(CheckRequest(fact_ids=tuple(f.id for f in facts))), owner=self.owner)

    async def _check(self, request: CheckRequest) -> None:
        assert self.session is not None
        self.forget_dialog = await check_forgotten(self.session, self.owner, request)

    def _offer(self, request: CheckRequest, what: str) -> None:
        if self.offer_check is not None:
            self.offer_check(request, what)

    def show_in_graph(self) -> None:
        facts = self.selected()
        if len(facts) == 1 and self.session is not None:
            self.session.navigate("graph", fact=facts[0].id)

    async def edit_selected(self) -> None:
        facts = self.selected()
        if not self.acts.allowed(self.edit) or len(facts) != 1 or self.session is None:
            return
        fact_id = facts[0].id
        fact = await self.session.read(lambda ws: browse_detail.fact_detail(ws, fact_id), label="reading the fact")
        if fact is None:
            self.session.status.emit("That fact is no longer in the workspace.")
            return
        dialog = FactEditDialog(fact, self.domains(), self.owner)
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        values = dialog.values()
        dialog.deleteLater()
        self.dialog = None
        if not accepted:
            return
        from memorydesk.memory.reviewer import Reviewer  # loaded by the first write

        result = await self.session.write(
            "editing the fact", Reviewer.edit_fact, fact_id, domain=values.domain, topic=values.topic,
            content=values.content, confidence=values.confidence, reason=values.reason,
            expected_updated_at=fact.updated_at)
        if result.ids:
            self.select_after.emit(result.ids[-1])  # the new version

    async def _names(self, ids: list[str]) -> list[naming.FactName]:
        assert self.session is not None
        return await self.session.read(lambda ws: naming.fact_names(ws, ids), label="reading the facts' names")

    async def delete_selected(self) -> None:
        ids = [f.id for f in self.selected() if f.state() != "deleted"]
        if not self.acts.allowed(self.delete) or not ids or self.session is None:
            return
        names = await self._names(ids)
        what = f"fact {naming.listed(names)}" if len(names) == 1 else f"{len(names):,} facts: {naming.listed(names)}"
        box, answer = ask_reason(self.owner, "Delete facts" if len(names) > 1 else "Delete fact", f"Delete {what}?",
                                 yes_text="Delete", name="fact-delete",
                                 informative="Deleted facts stop reaching agents. They stay in the file and can be "
                                             "restored (Restore in the Facts tab, or Edit ▸ Undo).")
        self.dialog = box
        reason = await answer
        self.dialog = None
        if reason is not None:
            follow = self.next_after(ids, "delete") if self.next_after is not None else None
            from memorydesk.memory.reviewer import Reviewer

            await self.session.write("deleting facts", Reviewer.delete_facts, ids, reason=reason)
            self._offer(CheckRequest(fact_ids=tuple(ids)), f"Deleted {len(ids)} fact{'s' if len(ids) != 1 else ''}.")
            if follow:
                self.select_after.emit(follow)  # the next fact, for the next review step

    async def restore_selected(self) -> None:
        # whatever replaced them (memory.actions.restore)
        ids = [f.id for f in self.selected() if f.state() in RESTORABLE]
        if not self.acts.allowed(self.restore) or not ids or self.session is None:
            return
        names = await self._names(ids)
        what = f"fact {naming.listed(names)}" if len(names) == 1 else f"{len(names):,} facts: {naming.listed(names)}"
        box, answer = ask_reason(self.owner, "Restore facts" if len(names) > 1 else "Restore fact",
                                 f"Restore {what}?", yes_text="Restore", name="fact-restore",
                                 informative="Restored facts are active again: agents get them in search and in "
                                             "dispatch previews. A fact that replaced one is superseded by it.")
        self.dialog = box
        reason = await answer
        self.dialog = None
        if reason is not None:
            follow = self.next_after(ids, "restore") if self.next_after is not None else None
            from memorydesk.memory.reviewer import Reviewer

            await self.session.write("restoring facts", Reviewer.restore_facts, ids, reason=reason)
            if follow:
                self.select_after.emit(follow)

    async def purge_selected(self) -> None:
        facts = self.selected()
        if not self.acts.allowed(self.purge) or not facts or self.session is None:
            return
        ids = [f.id for f in facts]

        def read(ws: Any) -> tuple[list[naming.FactName], list[Any], dict[str, Any]]:
            from memorydesk.browse.forget.subject import remembered_facts
            from memorydesk.browse.purge_scope import purge_scope
            from memorydesk.memory.actions.purge import backups_holding  # the reviewer's modules: loaded when used

            return (naming.fact_names(ws, ids), backups_holding(ws, ids), remembered_facts(ws, ids),
                    purge_scope(ws, ids))

        names, holding, remembered, scope = await self.session.read(read, label="looking at the facts and the "
                                                                                "backups")
        if not names:
            self.session.status.emit("Those facts are no longer in the workspace.")
            return
        dialog = PurgeDialog(names, [h.path.name for h in holding], self.owner, also=scope.words())
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        reason = dialog.reason.text().strip()  # read here: the worker never touches widgets
        backups = dialog.backup_action()
        dialog.deleteLater()
        self.dialog = None
        ids = [n.id for n in names]
        if accepted:
            follow = self.next_after(ids, "purge") if self.next_after is not None else None
            from memorydesk.memory.reviewer import Reviewer

            await self.session.write("purging facts", Reviewer.purge_facts, ids, reason=reason, backups=backups)
            self._offer(CheckRequest(fact_ids=tuple(ids), remembered=remembered),  # its text: never on screen again
                        f"Purged {len(ids)} fact{'s' if len(ids) != 1 else ''}.")
            if follow:
                self.select_after.emit(follow)
