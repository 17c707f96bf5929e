"""The reviewer's grant edits (docs/architecture.md, "What the desk does to memory"): set cells, remove rows, lock a
domain down, fix rows with unknown strings — each one transaction and one history row, undoable.

A bulk edit (a whole domain row, a whole role column, any selection of cells) is one
history row, so one Undo takes all of it back: a person who locked a domain down and
changed their mind should not have to undo nine times. Its detail lists each domain's
rows before and after (``memory.actions.grants``).

Setting a cell writes one exact row as the product writes rows (``coder`` → ``write``)
and removes every other row the product would match for that cell (an unknown-role
row counted as ``general``, a case variant), so the cell then reads what the person
chose. The desk creates no domain: a grant only for a domain that has a domain row or
that a fact, a policy or a grant row names.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection

from memorydesk.core.errors import MemoryDeskError
from memorydesk.core.product.grants import GrantRow, plan_cell, plan_row
from memorydesk.core.product.vocab import AgentRole, Permission, parse_agent_role
from memorydesk.memory.actions.grants import FixGrantRow, GrantEdit, RemoveGrants, SetGrants
from memorydesk.memory.grants import known_domains, rows_by_domain, rows_of
from memorydesk.memory.history.record import ChangeResult, perform
from memorydesk.store import Workspace
from memorydesk.store.retry import with_retry

Cells = Iterable[tuple[str, str]]  # (role, domain)


def _permission(value: str) -> Permission:
    text = value.strip().lower()
    if text not in {p.value for p in Permission}:
        raise MemoryDeskError(f"permission must be none, read or write, not {value!r}")
    return Permission(text)


def _role(value: str) -> AgentRole:
    role = parse_agent_role(value)
    if role is None:
        raise MemoryDeskError(f"role must be one of {', '.join(r.value for r in AgentRole)}, not {value!r}")
    return role


def _wire(rows: list[GrantRow], *, keep_rowid: bool) -> list[list[Any]]:
    return [[r.rowid if keep_rowid else None, r.agent_role, r.permission] for r in rows]


def _entity_id(cells: list[tuple[AgentRole, str]]) -> str:
    roles = {r for r, _d in cells}
    domains = {d for _r, d in cells}
    if len(cells) == 1:
        return f"{cells[0][0].value}/{cells[0][1]}"
    if len(domains) == 1:
        return f"*/{next(iter(domains))}"
    if len(roles) == 1:
        return f"{next(iter(roles)).value}/*"
    return "*"


class GrantEdits:
    """Mixed into ``Reviewer``: needs ``self.ws`` and ``self.actor``."""

    ws: Workspace
    actor: str

    # -- cells -----------------------------------------------------------------------------------
    def set_grants(self, cells: Cells, permission: str, reason: str = "") -> ChangeResult:
        """Set each (role, domain) cell to ``permission`` with one exact row."""
        return self._cells(SetGrants, cells, _permission(permission), reason)

    def remove_grants(self, cells: Cells, reason: str = "") -> ChangeResult:
        """Remove the rows behind each cell: it falls back to the bare name's row, or reads ``read``."""
        return self._cells(RemoveGrants, cells, None, reason)

    def lock_down(self, domains: Iterable[str], reason: str = "") -> ChangeResult:
        """``none`` for all nine roles of each domain (it stops ``propose_policy``, not reads)."""
        return self.set_grants([(r.value, d) for d in domains for r in AgentRole], "none", reason)

    def set_grant(self, role: str, domain: str, permission: str, reason: str = "") -> ChangeResult:
        return self.set_grants([(role, domain)], permission, reason)

    def remove_grant(self, role: str, domain: str, reason: str = "") -> ChangeResult:
        return self.remove_grants([(role, domain)], reason)

    def restore_grant(self, role: str, domain: str, permission: str, fail_open: bool,
                      reason: str = "") -> ChangeResult:
        """The cell (role, domain) back to what another file (a backup) resolved: ``permission``
        from a row of its own, or (``fail_open``) no row of its own — the rows removed."""
        if fail_open:
            return self.remove_grant(role, domain, reason)
        return self.set_grant(role, domain, permission, reason)

    def _cells(self, act: type[GrantEdit], cells: Cells, permission: Permission | None, reason: str) -> ChangeResult:
        wanted = list(dict.fromkeys((_role(r), d) for r, d in cells))
        if not wanted:
            raise MemoryDeskError("no grant cell was chosen")
        by_domain: dict[str, list[AgentRole]] = {}
        for role, domain in wanted:
            by_domain.setdefault(domain, []).append(role)

        def work(conn: Connection) -> ChangeResult:
            self._check_domains(conn, by_domain)
            edits, changed = [], []
            stored = rows_by_domain(self.ws, conn, by_domain)
            for domain, roles in by_domain.items():
                rows = stored[domain]
                before: list[GrantRow] = []
                after: list[GrantRow] = []
                for role in roles:
                    b, a = plan_cell(domain, rows, role, permission)
                    if b or a:
                        before += b
                        after += a
                        changed.append((role, domain))
                if before or after:
                    edits.append({"domain": domain, "before": _wire(before, keep_rowid=True),
                                  "after": _wire(after, keep_rowid=False)})
            if not edits:
                cells_text = "the cell" if len(wanted) == 1 else "the chosen cells"
                raise MemoryDeskError(
                    f"nothing to change: {cells_text} have no grant row to remove" if permission is None
                    else f"nothing to change: {cells_text} already read {permission.value} from one exact row")
            hid = perform(self.ws, conn, act(edits), entity_id=_entity_id(changed), actor=self.actor, reason=reason)
            return ChangeResult("grant", [f"{r.value}/{d}" for r, d in changed], [hid],
                                self._message(changed, permission), {"domain": list(by_domain)})

        return with_retry(self.ws, work)

    @staticmethod
    def _message(changed: list[tuple[AgentRole, str]], permission: Permission | None) -> str:
        what = permission.value if permission is not None else "row removed"
        if len(changed) == 1:
            role, domain = changed[0]
            return f"grant {role.value} × {domain}: {what}"
        domains = len({d for _r, d in changed})
        verb = f"set to {permission.value}" if permission is not None else "removed"
        return f"{len(changed)} grants {verb} in {domains} domain{'s' if domains != 1 else ''}"

    def _check_domains(self, conn: Connection, domains: Iterable[str]) -> None:
        wanted = list(domains)
        known = known_domains(self.ws, conn, wanted)
        missing = [d for d in wanted if d not in known]
        if missing:
            raise MemoryDeskError(f"no domain {missing[0]!r} in this workspace: the desk creates no domains, and "
                                  "grants are only for domains that exist or that memory names")

    # -- single stored rows ----------------------------------------------------------------------
    def fix_grant_row(self, domain: str, agent_role: str, *, role: str | None = None, permission: str | None = None,
                      reason: str = "") -> ChangeResult:
        """Rewrite one stored row (found by its exact role string) with a known role and/or
        permission. A row already stored under the new role string is replaced."""
        new_role = _role(role).value if role is not None else None
        new_perm = _permission(permission).value if permission is not None else None
        if new_role is None and new_perm is None:
            raise MemoryDeskError("choose a role or a permission for the row")
        return self._row(FixGrantRow, domain, agent_role, reason, role=new_role, permission=new_perm)

    def remove_grant_row(self, domain: str, agent_role: str, reason: str = "") -> ChangeResult:
        """Remove one stored row (found by its exact role string)."""
        return self._row(RemoveGrants, domain, agent_role, reason, remove=True)

    def _row(self, act: type[GrantEdit], domain: str, agent_role: str, reason: str, **change: Any) -> ChangeResult:
        def work(conn: Connection) -> ChangeResult:
            rows = rows_of(self.ws, conn, domain)
            if not any(r.agent_role == agent_role for r in rows):
                raise MemoryDeskError(f"there is no grant row {agent_role!r} on {domain!r} (any more)")
            before, after = plan_row(rows, agent_role, **change)
            if not before and not after:
                raise MemoryDeskError(f"nothing to change: the row {agent_role!r} on {domain!r} already reads so")
            edit = {"domain": domain, "before": _wire(before, keep_rowid=True), "after": _wire(after, keep_rowid=False)}
            hid = perform(self.ws, conn, act([edit]), entity_id=f"{agent_role}/{domain}", actor=self.actor,
                          reason=reason)
            ids = list(dict.fromkeys(f"{r.agent_role}/{domain}" for r in [*before, *after]))
            message = (f"grant row {agent_role!r} on {domain} removed" if not after else
                       f"grant row {agent_role!r} on {domain} now {after[0].agent_role!r} → {after[0].permission!r}")
            return ChangeResult("grant", ids, [hid], message, {"domain": [domain]})

        return with_retry(self.ws, work)
