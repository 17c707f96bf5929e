"""The ``--repo`` scope every search voice shares (the newer product's repo-scoped domains)."""

from __future__ import annotations

from dataclasses import dataclass

from memorydesk.core.errors import BadInput
from memorydesk.core.product.vocab import REPO_DOMAIN_PREFIX, parse_domain_scope, slugify_repo_scope

__all__ = ["RepoScope", "repo_scope"]


@dataclass(frozen=True, slots=True)
class RepoScope:
    """``--repo SLUG``: workspace-wide domains plus the ``repo:<slug>/…`` domains.

    A domain is repo-scoped when ``parse_domain_scope`` says so (``repo:<slug>/<name>``
    with a non-empty slug and name); malformed ``repo:`` names such as ``repo:scratch``
    are workspace-wide, as the newer product shows them.
    """

    slug: str

    @property
    def prefix(self) -> str:
        return f"{REPO_DOMAIN_PREFIX}{self.slug}/"

    def admits(self, domain: str) -> bool:
        scope = parse_domain_scope(domain)
        return not scope.is_repo_scoped or scope.repo_slug == self.slug

    def sql(self, alias: str) -> tuple[str, tuple[object, ...]]:
        """An ``AND (…)`` clause over ``<alias>.domain`` equivalent to :meth:`admits`."""
        d = f"{alias}.domain"
        rest = f"substr({d}, 6)"
        clause = (
            f" AND (substr({d}, 1, 5) <> 'repo:'"
            f" OR instr({rest}, '/') <= 1"
            f" OR instr({rest}, '/') = length({rest})"
            f" OR (substr({d}, 1, ?) = ? AND length({d}) > ?))"
        )
        n = len(self.prefix)
        return clause, (n, self.prefix, n)


def repo_scope(repo: str | None) -> RepoScope | None:
    """The scope for a ``--repo`` argument (``owner/name`` or an already slugified name)."""
    if repo is None:
        return None
    slug = slugify_repo_scope(repo)
    if not slug:
        raise BadInput(f"--repo {repo!r}: not a repository name (nothing is left after slugifying it)")
    return RepoScope(slug)


# --- keyword search --------------------------------------------------------------------
