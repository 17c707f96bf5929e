"""Small helpers every service module shares: ids, clocks, JSON lists, fact rows."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection, Row, literal_column, select

from memorydesk.store import vectors as vector_store
from memorydesk.store.layout import Layout

ROWID = literal_column("rowid")  # insertion order, the tie-breaker the product gets for free


def now_s() -> int:
    """The product's clock: whole unix seconds."""
    return int(time.time())


def new_id() -> str:
    return str(uuid.uuid4())


def json_list(values: Iterable[str]) -> str:
    """Compact JSON like Dart's ``jsonEncode`` (no spaces, non-ASCII unescaped)."""
    return json.dumps(list(values), ensure_ascii=False, separators=(",", ":"))


def read_json_list(value: str | None) -> list[str]:
    """The product's reading: invalid or non-list JSON reads as an empty list."""
    try:
        parsed = json.loads(value) if value else []
    except (TypeError, ValueError):
        return []
    return [x for x in parsed if isinstance(x, str)] if isinstance(parsed, list) else []


def fact_row(conn: Connection, layout: Layout, fact_id: str) -> Row | None:
    facts = layout.facts
    return conn.execute(select(facts).where(facts.c.id == fact_id)).first()


def insert_fact(conn: Connection, layout: Layout, values: Mapping[str, Any], *, vectors: bool) -> None:
    """Insert a fact row (FTS follows by trigger) and keep our vector index in step."""
    conn.execute(layout.facts.insert(), dict(values))
    if vectors and values.get("embedding") is not None:
        vector_store.add_vector(conn, values["id"], values["embedding"])
