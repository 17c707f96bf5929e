"""The product's value vocabularies: memory types, veracities, roles, permissions, domains.

Parsing follows the product: names compare case-insensitively and are not trimmed
(`" fact"` is unknown); unknown strings, ``''`` and ``None`` fall back to a default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Final, Mapping, NamedTuple, TypeVar

from memorydesk.core.product.text import JS_WHITESPACE, dart_lower, dart_trim

__all__ = [
    "AgentRole",
    "CONSOLIDATABLE_TYPES",
    "DomainScope",
    "MemoryType",
    "Permission",
    "REPO_DOMAIN_PREFIX",
    "VERACITY_WEIGHTS",
    "Veracity",
    "WEIBULL_PARAMS",
    "WeibullParams",
    "bare_domain_name",
    "domain_label",
    "grant_role",
    "is_consolidatable",
    "parse_agent_role",
    "parse_domain_scope",
    "parse_memory_type",
    "parse_permission",
    "parse_veracity",
    "slugify_domain",
    "slugify_repo_scope",
    "veracity_weight",
]


class MemoryType(StrEnum):
    """The fifteen memory types, valued by their stored (lower-case) wire name."""

    FACT = "fact"
    PREFERENCE = "preference"
    DECISION = "decision"
    COMMITMENT = "commitment"
    GOAL = "goal"
    EVENT = "event"
    INSTRUCTION = "instruction"
    RELATIONSHIP = "relationship"
    CONTEXT = "context"
    LEARNING = "learning"
    OBSERVATION = "observation"
    ERROR = "error"
    ARTIFACT = "artifact"
    REQUEST = "request"
    UNKNOWN = "unknown"


class WeibullParams(NamedTuple):
    """Shape ``k`` and scale ``eta`` (hours) of a type's decay curve."""

    k: float
    eta_hours: float


WEIBULL_PARAMS: Final[Mapping[MemoryType, WeibullParams]] = {
    MemoryType.FACT: WeibullParams(0.8, 720.0),
    MemoryType.PREFERENCE: WeibullParams(0.4, 4380.0),
    MemoryType.DECISION: WeibullParams(1.0, 336.0),
    MemoryType.COMMITMENT: WeibullParams(1.0, 240.0),
    MemoryType.GOAL: WeibullParams(0.9, 720.0),
    MemoryType.EVENT: WeibullParams(1.2, 168.0),
    MemoryType.INSTRUCTION: WeibullParams(0.9, 480.0),
    MemoryType.RELATIONSHIP: WeibullParams(0.35, 8760.0),
    MemoryType.CONTEXT: WeibullParams(0.85, 360.0),
    MemoryType.LEARNING: WeibullParams(0.7, 1440.0),
    MemoryType.OBSERVATION: WeibullParams(0.9, 480.0),
    MemoryType.ERROR: WeibullParams(1.1, 336.0),
    MemoryType.ARTIFACT: WeibullParams(0.75, 2160.0),
    MemoryType.REQUEST: WeibullParams(1.5, 72.0),
    MemoryType.UNKNOWN: WeibullParams(1.0, 168.0),
}

CONSOLIDATABLE_TYPES: Final[frozenset[MemoryType]] = frozenset(
    {
        MemoryType.FACT,
        MemoryType.PREFERENCE,
        MemoryType.DECISION,
        MemoryType.GOAL,
        MemoryType.LEARNING,
        MemoryType.OBSERVATION,
        MemoryType.RELATIONSHIP,
        MemoryType.INSTRUCTION,
    }
)


_E = TypeVar("_E", bound=StrEnum)


def _lookup(enum: type[_E], value: str | None, default: _E) -> _E:
    if value is None:
        return default
    found = _member(enum, value)
    return default if found is None else found


@lru_cache(maxsize=4096)
def _member(enum: type[_E], value: str) -> _E | None:
    """The member whose value is ``value`` lower-cased the product's way (asked for every
    candidate of every search: worked out once per stored spelling)."""
    lowered = dart_lower(value)
    for member in enum:
        if member.value == lowered:
            return member
    return None


def parse_memory_type(value: str | None) -> MemoryType:
    """Stored ``memory_type`` → type; unknown, ``''`` or ``None`` read as ``fact``."""
    return _lookup(MemoryType, value, MemoryType.FACT)


def is_consolidatable(memory_type: str | None) -> bool:
    """Whether a working item of this type becomes a fact on consolidation."""
    return parse_memory_type(memory_type) in CONSOLIDATABLE_TYPES


class Veracity(StrEnum):
    """Provenance of a memory, valued by its wire name."""

    STATED = "stated"
    INFERRED = "inferred"
    TOOL = "tool"
    IMPORTED = "imported"
    UNKNOWN = "unknown"


VERACITY_WEIGHTS: Final[Mapping[Veracity, float]] = {
    Veracity.STATED: 1.0,
    Veracity.INFERRED: 0.7,
    Veracity.TOOL: 0.5,
    Veracity.IMPORTED: 0.6,
    Veracity.UNKNOWN: 0.8,
}


def parse_veracity(value: str | None) -> Veracity:
    """Stored ``veracity`` → value; unknown, ``''`` or ``None`` read as ``stated``."""
    return _lookup(Veracity, value, Veracity.STATED)


def veracity_weight(value: str | None) -> float:
    """The weight of a stored veracity string (after the parse fallback)."""
    return VERACITY_WEIGHTS[parse_veracity(value)]


class AgentRole(StrEnum):
    """The product's nine agent roles, in the product's declaration order."""

    CEO = "ceo"
    CODER = "coder"
    REVIEWER = "reviewer"
    QA = "qa"
    DESIGNER = "designer"
    SECURITY = "security"
    DEVOPS = "devops"
    PM = "pm"
    GENERAL = "general"


def parse_agent_role(value: str | None) -> AgentRole | None:
    """Case-insensitive role parse; unknown → ``None`` (as for ``authored_by_role``)."""
    if value is None:
        return None
    lowered = dart_lower(value)
    for role in AgentRole:
        if role.value == lowered:
            return role
    return None


def grant_role(value: str | None) -> AgentRole:
    """A grant row's ``agent_role``: unknown reads as ``general``."""
    return parse_agent_role(value) or AgentRole.GENERAL


class Permission(StrEnum):
    """Memory access levels."""

    NONE = "none"
    READ = "read"
    WRITE = "write"


def parse_permission(value: str | None) -> Permission:
    """Case-insensitive; unknown (or ``None``) reads as ``read``, the fail-open default."""
    return _lookup(Permission, value, Permission.READ)


# --- domains ---------------------------------------------------------------------------

REPO_DOMAIN_PREFIX: Final = "repo:"

_NOT_SLUG_CHAR = re.compile(rf"[^a-z0-9{JS_WHITESPACE}-]")
_SPACE_RUN = re.compile(rf"[{JS_WHITESPACE}_]+")
_DASH_RUN = re.compile(r"-+")
_PATH_SEPARATORS = re.compile(r"[/\\]+")


def slugify_domain(text: str) -> str:
    """The product's domain slug rule.

    Lower-case, trim, delete characters outside ``[a-z0-9]``, whitespace and ``-``,
    turn whitespace runs into ``-``, collapse dashes, strip one dash at each end.
    Note: the deletion runs first, so ``_`` is deleted, not turned into ``-``
    (``my_domain`` → ``mydomain``), whatever CC_SCHEMA §7.5 suggests.
    """
    slug = dart_trim(dart_lower(text))
    slug = _NOT_SLUG_CHAR.sub("", slug)
    slug = _SPACE_RUN.sub("-", slug)
    slug = _DASH_RUN.sub("-", slug)
    if slug.startswith("-"):
        slug = slug[1:]
    if slug.endswith("-"):
        slug = slug[:-1]
    return slug


def slugify_repo_scope(text: str) -> str:
    """Repo slug for a scoped domain: ``/`` and ``\\`` runs become ``-`` before slugifying."""
    return slugify_domain(_PATH_SEPARATORS.sub("-", text))


@dataclass(frozen=True, slots=True)
class DomainScope:
    """A domain name split into its optional repo scope and its bare name."""

    name: str
    repo_slug: str | None = None

    @property
    def is_repo_scoped(self) -> bool:
        """True for ``repo:<slug>/<name>`` domains."""
        return self.repo_slug is not None

    @property
    def slug(self) -> str:
        """The stored form."""
        if self.repo_slug is None:
            return self.name
        return f"{REPO_DOMAIN_PREFIX}{self.repo_slug}/{self.name}"


def parse_domain_scope(domain: str) -> DomainScope:
    """Split ``repo:<slug>/<name>``; anything else is a workspace-wide name, verbatim.

    A ``repo:`` name without ``/``, with an empty slug or an empty name stays whole
    (``repo:orphan`` is a workspace-wide domain literally called ``repo:orphan``).
    The split is at the first ``/``: the name may itself contain ``/``.
    """
    if not domain.startswith(REPO_DOMAIN_PREFIX):
        return DomainScope(domain)
    rest = domain[len(REPO_DOMAIN_PREFIX) :]
    cut = rest.find("/")
    if cut <= 0 or cut == len(rest) - 1:
        return DomainScope(domain)
    return DomainScope(rest[cut + 1 :], rest[:cut])


def bare_domain_name(domain: str) -> str:
    """The name grants are keyed on: ``repo:<slug>/x`` → ``x``, anything else unchanged."""
    return parse_domain_scope(domain).name


def domain_label(domain: str) -> str:
    """How the newer product shows a domain to an agent: ``<slug> · <name>`` when scoped."""
    scope = parse_domain_scope(domain)
    if scope.repo_slug is None:
        return scope.name
    return f"{scope.repo_slug} · {scope.name}"
