"""Grant resolution as the product applies it (DESIGN.md §3, CC_SCHEMA.md §7.4).

The product reads every grant row of the workspace (one query without ``ORDER BY``),
parses each row, and for (role, domain) takes the **first** parsed row whose role and
domain match (``MemoryAccessPolicy.check``):

- the role string parses case-insensitively; an unknown role string counts as a
  ``general`` row, so ``engineer`` and ``general`` rows on one domain both match the
  ``general`` cell, and the one read first decides;
- the domain compares exactly (``Release Notes`` is not ``release-notes``);
- the permission parses case-insensitively; an unknown string reads as ``read``;
- no row: for a repo-scoped domain ``repo:<slug>/x`` the rows of the bare name ``x``
  decide the same way; else ``read`` (fail-open).

Each cell's *source* says where its permission came from: ``exact`` (a row of the
domain), ``bare_name`` (a row of the bare name), ``fail_open`` (no row),
``unknown_value`` (the deciding row has an unknown role or permission string), or
``ambiguous`` (more than one row matches; the first as read decides).

Everything here is pure: rows come in, in the order the product reads them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from memorydesk.core.text import dart_lower
from memorydesk.core.vocab import AgentRole, Permission, bare_domain_name

__all__ = [
    "CODE_OF_PERMISSION", "CODE_OF_SOURCE", "Cell", "GrantIndex", "GrantRow", "PERMISSIONS", "ROLES", "SOURCES",
    "Source", "is_known_permission", "plan_cell", "plan_row",
]

ROLES: Final[tuple[AgentRole, ...]] = tuple(AgentRole)
PERMISSIONS: Final[tuple[Permission, ...]] = (Permission.NONE, Permission.READ, Permission.WRITE)


class Source(StrEnum):
    """Where a cell's effective permission came from."""

    EXACT = "exact"
    BARE_NAME = "bare_name"
    FAIL_OPEN = "fail_open"
    UNKNOWN_VALUE = "unknown_value"
    AMBIGUOUS = "ambiguous"


SOURCES: Final[tuple[Source, ...]] = tuple(Source)
CODE_OF_PERMISSION: Final = {p: i for i, p in enumerate(PERMISSIONS)}
CODE_OF_SOURCE: Final = {s: i for i, s in enumerate(SOURCES)}
_ROLE_BY_NAME: Final = {r.value: r for r in ROLES}
_PERMISSION_BY_NAME: Final = {p.value: p for p in PERMISSIONS}


def is_known_permission(value: str | None) -> bool:
    """``none``/``read``/``write`` in any letter case (what the product parses as itself)."""
    return value is not None and dart_lower(value) in _PERMISSION_BY_NAME


@dataclass(frozen=True, slots=True)
class GrantRow:
    """One stored grant row, its strings exactly as stored (``rowid``: SQLite's, when known)."""

    agent_role: str
    memory_domain: str
    permission: str
    rowid: int | None = None

    @property
    def role(self) -> AgentRole:
        """The role the product reads (an unknown string counts as ``general``)."""
        return _ROLE_BY_NAME.get(dart_lower(self.agent_role), AgentRole.GENERAL)

    @property
    def role_known(self) -> bool:
        return dart_lower(self.agent_role) in _ROLE_BY_NAME

    @property
    def effective(self) -> Permission:
        """The permission the product reads (an unknown string reads as ``read``)."""
        return _PERMISSION_BY_NAME.get(dart_lower(self.permission), Permission.READ)

    @property
    def permission_known(self) -> bool:
        return is_known_permission(self.permission)

    @property
    def canonical(self) -> bool:
        """Stored as the product writes rows: lower-case role and permission names."""
        return self.agent_role in _ROLE_BY_NAME and self.permission in _PERMISSION_BY_NAME

    def describe(self) -> str:
        """``'Engineer' → 'none' (role read as general)`` — the row as stored, and how it reads."""
        notes = []
        if not self.role_known:
            notes.append("unknown role, counts as general")
        if not self.permission_known:
            notes.append("unknown permission, reads as read")
        text = f"{self.agent_role!r} → {self.permission!r} on {self.memory_domain!r}"
        return f"{text} ({'; '.join(notes)})" if notes else text


@dataclass(frozen=True, slots=True)
class Cell:
    """The effective permission of one (role, domain), and the rows behind it.

    ``rows``: every row that matches, in the product's read order (``rows[0]`` decided);
    empty when fail-open. ``via``: the domain whose rows decided (the domain itself, or
    its bare name), None when fail-open.
    """

    role: AgentRole
    domain: str
    permission: Permission
    source: Source
    rows: tuple[GrantRow, ...] = ()
    via: str | None = None

    @property
    def decided_by(self) -> GrantRow | None:
        return self.rows[0] if self.rows else None

    @property
    def is_seeded_default(self) -> bool:
        """What a newly created domain gets: one exact ``write`` row."""
        return self.source is Source.EXACT and self.permission is Permission.WRITE


class GrantIndex:
    """Grant rows grouped by domain and parsed role, keeping the product's read order.

    Parsing is cached per distinct string, so a workspace of 45,000 rows is grouped
    in a few tens of milliseconds; a cell is then two dictionary lookups.
    """

    def __init__(self, rows: Iterable[GrantRow] = ()) -> None:
        self._by_domain: dict[str, dict[AgentRole, list[GrantRow]]] = {}
        self._rows: dict[str, list[GrantRow]] = {}
        roles: dict[str, AgentRole] = {}
        for row in rows:
            role = roles.get(row.agent_role)
            if role is None:
                role = roles[row.agent_role] = row.role
            self._by_domain.setdefault(row.memory_domain, {}).setdefault(role, []).append(row)
            self._rows.setdefault(row.memory_domain, []).append(row)

    def domains(self) -> list[str]:
        """Every domain some row names (in the order first read)."""
        return list(self._rows)

    def rows_of(self, domain: str) -> list[GrantRow]:
        """The rows stored for exactly this domain, in read order."""
        return list(self._rows.get(domain, ()))

    def __len__(self) -> int:
        return sum(len(r) for r in self._rows.values())

    def cell(self, role: AgentRole, domain: str) -> Cell:
        matches = self._by_domain.get(domain, {}).get(role)
        via = domain
        if not matches:
            bare = bare_domain_name(domain)
            if bare != domain:
                matches, via = self._by_domain.get(bare, {}).get(role), bare
        if not matches:
            return Cell(role, domain, Permission.READ, Source.FAIL_OPEN)
        first = matches[0]
        if len(matches) > 1:
            source = Source.AMBIGUOUS
        elif not (first.role_known and first.permission_known):
            source = Source.UNKNOWN_VALUE
        elif via != domain:
            source = Source.BARE_NAME
        else:
            source = Source.EXACT
        return Cell(role, domain, first.effective, source, tuple(matches), via)

    def codes(self, domain: str) -> tuple[bytes, bytes]:
        """(permission codes, source codes) of the nine cells of a domain, in ``ROLES`` order."""
        perms, sources = bytearray(len(ROLES)), bytearray(len(ROLES))
        for j, role in enumerate(ROLES):
            c = self.cell(role, domain)
            perms[j], sources[j] = CODE_OF_PERMISSION[c.permission], CODE_OF_SOURCE[c.source]
        return bytes(perms), bytes(sources)

    def replaced(self, domain: str, rows: Sequence[GrantRow]) -> GrantIndex:
        """A copy in which ``domain`` holds ``rows`` (other domains shared, not copied)."""
        other = GrantIndex()
        other._by_domain = dict(self._by_domain)
        other._rows = dict(self._rows)
        fresh = GrantIndex(rows)
        other._by_domain.pop(domain, None)
        other._rows.pop(domain, None)
        if rows:
            other._by_domain[domain] = fresh._by_domain[domain]
            other._rows[domain] = fresh._rows[domain]
        return other


def plan_cell(domain: str, rows: Sequence[GrantRow], role: AgentRole, permission: Permission | None
              ) -> tuple[list[GrantRow], list[GrantRow]]:
    """What setting (or removing, ``permission=None``) one cell changes in its domain's rows.

    Returns (rows removed or rewritten, rows written). Every row that matches the cell
    goes (an unknown-role row for ``general``, a case variant), so the product then reads
    exactly one row there: ``<role>`` → ``<permission>``, as the product itself writes
    them (``rows``: the domain's stored rows). Both lists are empty when the cell
    already is that one row.
    """
    before = [r for r in rows if r.role is role and r.memory_domain == domain]
    if permission is None:
        return before, []
    if len(before) == 1 and before[0].agent_role == role.value and before[0].permission == permission.value:
        return [], []
    return before, [GrantRow(role.value, domain, permission.value)]


def plan_row(rows: Sequence[GrantRow], agent_role: str, *, role: str | None = None,
             permission: str | None = None, remove: bool = False) -> tuple[list[GrantRow], list[GrantRow]]:
    """Fix one stored row (found by its exact role string): give it another role and/or
    permission string, or remove it. Returns (rows removed or rewritten, rows written)."""
    found = [r for r in rows if r.agent_role == agent_role]
    if not found:
        return [], []
    old = found[0]
    if remove:
        return [old], []
    new = GrantRow(role if role is not None else old.agent_role, old.memory_domain,
                   permission if permission is not None else old.permission)
    if (new.agent_role, new.permission) == (old.agent_role, old.permission):
        return [], []
    clash = [r for r in rows if r.agent_role == new.agent_role and r is not old]
    return [old, *clash], [new]
