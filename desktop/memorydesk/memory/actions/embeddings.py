"""Vectors the desk writes for facts that had none (Tools ▸ Index Missing Vectors,
``memory.vector_index``), as a typed reviewer action: what it stores, how it is undone."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import StaleEdit
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.store import Workspace
from memorydesk.store.vectors import VECTOR_TABLE, put_vector


def digest(blob: bytes) -> str:
    """A short mark of a vector as written (undo clears only a vector still as written)."""
    return hashlib.sha256(bytes(blob)).hexdigest()[:16]


@dataclass(frozen=True)
class FillEmbeddings(ReviewerAction):
    """Vectors written for facts that had none. Stores the fact ids and a digest of each vector;
    undone by clearing them (``embedding``, ``binary_embedding`` and the vector index row),
    each checked to be still the vector written; redone by embedding the same texts again
    (``blobs``, the vectors of the first run, are not stored)."""

    entity, name = "fact", "embed"
    ids: list[str]
    digests: list[str]
    blobs: Sequence[tuple[bytes, bytes]] | None = field(default=None, compare=False)

    def to_detail(self) -> dict[str, Any]:
        return {"v": self.version, **{f.name: getattr(self, f.name) for f in fields(self) if f.name != "blobs"}}

    def forward(self, ws: Workspace, conn: Connection) -> None:
        facts = ws.layout.facts
        rows = {r.id: r for r in conn.execute(select(facts.c.id, facts.c.topic, facts.c.content, facts.c.embedding)
                                              .where(facts.c.id.in_(self.ids)))}
        for fid in self.ids:
            if fid not in rows or rows[fid].embedding is not None:
                raise StaleEdit(f"fact {fid} {'no longer exists' if fid not in rows else 'has a vector since'}; "
                                "nothing was changed")
        blobs = self.blobs
        if blobs is None:  # a redo: the same texts embedded again
            # the model's module (numpy, the tokenizer) only when vectors are made: the action registry is
            # imported before the window's first rows are painted
            from memorydesk.embedding.embedder import binary_blob, fact_text, get_embedder, to_blob

            vectors = get_embedder().embed([fact_text(rows[f].topic, rows[f].content) for f in self.ids])
            blobs = [(to_blob(v), binary_blob(v)) for v in vectors]
        for fid, (blob, binary) in zip(self.ids, blobs, strict=True):
            conn.execute(facts.update().where(facts.c.id == fid).values(embedding=blob, binary_embedding=binary))
            if ws.has_vectors:
                put_vector(conn, fid, blob)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        facts = ws.layout.facts
        now = dict(conn.execute(select(facts.c.id, facts.c.embedding).where(facts.c.id.in_(self.ids))).all())
        for fid, mark in zip(self.ids, self.digests, strict=True):
            if now.get(fid) is None or digest(now[fid]) != mark:
                raise StaleEdit(f"the vector of fact {fid} changed since it was written; nothing was changed")
        for fid in self.ids:
            conn.execute(facts.update().where(facts.c.id == fid).values(embedding=None, binary_embedding=None))
            if ws.has_vectors:
                conn.exec_driver_sql(f"DELETE FROM {VECTOR_TABLE} WHERE fact_id = ?", (fid,))

    def touched(self) -> dict[str, list[str]]:
        return {"fact": list(self.ids)}
