"""Keyword search as an agent's ``search_memory`` runs it (docs/product-format.md, "The full-text index" and
"The product's rules").

The query goes through the product's builder (``core.product.fts_query``): lower-case, every
character outside ``[a-z0-9]`` and whitespace becomes a space, tokens shorter than two
characters and stopwords go, the rest are OR-ed as prefix terms. The MATCH is scoped
to the workspace at the index level, and the SQL joins the index to the fact table on
rowid, keeps active facts of the workspace and orders by FTS5 ``rank`` (bm25).

Nothing in a query can reach FTS5 as syntax: the builder leaves only ``[a-z0-9]``
tokens. A query without terms (Hebrew, only stopwords, only punctuation) finds
nothing, as in the product.

The product's SQL (``fts.product_sql``) is exact by definition and slow on large files;
``bm25`` returns the same rows with the same scores, bit for bit, from per-term parts
it keeps per file version, and falls back to the product's SQL whenever it cannot vouch
for an answer. At one file version the product's SQL runs once per MATCH and limit: the
modes of one query and a preamble for a task with the same terms share its rows
(``search.cache``; the forget check asks them all).

Also here: keyword reachability (which active facts no keyword query of the product
can ever return).
"""

from __future__ import annotations

from collections.abc import Iterator

import sqlean
from sqlalchemy import Connection, and_, select
from sqlalchemy import exc as sa_exc

from memorydesk.core.product.fts_query import is_keyword_reachable, keyword_terms, scoped_match
from memorydesk.search import bm25, bm25_check
from memorydesk.search.cache import cached
from memorydesk.search.copies import follow
from memorydesk.search.copies.bm25_terms import Unsure, shape_of, term_parts
from memorydesk.search.fts import KEYWORD_LIMIT, KeywordRow, is_fts_query_error, keyword_row, product_sql
from memorydesk.search.scope import RepoScope
from memorydesk.store import Workspace

__all__ = ["KEYWORD_LIMIT", "KeywordRow", "is_keyword_reachable", "keyword_rows", "unreachable_fact_ids"]


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
    fast = fast_keyword(conn, ws, query, match, int(limit), scope)
    if fast is not None:
        return match, fast
    fts, facts = ws.layout.fts, ws.layout.facts.name
    scope_sql, scope_params = scope.sql("f") if scope is not None else ("", ())

    def product_rows() -> tuple[KeywordRow, ...]:
        rows = conn.exec_driver_sql(
            product_sql(fts, facts, scope_sql), (match, ws.workspace_id, *scope_params, int(limit))
        ).fetchall()
        return tuple(keyword_row(r, r[7]) for r in rows)

    try:  # the same MATCH at the same file version gives the same rows: the product's SQL runs once
        rows = cached(ws, conn, ("keyword-rows", match, int(limit), scope.slug if scope else None), product_rows)
    except sa_exc.OperationalError as exc:
        if not is_fts_query_error(exc):
            raise
        if notes is not None:
            notes.append(f"the full-text index refused the query: {exc.orig}")
        return match, []
    return match, list(rows or ())


def fast_keyword(conn: Connection, ws: Workspace, query: str, match: str, limit: int,
                 scope: RepoScope | None) -> list[KeywordRow] | None:
    """``keyword_rows``' answer the fast way (``bm25``), or None when the product's SQL must
    give it: no copy of the index yet, or the fast path failed its self-check (``bm25_check``)."""
    raw = conn.connection.driver_connection
    fts, facts = ws.layout.fts, ws.layout.facts.name
    with follow.using(ws, conn) as state:
        if state is None or state.keyword is None or bm25._workspace_phrase(match) != state.keyword.phrase:
            return None
        if not bm25_check.passed():
            return None
        try:
            shape = shape_of(state.keyword)
            if shape is None:
                return None
            postings = [term_parts(*state.postings(term), shape) for term in keyword_terms(query)]
            return bm25._fast_rows(raw, fts, facts, ws.workspace_id, postings, limit, scope, shape,
                                   state.rows.active)
        except (Unsure, sqlean.Error):
            return None


# --- reachability (``core.product.fts_query.is_keyword_reachable``) ----------------------------

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
