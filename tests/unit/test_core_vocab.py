"""Vocabularies: memory types, veracities, roles, permissions, domains (CC_SCHEMA §7)."""

from __future__ import annotations

import pytest

from memorydesk.core.product.vocab import (
    CONSOLIDATABLE_TYPES,
    VERACITY_WEIGHTS,
    WEIBULL_PARAMS,
    AgentRole,
    DomainScope,
    MemoryType,
    Permission,
    Veracity,
    bare_domain_name,
    domain_label,
    grant_role,
    is_consolidatable,
    parse_agent_role,
    parse_domain_scope,
    parse_memory_type,
    parse_permission,
    parse_veracity,
    slugify_domain,
    slugify_repo_scope,
    veracity_weight,
)


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ("fact", MemoryType.FACT),
        ("PREFERENCE", MemoryType.PREFERENCE),
        ("Relationship", MemoryType.RELATIONSHIP),
        ("request", MemoryType.REQUEST),
        ("unknown", MemoryType.UNKNOWN),  # a real type, not the fallback
        ("", MemoryType.FACT),
        ("memo", MemoryType.FACT),
        (" fact", MemoryType.FACT),  # not trimmed: unknown → fact
        (" event ", MemoryType.FACT),
        (None, MemoryType.FACT),
    ],
)
def test_memory_type_parsing(stored: str | None, expected: MemoryType) -> None:
    assert parse_memory_type(stored) is expected


def test_weibull_table_matches_design() -> None:
    table = {t.value: (p.k, p.eta_hours) for t, p in WEIBULL_PARAMS.items()}
    assert table == {
        "fact": (0.8, 720), "event": (1.2, 168), "observation": (0.9, 480),
        "preference": (0.4, 4380), "instruction": (0.9, 480), "error": (1.1, 336),
        "decision": (1.0, 336), "relationship": (0.35, 8760), "artifact": (0.75, 2160),
        "commitment": (1.0, 240), "context": (0.85, 360), "request": (1.5, 72),
        "goal": (0.9, 720), "learning": (0.7, 1440), "unknown": (1.0, 168),
    }  # fmt: skip


def test_consolidatable_types() -> None:
    names = {t.value for t in CONSOLIDATABLE_TYPES}
    assert names == {
        "fact", "preference", "decision", "goal",
        "learning", "observation", "relationship", "instruction",
    }  # fmt: skip
    assert is_consolidatable("Goal")
    assert not is_consolidatable("event")
    assert not is_consolidatable("commitment")
    assert is_consolidatable("nonsense")  # reads as fact


@pytest.mark.parametrize(
    ("stored", "weight"),
    [
        ("stated", 1.0),
        ("INFERRED", 0.7),
        ("Tool", 0.5),
        ("imported", 0.6),
        ("unknown", 0.8),  # the real 'unknown' veracity
        ("", 1.0),  # unknown strings read as stated
        ("guess", 1.0),
        (None, 1.0),
    ],
)
def test_veracity_weights(stored: str | None, weight: float) -> None:
    assert veracity_weight(stored) == weight


def test_veracity_parsing_default_is_stated() -> None:
    assert parse_veracity("bogus") is Veracity.STATED
    assert parse_veracity("UnKnOwN") is Veracity.UNKNOWN
    assert len(VERACITY_WEIGHTS) == 5


def test_nine_roles_case_insensitive() -> None:
    assert [r.value for r in AgentRole] == [
        "ceo", "coder", "reviewer", "qa", "designer", "security", "devops", "pm", "general",
    ]  # fmt: skip
    assert parse_agent_role("DevOps") is AgentRole.DEVOPS
    assert parse_agent_role("QA") is AgentRole.QA
    assert parse_agent_role("intern") is None
    assert parse_agent_role("") is None
    assert parse_agent_role(None) is None


def test_grant_row_role_falls_back_to_general() -> None:
    assert grant_role("intern") is AgentRole.GENERAL
    assert grant_role("Reviewer") is AgentRole.REVIEWER


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ("none", Permission.NONE),
        ("WRITE", Permission.WRITE),
        ("Read", Permission.READ),
        ("admin", Permission.READ),
        ("", Permission.READ),
        (None, Permission.READ),
    ],
)
def test_permission_parsing(stored: str | None, expected: Permission) -> None:
    assert parse_permission(stored) is expected


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Release Notes", "release-notes"),
        ("  Ticket   Outcomes  ", "ticket-outcomes"),
        ("PR--Reviews", "pr-reviews"),
        ("-edge-", "edge"),
        ("my_domain", "mydomain"),  # '_' is deleted before whitespace becomes '-'
        ("Löschfrist Regeln", "lschfrist-regeln"),
        ("repo:acme/api", "repoacmeapi"),
        ("!!!", ""),
        ("a \t\n b", "a-b"),
    ],
)
def test_slugify_domain(text: str, slug: str) -> None:
    assert slugify_domain(text) == slug


def test_slugify_repo_scope_keeps_path_separators_as_dashes() -> None:
    assert slugify_repo_scope("Acme/My API") == "acme-my-api"
    assert slugify_repo_scope("acme\\\\api") == "acme-api"


@pytest.mark.parametrize(
    ("domain", "scope"),
    [
        ("architecture", DomainScope("architecture")),
        ("repo:acme-api/architecture", DomainScope("architecture", "acme-api")),
        ("repo:acme-api/docs/adr", DomainScope("docs/adr", "acme-api")),
        ("repo:orphan", DomainScope("repo:orphan")),  # no '/': workspace-wide, verbatim
        ("repo:/x", DomainScope("repo:/x")),  # empty slug
        ("repo:acme/", DomainScope("repo:acme/")),  # empty name
        ("Repo:acme/x", DomainScope("Repo:acme/x")),  # the prefix is case-sensitive
    ],
)
def test_parse_domain_scope(domain: str, scope: DomainScope) -> None:
    parsed = parse_domain_scope(domain)
    assert parsed == scope
    assert parsed.slug == domain


def test_bare_domain_name_and_label() -> None:
    assert bare_domain_name("repo:acme-api/architecture") == "architecture"
    assert bare_domain_name("repo:orphan") == "repo:orphan"
    assert bare_domain_name("Release Notes") == "Release Notes"
    assert domain_label("repo:acme-api/architecture") == "acme-api · architecture"
    assert domain_label("decisions") == "decisions"
    assert parse_domain_scope("repo:a/b").is_repo_scoped
    assert not parse_domain_scope("b").is_repo_scoped
