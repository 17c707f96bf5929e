"""Every copy search keeps of one file, at one version, and how it is built and followed.

``search.copies.follow`` says when; this module says how (the steps are in its docstring).
"""

from __future__ import annotations

import bisect
import logging
import os
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import Connection

from memorydesk.core.product.fts_query import scoped_match
from memorydesk.search.copies.bm25_terms import agrees
from memorydesk.search.copies.embeddings import EmbeddingCopy
from memorydesk.search.copies.fts_mirror import KeywordIndex, Retokenizer, RowTokens, TermTable, fts_options
from memorydesk.search.copies.graph import GraphCopy, GraphUnusable
from memorydesk.search.copies.recent import Recent
from memorydesk.search.copies.rows import (
    RowPrints,
    Unfollowable,
    changed_rows,
    embeddings,
    is_active,
    members,
    recent_row,
    rows_by_id,
    scan_for_recent,
    scan_rows,
    workspace_phrase,
)
from memorydesk.search.copies.vectors import CopyUnusable, VectorCopy
from memorydesk.search.scope import RepoScope
from memorydesk.store import Workspace
from memorydesk.store.watermarks import fact_rows

__all__ = ["CacheSettings", "FileState", "configure", "settings"]

log = logging.getLogger("memorydesk.search")

_MB = 1024 * 1024
_NO_GRAPH = "no copy of the graph's edges"


def _default_max_bytes() -> int:
    try:
        return int(float(os.environ.get("MEMORY_DESK_SEARCH_CACHE_MB", "2048")) * _MB)
    except ValueError:
        log.warning("MEMORY_DESK_SEARCH_CACHE_MB is not a number; keeping the default of 2048 MB")
        return 2048 * _MB


@dataclass
class CacheSettings:
    """How much search may keep, and when it builds it.

    ``max_bytes``: the bound on everything ``cache_report`` counts (the environment
    variable ``MEMORY_DESK_SEARCH_CACHE_MB`` sets the default; 2 GB otherwise).
    ``build_after``: the search (per workspace object) that starts the build.
    ``background``: build on a thread (False: build inside that search; for tests).
    ``max_follow_rows``: beyond this many changed fact rows, rebuild instead of following.
    ``one_shot``: the process answers one command and ends (``memory-desk review``, ``audit``):
    neither searches (``build_after``) nor a warm-up (``prepare``) start a build; a caller that
    wants the copies for many searches still builds them (``wait_ready``).
    """

    max_bytes: int = field(default_factory=lambda: _default_max_bytes())
    build_after: int = 2
    background: bool = True
    max_follow_rows: int = 20_000
    one_shot: bool = False


_settings = CacheSettings()


def settings() -> CacheSettings:
    return _settings


def configure(**changes: Any) -> CacheSettings:
    """Change the settings (unknown names raise); returns the settings in force."""
    for name, value in changes.items():
        if not hasattr(_settings, name):
            raise TypeError(f"no cache setting {name!r}")
        setattr(_settings, name, value)
    return _settings


class FileState:
    """Every copy search keeps of one file, at one version."""

    def __init__(self, version: int, schema: int) -> None:
        self.version = version
        self.schema = schema
        self.keyword: KeywordIndex | None = None
        self.retok: Retokenizer | None = None
        self.probe: str | None = None  # a rare term FTS5 is asked about after every change (``agrees``)
        self.rows = RowPrints(0)
        self.recent: dict[str | None, Recent] = {}
        self.vectors: VectorCopy | None = None
        self.embeddings: EmbeddingCopy | None = None  # a file without our vector index
        self.graph: GraphCopy | None = None  # at ``version`` only: a change drops it (``graph_for``)
        self.graph_refused: int | None = None  # the version whose edges could not be copied
        self.notes: list[str] = []
        self.phrase: str | None = None
        self.terms: OrderedDict[str, tuple[int, np.ndarray, np.ndarray]] = OrderedDict()
        self.term_elements = 0
        self._others = (-1, 0)  # (index epoch, bytes of everything but the term cache)
        self.followed = 0  # versions followed since the build
        self.last_follow: dict[str, float] = {}

    # --- building -------------------------------------------------------------------------

    @classmethod
    def build(cls, ws: Workspace, conn: Connection, version: int, keep_going: Any = lambda: True) -> FileState:
        raw = conn.connection.driver_connection
        schema = int(raw.execute("PRAGMA schema_version").fetchone()[0])
        st = cls(version, schema)
        fts, facts = ws.layout.fts, ws.layout.facts.name
        budget = _settings.max_bytes
        sql = raw.execute("SELECT sql FROM sqlite_master WHERE name = ?", (fts,)).fetchone()
        options = fts_options(sql[0] if sql else None)
        if options is None:
            raise Unfollowable("a full-text index with options this copy does not reproduce")
        st.retok = Retokenizer(options)
        match = scoped_match("aa", ws.workspace_id)
        st.phrase = workspace_phrase(match)
        top = raw.execute(f"SELECT max(rowid) FROM {facts}").fetchone()[0] or 0
        st.rows = RowPrints(int(top) + 1024)
        st.recent[None], _spaces = scan_rows(raw, ws, st.rows, keep_going)
        try:
            table, lengths = TermTable.build(raw, fts, int(top), keep_going)
            st.keyword = KeywordIndex.of_rows(table, lengths, np.flatnonzero(st.rows.present),
                                              lambda size: members(raw, fts, st.phrase, size), st.phrase)
        except ValueError as exc:
            raise Unfollowable(f"the index and the fact table disagree: {exc}") from None
        st.probe = _rarest(table)
        if not agrees(raw, fts, st.keyword, [st.probe] if st.probe is not None else []):
            raise Unfollowable("the index does not rank as its rows say (out of step with the fact table)")
        used = st.nbytes
        if used > budget:
            raise Unfollowable(f"the copies need {used / _MB:.0f} MB, more than the {budget / _MB:.0f} MB allowed")
        planned = VectorCopy.planned_bytes(raw) if ws.has_vectors else EmbeddingCopy.planned_bytes(raw, facts)
        if used + planned > budget:
            st.notes.append(f"no vector copy: it would take {planned / _MB:.0f} MB beside "
                            f"{used / _MB:.0f} MB, over the {budget / _MB:.0f} MB allowed")
        elif ws.has_vectors:
            try:
                st.vectors = VectorCopy.build(raw)
            except CopyUnusable as exc:
                st.notes.append(f"no vector copy: {exc}")
        else:
            st.embeddings = EmbeddingCopy.build(raw, facts)
        st.graph_for(ws, conn, keep_going)  # last: only what fits beside the others
        return st

    @property
    def nbytes(self) -> int:
        return sum(self.report().values())

    def report(self) -> dict[str, int]:
        return {
            "keyword index": self.keyword.nbytes if self.keyword is not None else 0,
            "row fingerprints": self.rows.nbytes,
            "vector copy": (self.vectors.nbytes if self.vectors is not None
                            else self.embeddings.nbytes if self.embeddings is not None else 0),
            "term cache": self.term_elements * 16,
            "temporal lists": sum(64 * len(r.ids) for r in self.recent.values()),
            "graph edges and fact ids": self.graph.nbytes if self.graph is not None else 0,
        }

    # --- following ------------------------------------------------------------------------

    def follow(self, ws: Workspace, conn: Connection, version: int) -> None:
        """Bring every copy to this connection's snapshot (which shows ``version``)."""
        started = time.perf_counter()
        raw = conn.connection.driver_connection
        fts, facts = ws.layout.fts, ws.layout.facts.name
        self.graph = None  # the edges may have changed too: a copy is built for the new version when asked
        if int(raw.execute("PRAGMA schema_version").fetchone()[0]) != self.schema:
            raise Unfollowable("the schema changed")
        assert self.keyword is not None and self.retok is not None
        prints = changed_rows(fact_rows(ws, conn, version), self.rows, _settings.max_follow_rows)
        found = {int(r[0]): r for r in rows_by_id(raw, facts, sorted(k for k, v in prints.items() if v is not None))}
        changed: dict[int, tuple[Any, ...] | None] = {rowid: found.get(rowid) for rowid in prints}
        live = {rowid: row for rowid, row in changed.items() if row is not None}
        tokens: dict[int, RowTokens | None] = dict.fromkeys(changed)
        tokens.update(self.retok.rows(raw, [(rowid, row[4], row[5], row[2]) for rowid, row in live.items()],
                                      self.phrase))
        self.keyword.apply(tokens)
        for rowid, row in changed.items():
            self.rows.set(rowid, prints[rowid] if row is not None else None,
                          row is not None and is_active(row, ws.workspace_id))
            fact = recent_row(row) if row is not None else None
            for recent in self.recent.values():
                recent.update(rowid, fact)
        if self.rows.count != self.keyword.n_row or not agrees(raw, fts, self.keyword, self._probes(tokens)):
            raise Unfollowable("the copies no longer rank as the index does")
        if self.vectors is not None or self.embeddings is not None:
            stored = {int(r[0]): (r[1], bytes(r[2]) if r[2] is not None else None)
                      for r in embeddings(raw, facts, list(live))}
            if self.vectors is not None:
                self.vectors.follow(raw, [stored[rowid] for rowid in live if rowid in stored])
            if self.embeddings is not None:
                self.embeddings.apply({rowid: stored[rowid][1] if rowid in stored else None for rowid in changed})
        if changed:
            self.forget_changed_terms(tokens)
        self.version = version
        self.followed += 1
        self.last_follow = {"changed": float(len(changed)), "ms": (time.perf_counter() - started) * 1000}

    def _probes(self, tokens: dict[int, RowTokens | None]) -> list[str]:
        """What FTS5 is asked about after a change: the rarest term of the changed rows (their tokens
        as FTS5 made them) and the copy's rarest term (the row count and tokens of the whole index)."""
        assert self.keyword is not None
        table = self.keyword.table
        held = {name for row in tokens.values() if row is not None for name in row.terms}
        out = [min(held, key=lambda t: (table.entries(t), t))] if held else []
        if self.probe is not None and self.probe not in out:
            out.append(self.probe)
        return out

    def overlay_full(self) -> bool:
        """Whether enough rows changed since the build that a fresh copy would serve better."""
        if self.keyword is None:
            return False
        return self.keyword.table.overlay_rows > max(50_000, self.keyword.n_row // 20)

    # --- reading --------------------------------------------------------------------------

    def graph_now(self) -> GraphCopy | None:
        """The copy of the edges and fact ids, when it shows the copies' version (else None)."""
        graph = self.graph
        return graph if graph is not None and graph.version == self.version else None

    def graph_for(self, ws: Workspace, conn: Connection, keep_going: Any = lambda: True) -> GraphCopy | None:
        """The copy of the edges and fact ids at the copies' version, built now if there is none
        (``conn``'s snapshot must show that version); None for a file it cannot mirror, or when it
        would not fit in the memory bound."""
        if self.graph is not None and self.graph.version == self.version:
            return self.graph
        if self.graph_refused == self.version:
            return None
        raw = conn.connection.driver_connection
        try:
            graph = GraphCopy.build(raw, ws.layout.facts.name, ws.layout.edges.name, ws.workspace_id, self.version,
                                    keep_going)
        except GraphUnusable as exc:
            return self._no_graph(str(exc))
        if self.nbytes + graph.nbytes > _settings.max_bytes:
            return self._no_graph(f"{graph.nbytes / _MB:.0f} MB more would pass the bound")
        self.graph = graph
        return graph

    def _no_graph(self, why: str) -> None:
        self.graph_refused = self.version
        self.notes = [n for n in self.notes if not n.startswith(_NO_GRAPH)] + [f"{_NO_GRAPH}: {why}"]

    def forget_terms(self) -> None:
        """Empty the term cache (after a change; benchmarks measuring terms never asked before)."""
        self.terms.clear()
        self.term_elements = 0

    def forget_changed_terms(self, changed: dict[int, RowTokens | None]) -> None:
        """After rows changed (``changed``: their new tokens, None for gone): forget the cached terms
        those rows held before (they are among the term's rows) or hold now (a term the cached
        one is a prefix of); the others stay, valid at the copy's new epoch."""
        assert self.keyword is not None
        fresh = sorted({name for row in changed.values() if row is not None for name in row.terms})
        rowids = np.asarray(sorted(changed), dtype=np.int64)
        epoch = self.keyword.epoch
        for term, (_, rows, tf) in list(self.terms.items()):
            at = bisect.bisect_left(fresh, term)
            gains = at < len(fresh) and fresh[at].startswith(term)
            where = np.searchsorted(rows, rowids) if len(rows) else rowids[:0]
            loses = bool((rows[np.minimum(where, len(rows) - 1)] == rowids).any()) if len(rows) else False
            if gains or loses:
                del self.terms[term]
                self.term_elements -= len(rows)
            else:
                self.terms[term] = (epoch, rows, tf)

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Rows holding ``term*`` and their counts, from a small cache of recent terms."""
        assert self.keyword is not None
        hit = self.terms.get(term)
        if hit is not None and hit[0] == self.keyword.epoch:
            self.terms.move_to_end(term)
            return hit[1], hit[2]
        rows, tf = self.keyword.table.postings(term)
        if hit is not None:
            self.term_elements -= len(hit[1])
        self.terms[term] = (self.keyword.epoch, rows, tf)
        self.term_elements += len(rows)
        if self._others[0] != self.keyword.epoch:  # what the rest takes, once per change of the file
            self._others = (self.keyword.epoch, self.nbytes - self.term_elements * 16)
        # at most a twentieth of the bound: postings are cheap to gather again from the copy of the index
        budget = max(0, min(_settings.max_bytes - self._others[1], _settings.max_bytes // 20) // 16)
        while self.term_elements > budget and len(self.terms) > 1:
            _, (_, old, _) = self.terms.popitem(last=False)
            self.term_elements -= len(old)
        return rows, tf

    def recent_for(self, ws: Workspace, conn: Connection, scope: RepoScope | None, limit: int) -> list[str] | None:
        key = scope.slug if scope is not None else None
        recent = self.recent.get(key)
        if recent is not None:
            found = recent.newest(limit)
            if found is not None:
                return found
        raw = conn.connection.driver_connection
        rows = scan_for_recent(raw, ws, scope)
        self.recent[key] = Recent.from_rows(ws.workspace_id, scope, rows)
        return self.recent[key].newest(limit)


def _rarest(table: TermTable) -> str | None:
    """The term held by the fewest rows (FTS5 ranks it quickest), None for an empty index."""
    counts = np.diff(table.offsets)
    held = np.flatnonzero(counts > 0)
    if not len(held):
        return None
    return table.terms[int(held[np.argmin(counts[held])])]
