"""Index missing vectors: embed facts whose ``embedding`` is NULL, in batches.

Each batch is embedded first (slow, no lock held), then written in one short
transaction that sets ``embedding``/``binary_embedding`` and our sqlite-vec row
together. Progress is reported after every batch; ``cancelled()`` is asked before
each one. Stopping loses nothing, and running again resumes where it stopped,
because the work list is simply "facts that still have no vector".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import func, select

from memorydesk.core.errors import ReadOnlyWorkspace
from memorydesk.embedding.embedder import Embedder, binary_blob, fact_text, get_embedder, to_blob
from memorydesk.memory.rows import ROWID
from memorydesk.store import Workspace
from memorydesk.store.retry import with_retry
from memorydesk.store.vectors import put_vector

BATCH = 64


@dataclass
class IndexProgress:
    done: int
    total: int
    cancelled: bool = False


def missing_count(ws: Workspace) -> int:
    facts = ws.layout.facts
    with ws.read() as conn:
        return conn.execute(select(func.count()).select_from(facts).where(facts.c.embedding.is_(None))).scalar()


def index_missing_vectors(ws: Workspace, *, embedder: Embedder | None = None, batch: int = BATCH,
                          progress: Callable[[IndexProgress], None] | None = None,
                          cancelled: Callable[[], bool] = lambda: False) -> IndexProgress:
    if ws.read_only:
        raise ReadOnlyWorkspace(f"{ws.path.name} is open read-only: vectors are searched in memory, not stored")
    embedder = embedder or get_embedder()
    facts = ws.layout.facts
    state = IndexProgress(0, missing_count(ws))
    last_rowid = -1
    while True:
        if cancelled():
            state.cancelled = True
            break
        with ws.read() as conn:
            rows = conn.execute(select(ROWID.label("rid"), facts.c.id, facts.c.topic, facts.c.content)
                                .where(facts.c.embedding.is_(None), ROWID > last_rowid)
                                .order_by(ROWID).limit(batch)).all()
        if not rows:
            break
        last_rowid = rows[-1].rid
        vectors = embedder.embed([fact_text(r.topic, r.content) for r in rows])

        def write(conn, rows=rows, vectors=vectors) -> int:
            written = 0
            for row, vec in zip(rows, vectors, strict=True):
                blob = to_blob(vec)
                done = conn.execute(facts.update().where(facts.c.id == row.id, facts.c.embedding.is_(None))
                                    .values(embedding=blob, binary_embedding=binary_blob(vec)))
                if done.rowcount and ws.has_vectors:  # skip facts an agent embedded meanwhile
                    put_vector(conn, row.id, blob)
                written += done.rowcount
            return written

        state.done += with_retry(ws, write)
        if progress is not None:
            progress(state)
    return state
