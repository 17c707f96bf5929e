"""Keyword search as an agent's ``search_memory`` runs it (CC_SCHEMA.md §5, DESIGN.md §3).

The query goes through the product's builder (``core.fts_query``): lower-case, every
character outside ``[a-z0-9]`` and whitespace becomes a space, tokens shorter than two
characters and stopwords go, the rest are OR-ed as prefix terms. The MATCH is scoped
to the workspace at the index level, and the SQL joins the index to the fact table on
rowid, keeps active facts of the workspace and orders by FTS5 ``rank`` (bm25).

Nothing in a query can reach FTS5 as syntax: the builder leaves only ``[a-z0-9]``
tokens. A query without terms (Hebrew, only stopwords, only punctuation) finds
nothing, as in the product.

Also here: the repo scope shared by all voices, and keyword reachability (which
active facts no keyword query of the product can ever return).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy import Connection, and_, select
from sqlalchemy import exc as sa_exc

from memorydesk.core.errors import BadInput
from memorydesk.core.fts_query import keyword_terms, scoped_match
from memorydesk.core.vocab import REPO_DOMAIN_PREFIX, parse_domain_scope, slugify_repo_scope
from memorydesk.store import Workspace

__all__ = [
    "KEYWORD_LIMIT",
    "KeywordRow",
    "RepoScope",
    "is_keyword_reachable",
    "keyword_rows",
    "repo_scope",
    "unreachable_fact_ids",
]

#: The product's ``LIMIT`` on keyword search.
KEYWORD_LIMIT = 20


# --- repo scope ------------------------------------------------------------------------


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


@dataclass(frozen=True, slots=True)
class KeywordRow:
    """One keyword hit: the fact's fields that search results show, and its bm25 rank."""

    id: str
    domain: str
    topic: str
    content: str
    confidence: float
    memory_type: str | None
    created_at: int | None
    bm25: float


def _is_fts_query_error(exc: sa_exc.OperationalError) -> bool:
    text = str(exc.orig) if exc.orig is not None else str(exc)
    return "fts5" in text or "MATCH" in text


def keyword_rows(
    conn: Connection,
    ws: Workspace,
    query: str,
    *,
    limit: int = KEYWORD_LIMIT,
    scope: RepoScope | None = None,
    notes: list[str] | None = None,
) -> tuple[str | None, list[KeywordRow]]:
    """The MATCH expression built from ``query`` and the active facts it finds, best first.

    ``(None, [])`` when the query has no terms. An error the full-text index reports
    about the expression (it cannot happen with the builder's output, but a damaged
    index can still refuse) gives no hits and a sentence in ``notes``.
    """
    match = scoped_match(query, ws.workspace_id)
    if match is None or limit <= 0:
        return match, []
    fts, facts = ws.layout.fts, ws.layout.facts.name
    scope_sql, scope_params = scope.sql("f") if scope is not None else ("", ())
    sql = (
        f"SELECT f.id, f.domain, f.topic, f.content, f.confidence, f.memory_type, f.created_at, {fts}.rank "
        f"FROM {fts} JOIN {facts} f ON f.rowid = {fts}.rowid "
        f"WHERE {fts} MATCH ? AND f.workspace_id = ? AND f.superseded_by IS NULL{scope_sql} "
        f"ORDER BY {fts}.rank LIMIT ?"
    )
    try:
        rows = conn.exec_driver_sql(sql, (match, ws.workspace_id, *scope_params, int(limit))).fetchall()
    except sa_exc.OperationalError as exc:
        if not _is_fts_query_error(exc):
            raise
        if notes is not None:
            notes.append(f"the full-text index refused the query: {exc.orig}")
        return match, []
    return match, [
        KeywordRow(
            id=r[0], domain=r[1] if r[1] is not None else "", topic=r[2] if r[2] is not None else "",
            content=r[3] if r[3] is not None else "", confidence=_as_float(r[4]), memory_type=r[5],
            created_at=r[6], bm25=float(r[7]),
        )
        for r in rows
    ]


def _as_float(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0


# --- reachability ----------------------------------------------------------------------

def is_keyword_reachable(topic: str | None, content: str | None) -> bool:
    """Whether some keyword query of the product can match this fact at all.

    The product's query keeps only ``[a-z0-9]`` tokens of two or more characters that
    are not stopwords; a fact whose topic and content hold no such token (pure Hebrew,
    Japanese, emoji, or only stopwords like "is it the") is invisible to the agent's
    keyword path and to the dispatch preamble.
    """
    return bool(keyword_terms(f"{topic or ''} {content or ''}"))


def _active_texts(ws: Workspace, conn: Connection) -> Iterator[tuple[str, str, str]]:
    facts = ws.layout.facts
    stmt = select(facts.c.id, facts.c.topic, facts.c.content).where(
        and_(facts.c.workspace_id == ws.workspace_id, facts.c.superseded_by.is_(None))
    )
    yield from conn.execute(stmt.execution_options(yield_per=2000))  # type: ignore[misc]


def unreachable_fact_ids(ws: Workspace) -> list[str]:
    """Ids of the workspace's active facts that no keyword search can return."""
    with ws.read() as conn:
        return [fid for fid, topic, content in _active_texts(ws, conn) if not is_keyword_reachable(topic, content)]
