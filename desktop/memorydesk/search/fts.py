"""The product's keyword query (docs/product-format.md, "The full-text index") and the row a keyword hit carries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import exc as sa_exc

__all__ = ["KEYWORD_LIMIT", "ROW_COLUMNS", "KeywordRow", "as_float", "is_fts_query_error", "keyword_row",
           "product_sql"]

#: The product's ``LIMIT`` on keyword search.
KEYWORD_LIMIT = 20


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


ROW_COLUMNS = "f.id, f.domain, f.topic, f.content, f.confidence, f.memory_type, f.created_at"


def keyword_row(r: Sequence[Any], bm25: float) -> KeywordRow:
    return KeywordRow(
        id=r[0], domain=r[1] if r[1] is not None else "", topic=r[2] if r[2] is not None else "",
        content=r[3] if r[3] is not None else "", confidence=as_float(r[4]), memory_type=r[5],
        created_at=r[6], bm25=float(bm25),
    )


def is_fts_query_error(exc: sa_exc.OperationalError) -> bool:
    text = str(exc.orig) if exc.orig is not None else str(exc)
    return "fts5" in text or "MATCH" in text


def product_sql(fts: str, facts: str, scope_sql: str) -> str:
    """The product's query: parameters MATCH, workspace id, scope parameters, limit."""
    return (
        f"SELECT {ROW_COLUMNS}, {fts}.rank "
        f"FROM {fts} JOIN {facts} f ON f.rowid = {fts}.rowid "
        f"WHERE {fts} MATCH ? AND f.workspace_id = ? AND f.superseded_by IS NULL{scope_sql} "
        f"ORDER BY {fts}.rank LIMIT ?"
    )


def as_float(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
