"""The Grants tab's write actions: set the selected cells to none / read / write, remove their
rows (back to the bare name's row or fail-open read), lock a domain down, fix a stored row.

Each is a flow: check on the worker whether the change takes the last ``write`` from a
domain that has active policies, confirm the change in a dialog that says so and asks why
(an empty reason is refused in place), make one reviewer call (one history row, undoable)
with that reason. The domains changed stay in view under a filter they no longer match
(a lock-down under "Fail-open cells") until the filter is changed. There is no way to
create a domain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QWidget

from memorydesk.browse.grants import Plan, write_loss
from memorydesk.core.product.grants import ROLES, Cell, Source
from memorydesk.ui.actions import WriteActions
from memorydesk.ui.grants.dialogs import FixRowDialog
from memorydesk.ui.operations import dialog_result
from memorydesk.ui.session import DeskSession
from memorydesk.ui.widgets.prompts import ReasonDialog


def _has_own_row(cell: Cell) -> bool:
    return bool(cell.rows) and cell.via == cell.domain


class GrantActions(QObject):
    """The edits of the cells ``selected()`` (``current()``: the one with the focus) once
    ``ready()`` (the rows are read); ``keep_in_view(domains)`` keeps the domains an edit changes
    listed. ``owner`` is the tab: the actions' widget and the dialogs' parent."""

    def __init__(self, owner: QWidget, *, selected: Callable[[], list[Cell]], current: Callable[[], Cell | None],
                 ready: Callable[[], bool], keep_in_view: Callable[[list[str]], None]) -> None:
        super().__init__(owner)
        self.owner = owner
        self.selected, self.current, self.ready, self.keep_in_view = selected, current, ready, keep_in_view
        self.session: DeskSession | None = None
        self.dialog: Any = None
        self.acts = WriteActions(owner, "grant")
        add = self.acts.add
        self.set_none = add("Set None", lambda: self.set_cells("none"), name="set-none", key="Alt+N")
        self.set_read = add("Set Read", lambda: self.set_cells("read"), name="set-read", key="Alt+R")
        self.set_write = add("Set Write", lambda: self.set_cells("write"), name="set-write", key="Alt+W")
        self.remove = add("Remove Row", self.remove_cells, name="remove", key=QKeySequence.StandardKey.Delete)
        self.lock = add("Lock Down Domain", self.lock_down, name="lock-down", key="Alt+L")
        self.fix = add("Fix Row…", self.fix_row, name="fix", key="F2")
        self.all = self.acts.all

    def bind(self, session: DeskSession) -> None:
        self.session = session
        self.acts.bind(session)
        self.update()

    def update(self) -> None:
        if not self.ready():
            self.acts.update({a: (False, "The grant rows are still being read") for a in self.all})
            return
        cells = self.selected()
        current = self.current()
        any_cells = (bool(cells), "Select cells first")
        self.acts.update({
            self.set_none: any_cells, self.set_read: any_cells, self.set_write: any_cells,
            self.remove: (any(_has_own_row(c) for c in cells), "The selected cells have no row of their own"),
            self.lock: any_cells,
            self.fix: (current is not None and bool(current.rows), "Select a cell that has a row"),
        })

    # --- flows --------------------------------------------------------------------------

    async def set_cells(self, permission: str) -> None:
        action = {"none": self.set_none, "read": self.set_read, "write": self.set_write}[permission]
        cells = self.selected()
        if not self.acts.allowed(action) or not cells or self.session is None:
            return
        todo = [c for c in cells if not (c.source is Source.EXACT and c.permission.value == permission
                                         and len(c.rows) == 1 and c.rows[0].canonical)]
        if not todo:
            self.session.status.emit(f"Nothing to change: the selected cells already read {permission} from one row.")
            return
        pairs = tuple((c.role.value, c.domain) for c in todo)
        what = (f"Set {todo[0].role.value} on {todo[0].domain} to {permission}" if len(todo) == 1
                else f"Set {len(todo):,} cells of {todo[0].domain} to {permission}" if len(_domains(todo)) == 1
                else f"Set {len(todo):,} cells to {permission}")
        reason = await self._ask(Plan("set", pairs, permission), what, _domains(todo), granting=permission == "write")
        if reason is not None:
            await self._change(f"setting grants to {permission}", _domains(todo),
                              lambda r: r.set_grants(pairs, permission, reason))

    async def remove_cells(self) -> None:
        cells = [c for c in self.selected() if _has_own_row(c)]
        if not self.acts.allowed(self.remove) or not cells or self.session is None:
            return
        pairs = tuple((c.role.value, c.domain) for c in cells)
        what = (f"Remove the row of {cells[0].role.value} on {cells[0].domain}" if len(cells) == 1
                else f"Remove the rows of {len(cells):,} cells of {cells[0].domain}" if len(_domains(cells)) == 1
                else f"Remove the rows of {len(cells):,} cells")
        reason = await self._ask(Plan("remove", pairs), what, _domains(cells), removing=True)
        if reason is not None:
            await self._change("removing grant rows", _domains(cells), lambda r: r.remove_grants(pairs, reason))

    async def lock_down(self) -> None:
        domains = list(dict.fromkeys(c.domain for c in self.selected()))
        if not self.acts.allowed(self.lock) or not domains or self.session is None:
            return
        pairs = tuple((r.value, d) for d in domains for r in ROLES)
        where = domains[0] if len(domains) == 1 else f"{len(domains):,} domains"
        reason = await self._ask(Plan("set", pairs, "none"), f"Lock down {where} (none for all nine roles)", domains)
        if reason is not None:
            await self._change("locking the domain down", domains, lambda r: r.lock_down(domains, reason))

    async def fix_row(self) -> None:
        cell = self.current()
        if not self.acts.allowed(self.fix) or cell is None or not cell.rows or self.session is None:
            return
        dialog = FixRowDialog(cell, self.owner)
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        v = dialog.values()
        dialog.deleteLater()
        self.dialog = None
        if not accepted:
            return
        plan = Plan("remove_row" if v["remove"] else "fix", domain=v["domain"], agent_role=v["agent_role"],
                    new_role=None if v["remove"] else v["role"], permission=None if v["remove"] else v["permission"])
        reason = await self._ask(plan, "", [v["domain"]], reason=v["reason"])
        if reason is None:
            return
        if v["remove"]:
            await self._change("removing the grant row", [v["domain"]], lambda r: r.remove_grant_row(
                v["domain"], v["agent_role"], reason))
        else:
            await self._change("fixing the grant row", [v["domain"]], lambda r: r.fix_grant_row(
                v["domain"], v["agent_role"], role=v["role"], permission=v["permission"], reason=reason))

    # --- helpers ------------------------------------------------------------------------

    async def _ask(self, plan: Plan, what: str, domains: list[str], *, reason: str | None = None,
                   removing: bool = False, granting: bool = False) -> str | None:
        """The reason to go ahead with, or None: the dialog says what the change does (and when
        it takes the last write from a domain with active policies) and asks why. A change whose
        reason was given in its own dialog (a row fixed) is asked again only for the last write."""
        assert self.session is not None
        lost = await self.session.read(lambda ws: write_loss(ws, plan), label="checking who can still write")
        if reason and not lost:
            return reason
        lines = []
        if lost:
            named = ", ".join(f"{d} ({n} active polic{'y' if n == 1 else 'ies'})" for d, n in lost[:8])
            more = f" and {len(lost) - 8} more" if len(lost) > 8 else ""
            lines.append(f"After this change no role can promote facts to policies in {named}{more}. The "
                         "existing policies stay active; agents' new policies there will be refused.")
        if removing:
            lines.append("A cell without a row of its own reads its bare name's row, or read (fail-open).")
        if len(domains) > 1:
            lines.append(f"This changes {len(domains):,} domains at once; one Edit ▸ Undo takes it all back.")
        if granting:
            lines.append("Agents acting as these roles can then promote facts to policies (propose_policy) "
                         "there; reads and fact writes never needed a grant. Edit ▸ Undo takes it back.")
        else:
            lines.append("Reads are not affected: the product enforces only write. Edit ▸ Undo takes it back.")
        title = "Remove the last write?" if lost else "Change grants"
        text = (what + "?") if what else "Change this grant row?"
        if lost and not what:
            text = "This takes away the last write."
        dialog = ReasonDialog(self.owner, title, text, yes_text="Change", informative="\n\n".join(lines),
                              name="grant-change")
        if reason:
            dialog.reason.setText(reason)
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        given = dialog.reason_text()
        dialog.deleteLater()
        self.dialog = None
        return given if accepted and given else None

    async def _change(self, label: str, domains: list[str], call) -> None:
        assert self.session is not None
        self.keep_in_view(domains)
        await self.session.write(label, call)


def _domains(cells: list[Cell]) -> list[str]:
    return list(dict.fromkeys(c.domain for c in cells))
