"""Grant resolution as the product applies it (docs/product-format.md, "The product's rules" and "Vocabularies").

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
from typing import Any, Final, NamedTuple

from memorydesk.core.product.text import dart_lower
from memorydesk.core.product.vocab import AgentRole, Permission, bare_domain_name

__all__ = [
    "CODE_OF_PERMISSION",
    "CODE_OF_SOURCE",
    "PERMISSIONS",
    "ROLES",
    "SOURCES",
    "Cell",
    "GrantIndex",
    "GrantRow",
    "Source",
    "plan_cell",
    "plan_row",
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
_FAIL_OPEN_PERMS: Final = bytes([CODE_OF_PERMISSION[Permission.READ]] * len(ROLES))
_FAIL_OPEN_SOURCES: Final = bytes([CODE_OF_SOURCE[Source.FAIL_OPEN]] * len(ROLES))


_CACHE_LIMIT = 10_000
_role_cache: dict[str, AgentRole | None] = {}
_permission_cache: dict[str, Permission | None] = {}


def _parsed_role(value: str) -> AgentRole | None:
    """The role a stored string names (case-insensitive), None when unknown; cached per string."""
    try:
        return _role_cache[value]
    except KeyError:
        role = _ROLE_BY_NAME.get(dart_lower(value))
        if len(_role_cache) < _CACHE_LIMIT:
            _role_cache[value] = role
        return role


def _parsed_permission(value: str) -> Permission | None:
    try:
        return _permission_cache[value]
    except KeyError:
        permission = _PERMISSION_BY_NAME.get(dart_lower(value))
        if len(_permission_cache) < _CACHE_LIMIT:
            _permission_cache[value] = permission
        return permission


class GrantRow(NamedTuple):
    """One stored grant row, its strings exactly as stored (``rowid``: SQLite's, when known).

    A tuple, so 45,000 of them are made from a cursor's rows in a few milliseconds."""

    agent_role: str
    memory_domain: str
    permission: str
    rowid: int | None = None

    @property
    def role(self) -> AgentRole:
        """The role the product reads (an unknown string counts as ``general``)."""
        return _parsed_role(self.agent_role) or AgentRole.GENERAL

    @property
    def role_known(self) -> bool:
        return _parsed_role(self.agent_role) is not None

    @property
    def effective(self) -> Permission:
        """The permission the product reads (an unknown string reads as ``read``)."""
        return _parsed_permission(self.permission) or Permission.READ

    @property
    def permission_known(self) -> bool:
        return _parsed_permission(self.permission) is not None

    @property
    def canonical(self) -> bool:
        """Stored as the product writes rows: lower-case role and permission names."""
        return self.agent_role in _ROLE_BY_NAME and self.permission in _PERMISSION_BY_NAME

    def describe(self) -> str:
        """``'Engineer' → 'none' on 'codebase' (unknown role, counts as general)`` — the row as
        stored, and how the product reads it."""
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


class GrantIndex:
    """Grant rows grouped by domain, keeping the product's read order.

    Grouping is one pass; a domain's rows are split by parsed role the first time one
    of its cells is asked for, so a workspace of 45,000 rows is indexed in a few tens
    of milliseconds and a cell is then a couple of dictionary lookups.
    """

    def __init__(self, rows: Iterable[Sequence[Any]] = ()) -> None:
        """``rows``: ``GrantRow``s, or plain ``(agent_role, memory_domain, permission, rowid)``
        tuples as a cursor returns them (made into rows when their domain is first looked at)."""
        self._rows: dict[str, list[Any]] = {}
        self._by_role: dict[str, dict[AgentRole, list[GrantRow]]] = {}
        for row in rows:
            try:
                self._rows[row[1]].append(row)
            except KeyError:
                self._rows[row[1]] = [row]

    def domains(self) -> list[str]:
        """Every domain some row names (in the order first read)."""
        return list(self._rows)

    def rows_of(self, domain: str) -> list[GrantRow]:
        """The rows stored for exactly this domain, in read order."""
        return [r if type(r) is GrantRow else GrantRow._make(r) for r in self._rows.get(domain, ())]

    def __len__(self) -> int:
        return sum(len(r) for r in self._rows.values())

    def _roles(self, domain: str) -> dict[AgentRole, list[GrantRow]]:
        found = self._by_role.get(domain)
        if found is None:
            found = {}
            for row in self.rows_of(domain):
                role = _parsed_role(row.agent_role) or AgentRole.GENERAL
                try:
                    found[role].append(row)
                except KeyError:
                    found[role] = [row]
            self._by_role[domain] = found
        return found

    def _matches(self, role: AgentRole, domain: str) -> tuple[list[GrantRow] | None, str]:
        matches = self._roles(domain).get(role) if domain in self._rows else None
        if not matches:
            bare = bare_domain_name(domain) if domain.startswith("repo:") else domain
            if bare != domain and bare in self._rows:
                return self._roles(bare).get(role), bare
        return matches, domain

    @staticmethod
    def _source(matches: list[GrantRow], via: str, domain: str) -> Source:
        first = matches[0]
        if len(matches) > 1:
            return Source.AMBIGUOUS
        if _parsed_role(first.agent_role) is None or _parsed_permission(first.permission) is None:
            return Source.UNKNOWN_VALUE
        return Source.BARE_NAME if via != domain else Source.EXACT

    def cell(self, role: AgentRole, domain: str) -> Cell:
        matches, via = self._matches(role, domain)
        if not matches:
            return Cell(role, domain, Permission.READ, Source.FAIL_OPEN)
        return Cell(role, domain, matches[0].effective, self._source(matches, via, domain), tuple(matches), via)

    def codes(self, domain: str) -> tuple[bytes, bytes]:
        """(permission codes, source codes) of the nine cells of a domain, in ``ROLES`` order."""
        perms, sources = bytearray(_FAIL_OPEN_PERMS), bytearray(_FAIL_OPEN_SOURCES)
        if domain not in self._rows and not domain.startswith("repo:"):
            return bytes(perms), bytes(sources)
        for j, role in enumerate(ROLES):
            matches, via = self._matches(role, domain)
            if matches:
                perms[j] = CODE_OF_PERMISSION[matches[0].effective]
                sources[j] = CODE_OF_SOURCE[self._source(matches, via, domain)]
        return bytes(perms), bytes(sources)

    def replaced(self, domain: str, rows: Sequence[GrantRow]) -> GrantIndex:
        """A copy in which ``domain`` holds ``rows`` (other domains shared, not copied)."""
        other = GrantIndex()
        other._rows = dict(self._rows)
        other._by_role = {d: r for d, r in self._by_role.items() if d != domain}
        other._rows.pop(domain, None)
        if rows:
            other._rows[domain] = list(rows)
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
