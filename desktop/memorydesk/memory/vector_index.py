"""Tools ▸ Index Missing Vectors: embed the facts whose ``embedding`` is NULL, in batches, as a
reviewer's change like any other — with the person's reason, history rows, and undo.

It changes what agents' semantic recall returns (a fact without a vector is invisible to the
vector voice), so it is not a silent repair: each batch is embedded first (slow, no lock
held), then written in one short transaction that sets ``embedding``/``binary_embedding`` and
our sqlite-vec row together with its history row (``FillEmbeddings``). The rows of one run
share a batch mark, so one Edit ▸ Undo clears every vector the run wrote (and its index
rows). Progress is reported after every batch; ``cancelled()`` is asked before each one.
Stopping keeps what was written (and undoes as one change); running again resumes, because
the work list is simply "facts that still have no vector".

``build_vectors`` is the demo's own build of the same (its first run): the desk building its
demo, not a person changing a workspace — no reason asked, no history, nothing to undo.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select

from memorydesk.core.errors import ReadOnlyWorkspace
from memorydesk.embedding.embedder import Embedder, binary_blob, fact_text, get_embedder, to_blob
from memorydesk.memory.actions.embeddings import FillEmbeddings, digest
from memorydesk.memory.history import batches
from memorydesk.memory.history.record import perform
from memorydesk.memory.rows import ROWID
from memorydesk.store import Workspace
from memorydesk.store.retry import with_retry

BATCH = 64


@dataclass
class IndexProgress:
    done: int
    total: int
    cancelled: bool = False
    history_ids: list[int] = field(default_factory=list)


def missing_count(ws: Workspace) -> int:
    facts = ws.layout.facts
    with ws.read() as conn:
        return conn.execute(select(func.count()).select_from(facts).where(facts.c.embedding.is_(None))).scalar()


def index_missing_vectors(ws: Workspace, *, actor: str, reason: str, embedder: Embedder | None = None,
                          batch: int = BATCH, progress: Callable[[IndexProgress], None] | None = None,
                          cancelled: Callable[[], bool] = lambda: False) -> IndexProgress:
    """Fill the missing vectors, one history row per batch written, all marked as one change."""
    mark = batches.new_batch()

    def write(conn: Any, act: FillEmbeddings) -> int | None:
        return perform(ws, conn, act, entity_id=act.ids[0], actor=actor, reason=reason, batch=mark)

    return _fill(ws, embedder, batch, progress, cancelled, write)


def build_vectors(ws: Workspace, *, embedder: Embedder | None = None, batch: int = BATCH,
                  progress: Callable[[IndexProgress], None] | None = None,
                  cancelled: Callable[[], bool] = lambda: False) -> IndexProgress:
    """The demo's own build: its facts' vectors, written as its builder writes them with the facts
    (``demo.builder``: the agent-side service stores a fact's vector with it) — not a person's
    change to a workspace, so no reason, no history row and nothing to undo. The same batches,
    the same checks (a vector an agent wrote since is kept), and resumable the same way."""

    def write(conn: Any, act: FillEmbeddings) -> int | None:
        act.forward(ws, conn)
        return None

    return _fill(ws, embedder, batch, progress, cancelled, write)


def _fill(ws: Workspace, embedder: Embedder | None, batch: int, progress: Callable[[IndexProgress], None] | None,
          cancelled: Callable[[], bool], record: Callable[[Any, FillEmbeddings], int | None]) -> IndexProgress:
    """Embed the facts without a vector a batch at a time (no lock held), then write each batch in
    one short transaction through ``record`` (a history row, or none)."""
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
        written = {r.id: (to_blob(v), binary_blob(v)) for r, v in zip(rows, vectors, strict=True)}

        def write(conn, written=written) -> tuple[int, int | None]:
            facts_now = dict(conn.execute(select(facts.c.id, facts.c.embedding)
                                          .where(facts.c.id.in_(list(written)))).all())
            ids = [fid for fid in written if fid in facts_now and facts_now[fid] is None]  # an agent's own: kept
            if not ids:
                return 0, None
            act = FillEmbeddings(ids, [digest(written[f][0]) for f in ids], blobs=[written[f] for f in ids])
            return len(ids), record(conn, act)

        count, hid = with_retry(ws, write)
        state.done += count
        if hid is not None:
            state.history_ids.append(hid)
        if progress is not None:
            progress(state)
    return state
