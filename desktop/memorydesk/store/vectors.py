"""Writes to our sqlite-vec index (``memdesk_vectors``), a derived copy of the fact
table's ``embedding`` column kept in step with every write the desk makes."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection

from memorydesk.store.ours import VECTOR_TABLE


def put_vector(conn: Connection, fact_id: str, blob: bytes) -> None:
    """Index (or re-index) one fact's embedding."""
    conn.exec_driver_sql(f"DELETE FROM {VECTOR_TABLE} WHERE fact_id = ?", (fact_id,))
    conn.exec_driver_sql(f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) VALUES (?, ?)", (fact_id, blob))


def add_vector(conn: Connection, fact_id: str, blob: bytes) -> None:
    """Index a new fact's embedding (the fact has no entry yet)."""
    conn.exec_driver_sql(f"INSERT INTO {VECTOR_TABLE}(fact_id, embedding) VALUES (?, ?)", (fact_id, blob))


def drop_vectors(conn: Connection, ids: Iterable[str]) -> None:
    for fid in ids:
        conn.exec_driver_sql(f"DELETE FROM {VECTOR_TABLE} WHERE fact_id = ?", (fid,))
