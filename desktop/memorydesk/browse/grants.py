"""The effective grant matrix: every domain × the nine roles, as the product resolves it.

Rows are every domain of the workspace: its domain rows, and the domains that facts,
policies or grant rows name without one (``DomainEntry.has_row`` False). Cells come
from ``core.product.grants`` over the rows read with the product's own query
(``memory.grants.read_raw``), so the tab, the command line and ``propose_policy``
agree cell by cell. Reading is one pass over the grant rows; the matrix resolves a
domain's nine cells when they are first needed (painted, filtered, counted), keeps
two bytes per cell, and gathers a cell's rows again only when someone looks at it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import case, func, select

from memorydesk.core.product.grants import (
    CODE_OF_PERMISSION,
    CODE_OF_SOURCE,
    PERMISSIONS,
    ROLES,
    SOURCES,
    Cell,
    GrantIndex,
    Source,
    plan_cell,
    plan_row,
)
from memorydesk.core.product.vocab import AgentRole, Permission, bare_domain_name, parse_agent_role
from memorydesk.memory import grants as grant_rows
from memorydesk.store.workspace import Workspace

__all__ = [
    "FILTERS",
    "DomainEntry",
    "GrantMatrix",
    "Plan",
    "acting_role",
    "DomainDetail",
    "GrantAgent",
    "agents_by_role",
    "domain_detail",
    "matrix_json",
    "read_first_screen",
    "read_matrix",
    "write_loss",
]

WRITE, FAIL_OPEN = CODE_OF_PERMISSION[Permission.WRITE], CODE_OF_SOURCE[Source.FAIL_OPEN]
EXACT = CODE_OF_SOURCE[Source.EXACT]
FIRST_SCREEN = 150  # domains whose rows a first screen reads
PROBLEMS = {CODE_OF_SOURCE[Source.AMBIGUOUS], CODE_OF_SOURCE[Source.UNKNOWN_VALUE]}
#: filter name → what it shows (the tab's "Show" choices)
FILTERS = {
    "all": "every domain",
    "fail_open": "fail-open cells (no row: reads as read)",
    "write": "write cells",
    "changed": "domains that differ from the seeded default (write for all nine)",
    "problems": "ambiguous cells and unknown strings",
}


@dataclass(frozen=True, slots=True)
class DomainEntry:
    name: str
    has_row: bool  # a memory_domains_table row exists
    names: grant_rows.DomainNames = field(repr=False, compare=False)

    @property
    def named_by(self) -> tuple[str, ...]:
        """"fact", "policy", "grant": what names it."""
        return self.names.named_by(self.name)


@dataclass
class GrantMatrix:
    """Domains × roles. Each domain's nine cells are resolved the first time they are needed
    (two bytes a cell, kept), so the first screen of a 5,000-domain matrix is drawn before
    the rest is resolved; ``complete()`` resolves every domain (filters and counts need it)."""

    domains: list[DomainEntry]
    index: GrantIndex
    read_order: str = ""  # how SQLite returns the product's grant query on this file
    first: frozenset[str] | None = None  # a first screen: only these domains' rows were read
    positions: dict[str, int] = field(default_factory=dict)
    perms: bytearray = field(default_factory=bytearray)  # permission code per cell (domain-major)
    sources: bytearray = field(default_factory=bytearray)  # source code per cell
    resolved: bytearray = field(default_factory=bytearray)  # 1 per domain once resolved

    def __post_init__(self) -> None:
        n = len(self.domains)
        self.positions = {d.name: i for i, d in enumerate(self.domains)}
        self.perms = bytearray(n * len(ROLES))
        self.sources = bytearray(n * len(ROLES))
        self.resolved = bytearray(n)

    def _resolve(self, row: int) -> int:
        n = len(ROLES)
        if not self.resolved[row]:
            perms, sources = self.index.codes(self.domains[row].name)
            self.perms[row * n:row * n + n] = perms
            self.sources[row * n:row * n + n] = sources
            self.resolved[row] = 1
        return row * n

    def complete(self) -> GrantMatrix:
        if self.first is not None:
            raise ValueError("a first screen cannot be completed: read the whole matrix")
        for row in range(len(self.domains)):
            self._resolve(row)
        return self

    @property
    def is_complete(self) -> bool:
        return self.first is None and all(self.resolved)

    @property
    def is_first_screen(self) -> bool:
        return self.first is not None

    def known(self, row: int) -> bool:
        """Whether the row's cells can be shown (a first screen knows only its own domains)."""
        return self.first is None or self.domains[row].name in self.first

    def code(self, row: int, col: int) -> tuple[Permission, Source]:
        k = self._resolve(row) + col
        return PERMISSIONS[self.perms[k]], SOURCES[self.sources[k]]

    def cell(self, row: int, col: int) -> Cell:
        return self.index.cell(ROLES[col], self.domains[row].name)

    def row_of(self, domain: str) -> int | None:
        return self.positions.get(domain)

    def cell_matches(self, row: int, col: int, mode: str) -> bool:
        k = self._resolve(row) + col
        if mode == "fail_open":
            return self.sources[k] == FAIL_OPEN
        if mode == "write":
            return self.perms[k] == WRITE
        if mode == "problems":
            return self.sources[k] in PROBLEMS
        return True

    def differs_from_default(self, row: int) -> bool:
        k = self._resolve(row)
        return any(self.perms[c] != WRITE or self.sources[c] != EXACT for c in range(k, k + len(ROLES)))

    def rows_shown(self, mode: str = "all", text: str = "") -> list[int]:
        """The domain rows a filter shows (``text``: part of the name, any letter case)."""
        needle = text.strip().lower()
        if mode == "all" and not needle:
            return list(range(len(self.domains)))
        out = []
        n = len(ROLES)
        for i, entry in enumerate(self.domains):
            if needle and needle not in entry.name.lower():
                continue
            if mode == "changed" and not self.differs_from_default(i):
                continue
            if mode in ("fail_open", "write", "problems") and not any(self.cell_matches(i, j, mode) for j in range(n)):
                continue
            out.append(i)
        return out

    def counts(self, rows: Iterable[int] | None = None) -> dict[str, int]:
        """Cells of each source, in every domain or in the domain rows ``rows`` (what a filter shows)."""
        self.complete()
        if rows is None:
            return {s.value: self.sources.count(CODE_OF_SOURCE[s]) for s in SOURCES}
        n = len(ROLES)
        picked = bytearray().join(self.sources[r * n:r * n + n] for r in rows)
        return {s.value: picked.count(CODE_OF_SOURCE[s]) for s in SOURCES}


ORDER_TEXT = {
    "index": "by role string, then domain (SQLite reads the primary-key index)",
    "rowid": "in the order the rows were written (SQLite scans the table)",
    None: "in the order SQLite's plan for the product's query gives on this file",
}


def _read_order(ws: Workspace, conn: Any) -> str:
    return ORDER_TEXT[grant_rows.product_order(ws, conn)]


def build_matrix(index: GrantIndex, names: grant_rows.DomainNames, read_order: str = "") -> GrantMatrix:
    rows = names.rows
    return GrantMatrix([DomainEntry(n, n in rows, names) for n in names.all()], index, read_order)


def read_first_screen(ws: Workspace, first: int | None = None) -> GrantMatrix:
    """Every domain name, but the rows of the first ``first`` domains only (default
    ``FIRST_SCREEN``) and of their bare names, ordered as the product's query would return
    them: what a first screen needs, without reading every grant row. Falls back to the
    whole matrix when SQLite's plan for the product's query is not one whose order can be
    reproduced."""
    first = FIRST_SCREEN if first is None else first
    with ws.read() as conn:
        order = grant_rows.product_order(ws, conn)
        if order is None:
            return read_matrix(ws, complete=False)
        names = grant_rows.domain_names(ws, conn, grant_rows.grant_domains(ws, conn))
        head = names.all()[:first]
        wanted = set(head) | {bare_domain_name(d) for d in head}
        index = GrantIndex(grant_rows.read_raw_of(ws, conn, wanted, order))
    matrix = build_matrix(index, names, ORDER_TEXT[order])
    matrix.first = frozenset(head)
    return matrix


def read_matrix(ws: Workspace, *, complete: bool = True) -> GrantMatrix:
    """The matrix; ``complete=False`` leaves the cells to be resolved as they are shown."""
    with ws.read() as conn:
        index = GrantIndex(grant_rows.read_raw(ws, conn))
        names = grant_rows.domain_names(ws, conn, index.domains())
        order = _read_order(ws, conn)
    matrix = build_matrix(index, names, order)
    return matrix.complete() if complete else matrix


def matrix_json(matrix: GrantMatrix) -> dict[str, Any]:
    """``{"roles": [...], "domains": [{"domain", "cells": {role: {"permission", "source"}}}]}``."""
    out = []
    for i, entry in enumerate(matrix.domains):
        cells = {}
        for j, role in enumerate(ROLES):
            permission, source = matrix.code(i, j)
            cells[role.value] = {"permission": permission.value, "source": source.value}
        out.append({"domain": entry.name, "cells": cells})
    return {"roles": [r.value for r in ROLES], "domains": out}


# -- the side panel ------------------------------------------------------------------------------

def acting_role(stored: str | None) -> AgentRole:
    """The role an agent acts as: its own, or ``general`` when none or unknown (as the product's tools default it)."""
    return parse_agent_role(stored) or AgentRole.GENERAL


@dataclass(frozen=True)
class GrantAgent:
    """An agent as the Grants tab names it: ``role`` as stored (None, or a string the product
    does not know: it acts as ``general``)."""

    id: str
    name: str
    role: str | None

    @property
    def acts_as(self) -> AgentRole:
        return acting_role(self.role)

    @property
    def role_known(self) -> bool:
        """Its stored role is the role it acts as (not empty, not an unknown string)."""
        return bool(self.role) and str(self.role).lower() == self.acts_as.value


@dataclass(frozen=True)
class DomainRow:
    label: str | None
    description: str | None
    created_by_role: str | None
    created_at: int | None


@dataclass(frozen=True)
class DomainDetail:
    """How much memory a domain holds, and its domain row (None when it has none)."""

    domain: str
    facts: int
    facts_active: int
    policies: int
    policies_active: int
    row: DomainRow | None
    bare: str | None


def agents_by_role(ws: Workspace) -> dict[str, list[GrantAgent]]:
    """Agents grouped by the role they act as, by name."""
    a = ws.layout.agents.c
    with ws.read() as conn:
        rows = conn.execute(select(a.id, a.name, a.role).order_by(a.name)).all()
    out: dict[str, list[GrantAgent]] = {r.value: [] for r in ROLES}
    for r in rows:
        agent = GrantAgent(r.id, r.name, r.role)
        out[agent.acts_as.value].append(agent)
    return out


def domain_detail(ws: Workspace, domain: str) -> DomainDetail:
    """How much memory a domain holds and its domain row (None when it has none)."""
    L = ws.layout
    f, p, d = L.facts.c, L.policies.c, L.domains.c
    with ws.read() as conn:
        facts = conn.execute(select(func.count(), func.coalesce(func.sum(case((f.superseded_by.is_(None), 1),
                                                                             else_=0)), 0))
                             .where(f.domain == domain)).one()
        policies = conn.execute(select(func.count(), func.coalesce(func.sum(p.active), 0))
                                .where(p.domain == domain)).one()
        row = conn.execute(select(d.label, d.description, d.created_by_role, d.created_at)
                           .where(d.name == domain)).first()
    return DomainDetail(domain, int(facts[0]), int(facts[1]), int(policies[0]), int(policies[1]),
                        DomainRow(*row) if row is not None else None, bare_domain_name(domain))


# -- asking before a change ----------------------------------------------------------------------

@dataclass(frozen=True)
class Plan:
    """A grant edit the tab is about to make (checked before it is written)."""

    kind: str  # "set", "remove" (cells), "fix", "remove_row" (one stored row)
    cells: tuple[tuple[str, str], ...] = ()  # (role, domain) for set/remove
    permission: str | None = None
    domain: str = ""  # fix/remove_row
    agent_role: str = ""
    new_role: str | None = None


def _after(index: GrantIndex, plan: Plan) -> tuple[GrantIndex, set[str]]:
    edited: dict[str, list] = {}
    if plan.kind in ("set", "remove"):
        perm = Permission(plan.permission) if plan.kind == "set" and plan.permission else None
        for role, domain in plan.cells:
            rows = edited.setdefault(domain, index.rows_of(domain))
            before, after = plan_cell(domain, rows, AgentRole(role), perm)
            edited[domain] = [r for r in rows if r not in before] + after
    else:
        rows = index.rows_of(plan.domain)
        before, after = plan_row(rows, plan.agent_role, role=plan.new_role, permission=plan.permission,
                                 remove=plan.kind == "remove_row")
        edited[plan.domain] = [r for r in rows if r not in before] + after
    for domain, rows in edited.items():
        index = index.replaced(domain, rows)
    return index, set(edited)


def _writers(index: GrantIndex, domain: str) -> int:
    return sum(1 for role in ROLES if index.cell(role, domain).permission is Permission.WRITE)


def write_loss(ws: Workspace, plan: Plan) -> list[tuple[str, int]]:
    """Domains with active policies where ``plan`` would take away the last ``write`` —
    counting the repo-scoped domains that fall back to an edited bare name."""
    with ws.read() as conn:
        index = GrantIndex(grant_rows.read_raw(ws, conn))
        names = grant_rows.domain_names(ws, conn, index.domains()).all()
        after, edited = _after(index, plan)
        affected = [n for n in names if n in edited or bare_domain_name(n) in edited]
        lost = [d for d in affected if _writers(index, d) > 0 and _writers(after, d) == 0]
        p = ws.layout.policies.c
        out = []
        for domain in lost:
            active = int(conn.execute(select(func.count()).where(p.domain == domain, p.active == 1)).scalar() or 0)
            if active:
                out.append((domain, active))
    return out
