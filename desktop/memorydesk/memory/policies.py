"""Policies, domains and access grants (docs/product-format.md, "The product's rules").

Grant resolution for (role, domain) is ``core.product.grants`` over the rows as the product
reads them (``memory.grants``): the first parsed row of the domain, else, for a
repo-scoped domain, of its bare name; else ``read`` (reads fail open). Writing a
policy needs ``write``. A newly created domain seeds ``write`` for every role.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, and_, select

from memorydesk.core.errors import InsufficientMemoryPermission
from memorydesk.core.product.grants import GrantIndex
from memorydesk.core.product.vocab import (
    AgentRole,
    Permission,
    bare_domain_name,
    parse_agent_role,
    parse_domain_scope,
    slugify_domain,
)
from memorydesk.memory.grants import read_raw
from memorydesk.memory.rows import json_list, new_id, now_s
from memorydesk.store import Workspace


def domain_slug(domain: str) -> str:
    """How an agent's domain text is stored: slugified, keeping a ``repo:<slug>/<name>`` scope."""
    scope = parse_domain_scope(domain.strip())
    if scope.is_repo_scoped:
        return f"repo:{scope.repo_slug}/{slugify_domain(scope.name) or scope.name}"
    return slugify_domain(domain) or domain.strip()


def resolve_permission(ws: Workspace, conn: Connection, role: str | None, domain: str) -> Permission:
    """The effective permission of ``role`` on ``domain``, as the product resolves it: every
    grant row read with the product's own query, the first parsed row of (role, domain)
    deciding — unknown role strings count as ``general`` rows — then the bare name's
    rows for a repo-scoped domain, else ``read`` (``core.product.grants``). An unknown or missing
    ``role`` acts as ``general``, as the product's tools default it."""
    acting = parse_agent_role(role) or AgentRole.GENERAL
    names = {domain, bare_domain_name(domain)}
    index = GrantIndex(r for r in read_raw(ws, conn) if r[1] in names)
    return index.cell(acting, domain).permission


def ensure_domain(ws: Workspace, conn: Connection, name: str, created_by_role: str | None,
                  now: int | None = None) -> bool:
    """Create the domain row if it is missing, seeding ``write`` for all nine roles. True if created."""
    domains, grants = ws.layout.domains, ws.layout.grants
    exists = conn.execute(select(domains.c.id).where(and_(
        domains.c.workspace_id == ws.workspace_id, domains.c.name == name))).first()
    if exists:
        return False
    now = now_s() if now is None else now
    role = (parse_agent_role(created_by_role) or AgentRole.GENERAL).value
    conn.execute(domains.insert().values(id=new_id(), workspace_id=ws.workspace_id, name=name, label=name,
                                         description=None, created_at=now, created_by_role=role))
    for each in AgentRole:
        conn.execute(grants.insert().prefix_with("OR IGNORE").values(
            workspace_id=ws.workspace_id, agent_role=each.value, memory_domain=name, permission="write"))
    return True


def _role_name(role: str | None) -> str | None:
    parsed = parse_agent_role(role)
    return parsed.value if parsed else None


def propose_policy(ws: Workspace, conn: Connection, *, role: str, domain: str, rule: str,
                   source_fact_ids: Sequence[str] = (), now: int | None = None) -> str:
    """Insert an active policy; the author's role is recorded as its (advisory) required role."""
    now = now_s() if now is None else now
    ensure_domain(ws, conn, domain, role, now)
    if resolve_permission(ws, conn, role, domain) is not Permission.WRITE:
        raise InsufficientMemoryPermission(f"role {role!r} has no write grant on domain {domain!r}")
    policy_id = new_id()
    conn.execute(ws.layout.policies.insert().values(
        id=policy_id, workspace_id=ws.workspace_id, domain=domain, rule=rule,
        source_fact_ids=json_list(source_fact_ids), required_role=_role_name(role), active=1,
        created_at=now, updated_at=now))
    return policy_id


def supersede_policy(ws: Workspace, conn: Connection, old_id: str, *, role: str, rule: str,
                     domain: str | None = None, now: int | None = None) -> str:
    """Write the replacement policy, then retire the old one (``active = 0``)."""
    policies = ws.layout.policies
    old = conn.execute(select(policies).where(policies.c.id == old_id)).first()
    if old is None:
        raise KeyError(old_id)
    new_policy = propose_policy(ws, conn, role=role, domain=domain or old.domain, rule=rule,
                                source_fact_ids=(), now=now)
    conn.execute(policies.update().where(policies.c.id == old_id).values(active=0))
    return new_policy
