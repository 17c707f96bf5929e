"""The vector voice of many coming searches at once (the recall audit).

A search embeds its query and scans every stored vector for the 30 nearest. The audit
knows its next queries, so it asks ahead, a batch at a time: each query embedded as the
call a search makes embeds it (``Embedder.embed_one``; ``Embedder.embed_each`` gives those
very vectors, running queries of one token count together), and the nearest embeddings of the whole
batch worked out in one pass over the vector copy (``VectorCopy.prepare``). Each search
is then still the agent's own ``search``: it is given an embedder that answers those
queries with the vectors already made, and the vector copy answers with what it worked
out for this state of the file (a change of the file drops them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from memorydesk.core.errors import BadInput
from memorydesk.core.inputs import QUERY_MAX, check_text
from memorydesk.embedding.embedder import Embedder, EmbedderUnavailable, get_embedder
from memorydesk.search.cache import snapshot_version
from memorydesk.search.vector import has_embeddings, prepare_nearest
from memorydesk.store import Workspace

__all__ = ["AHEAD", "Ahead"]

#: Queries readied at once: one pass over the vectors for each this many.
AHEAD = 64


class _Remembered:
    """The embedder search would use, answering the queries embedded ahead with the vectors
    that embedder gave for them (the rest it embeds as usual)."""

    def __init__(self, real: Embedder, known: dict[str, np.ndarray]) -> None:
        self._real, self._known = real, known

    def status(self) -> tuple[bool, str]:
        return self._real.status()

    def embed_one(self, text: str) -> np.ndarray:
        known = self._known.get(text)
        return known if known is not None else self._real.embed_one(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class Ahead:
    """The query vectors of the batch under way, and their nearest embeddings readied."""

    def __init__(self, ws: Workspace, embedder: Embedder | None = None) -> None:
        self.ws = ws
        self._real = embedder
        self._known: dict[str, np.ndarray] = {}
        self._usable: bool | None = None  # whether the file has embeddings and the model runs

    def _embedder(self) -> Embedder:
        if self._real is None:
            self._real = get_embedder()
        return self._real

    def embedder(self) -> Embedder | None:
        """What to give ``search`` (None: its own default, nothing known ahead)."""
        if not self._known:
            return self._real
        return cast(Embedder, _Remembered(self._embedder(), self._known))

    def prepare(self, queries: Sequence[str]) -> int:
        """Embed the coming ``queries`` and work out their nearest embeddings; how many were readied."""
        wanted = [q for q in dict.fromkeys(queries) if _searchable(q)]
        self._known = {q: v for q, v in self._known.items() if q in set(wanted)}
        todo = [q for q in wanted if q not in self._known]
        if not todo or not self._ready():
            return 0
        emb = self._embedder()
        try:
            each = getattr(emb, "embed_each", None)  # the model's runs, fewer of them; bit for bit embed_one's
            vectors = each(todo) if each is not None else [emb.embed_one(query) for query in todo]
            for query, vector in zip(todo, vectors, strict=True):
                self._known[query] = vector
        except EmbedderUnavailable:
            self._usable = False
            self._known.clear()
            return 0
        with self.ws.read() as conn:
            snapshot_version(self.ws, conn)  # before any read: lets search's copies serve
            return prepare_nearest(self.ws, conn, [self._known[q] for q in todo])

    def _ready(self) -> bool:
        if self._usable is None:
            with self.ws.read() as conn:
                snapshot_version(self.ws, conn)
                has = has_embeddings(self.ws, conn)
            self._usable = has and self._embedder().status()[0]
        return self._usable


def _searchable(query: str) -> bool:
    """Whether ``search`` takes this query (it refuses the rest before embedding them)."""
    try:
        check_text(query, "the query", max_chars=QUERY_MAX, nul=True)
    except BadInput:
        return False
    return True
