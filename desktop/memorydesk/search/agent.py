"""What an agent's ``search_memory`` returns, explained (docs/product-format.md, "The product's rules").

Three modes, as in the product:

- ``keyword``: the product's FTS5 query over active facts, ``ORDER BY rank LIMIT 20``
  (``search.keyword``). Score = ``-bm25`` (higher is better).
- ``semantic``: reciprocal rank fusion (k = 60) of the FTS top 20 and the vector top
  30, limit 10.
- ``hybrid`` (default): four voices (fact, vector, temporal, graph) weighted .25/.35/
  .15/.25 times the query intent's biases, ``w/(60+r+1)`` per voice, times the Weibull
  decay factor ``0.02 + 0.98·weibull`` and the confidence factor ``0.8 + 0.2·c``,
  then MMR (λ 0.7) to the top 10. Every hit says what each voice contributed, the
  intent, the decay and confidence factors and the MMR penalty, so the desk can show
  why a good semantic match ended up low (the product's quirks are kept on purpose).

Without a working embedder, or in a file without any stored embedding, semantic and
hybrid run on the keyword-derived voices only and ``SearchResult.notes`` says why.

A search is a preview and changes nothing, unless ``record_recall=True`` (an agent's
call): then the returned facts get ``recall_count + 1`` and ``last_recalled_at = now``
in one write transaction (refused on a read-only workspace).

``--repo SLUG`` (``repo=``): every voice only sees facts in workspace-wide domains and in
``repo:<slug>/…`` domains (malformed ``repo:x`` names count as workspace-wide); in
hybrid mode the repo's own facts also get the newer product's 1.35 boost.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from memorydesk.core.errors import BadInput, ReadOnlyWorkspace
from memorydesk.core.inputs import LIMIT_MAX, NAME_MAX, QUERY_MAX, check_count, check_text
from memorydesk.core.product.fusion import (
    PRODUCT,
    RRF_K,
    TOP_K,
    VOICE_LIMITS,
    HybridHit,
    Variant,
    Voice,
    hybrid_fuse,
    rrf_fuse,
    rrf_term,
)
from memorydesk.core.product.intent import classify_intent
from memorydesk.embedding.embedder import Embedder, EmbedderUnavailable, get_embedder
from memorydesk.memory import facts as agent_facts
from memorydesk.search.cache import snapshot_version
from memorydesk.search.hybrid import FactBrief, fact_briefs, graph_ids, graph_seeds, temporal_ids
from memorydesk.search.keyword import (
    KEYWORD_LIMIT,
    KeywordRow,
    is_keyword_reachable,
    keyword_rows,
    unreachable_fact_ids,
)
from memorydesk.search.scope import RepoScope, repo_scope
from memorydesk.search.vector import VECTOR_K, has_embeddings, vector_ids
from memorydesk.store import Workspace

__all__ = [
    "MODES",
    "SearchHit",
    "SearchResult",
    "VoiceShare",
    "is_keyword_reachable",
    "keyword_search",
    "nearest_ids",
    "search",
    "unreachable_fact_ids",
]

Mode = Literal["keyword", "semantic", "hybrid"]
MODES: tuple[str, ...] = ("keyword", "semantic", "hybrid")


# not frozen: a frozen dataclass takes about nine times as long to make, and every search makes hundreds
@dataclass(slots=True)
class VoiceShare:
    """One voice's part in a hit: its 1-based place in that voice and what it added.

    ``contribution = weight / (60 + rank)`` (the product's ``w/(60+r+1)`` with a 0-based
    ``r``); in keyword mode the only voice is ``fact`` and its contribution is the score.
    """

    rank: int
    contribution: float
    weight: float = 1.0

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "contribution": self.contribution, "weight": self.weight}


# not frozen: a frozen dataclass takes about nine times as long to make, and every search makes hundreds
@dataclass(slots=True)
class SearchHit:
    """One returned fact with everything that decided its place."""

    id: str
    domain: str
    topic: str
    content: str
    score: float
    voices: Mapping[str, VoiceShare]
    confidence: float
    memory_type: str | None
    created_at: int | None
    intent: str | None = None
    decay: float | None = None  # the Weibull factor itself, 0..1
    decay_factor: float | None = None  # 0.02 + 0.98·decay
    confidence_factor: float | None = None  # 0.8 + 0.2·clamp(confidence)
    boost: float = 1.0
    rrf: float | None = None  # the sum of the voices' contributions
    score_rank: int | None = None  # 1-based place by score, before MMR
    mmr_similarity: float | None = None
    mmr_penalty: float | None = None
    bm25: float | None = None
    mmr_value: float | None = None  # 0.7·score − 0.3·similarity: what MMR compared (chosen hits)
    mmr_against: str | None = None  # the hit above it was most similar to

    def to_json(self) -> dict[str, Any]:
        """The CLI contract's ``{id, domain, topic, score, voices}`` (plus the explanation)."""
        out: dict[str, Any] = {
            "id": self.id,
            "domain": self.domain,
            "topic": self.topic,
            "score": self.score,
            "voices": {name: share.to_json() for name, share in self.voices.items()},
        }
        if self.intent is not None:
            out["intent"] = self.intent
        if self.decay is not None:
            out["decay"] = self.decay
            out["decay_factor"] = self.decay_factor
            out["confidence_factor"] = self.confidence_factor
            out["rrf"] = self.rrf
            out["score_rank"] = self.score_rank
            out["mmr_similarity"] = self.mmr_similarity
            out["mmr_penalty"] = self.mmr_penalty
            if self.boost != 1.0:
                out["boost"] = self.boost
        if self.bm25 is not None:
            out["bm25"] = self.bm25
        return out

    def explain(self) -> str:
        """One line saying how the score came about."""
        parts = [
            f"{name} #{share.rank} +{share.contribution:.5f}" for name, share in self.voices.items()
        ]
        text = ", ".join(parts) if parts else "no voice"
        if self.decay is not None:
            text += (
                f"; rrf {self.rrf:.5f} × decay {self.decay_factor:.3f} (weibull {self.decay:.3f})"
                f" × confidence {self.confidence_factor:.3f}"
            )
            if self.boost != 1.0:
                text += f" × repo boost {self.boost:g}"
            text += f" = {self.score:.6f}"
            if self.mmr_penalty:
                text += f"; MMR −{self.mmr_penalty:.3f} (similarity {self.mmr_similarity:.2f} to a hit above)"
        if self.intent is not None:
            text += f"; intent {self.intent}"
        return text


@dataclass
class SearchResult:
    """The hits of one search, best first, and how the search ran."""

    query: str
    mode: str
    hits: list[SearchHit]
    match: str | None = None  # the FTS5 MATCH expression (None: the query has no terms)
    intent: str | None = None
    weights: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    repo: str | None = None
    recorded: bool = False
    #: hybrid: every scored candidate by score alone (1-based ``score_rank``), returned or not,
    #: so the desk can say why a fact did not make the list
    candidates: list[SearchHit] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        return [h.id for h in self.hits]


# --- modes -------------------------------------------------------------------------------


def _keyword_hit(rank: int, row: KeywordRow) -> SearchHit:
    score = -row.bm25
    return SearchHit(
        id=row.id, domain=row.domain, topic=row.topic, content=row.content, score=score,
        voices={"fact": VoiceShare(rank, score)}, confidence=row.confidence,
        memory_type=row.memory_type, created_at=row.created_at, bm25=row.bm25,
    )


def keyword_search(ws: Workspace, query: str, *, limit: int = KEYWORD_LIMIT, repo: str | None = None) -> SearchResult:
    """Keyword mode: the product's FTS query, best first (``limit`` 20 like the product)."""
    _check_inputs(query, limit, repo)
    scope = repo_scope(repo)
    notes: list[str] = []
    with ws.read() as conn:
        snapshot_version(ws, conn)  # before any read: lets the per-version caches serve this search
        match, rows = keyword_rows(conn, ws, query, limit=limit, scope=scope, notes=notes)
    if match is None:
        notes.append("the query has no keyword terms (only [a-z0-9] words of 2+ letters that are not stopwords count)")
    return SearchResult(query, "keyword", [_keyword_hit(i + 1, r) for i, r in enumerate(rows)], match=match,
                        notes=notes, repo=scope.slug if scope else None)


def _query_vector(ws: Workspace, conn: Any, query: str, embedder: Embedder | None, notes: list[str]):
    if not has_embeddings(ws, conn):
        notes.append("no fact in this workspace has an embedding: the vector voice is empty")
        return None
    emb = embedder if embedder is not None else get_embedder()
    ok, reason = emb.status()
    if not ok:
        notes.append(reason or "semantic search is off: the embedding model is unavailable")
        return None
    try:
        return emb.embed_one(query)
    except EmbedderUnavailable as exc:
        notes.append(str(exc))
        return None


def nearest_ids(ws: Workspace, query: str, *, k: int = VECTOR_K, embedder: Embedder | None = None) -> list[str]:
    """The vector voice alone: the active facts nearest the query's embedding, best first
    (empty without an embedder or without stored embeddings)."""
    notes: list[str] = []
    with ws.read() as conn:
        snapshot_version(ws, conn)
        qvec = _query_vector(ws, conn, query, embedder, notes)
        if qvec is None:
            return []
        return [fid for fid, _ in vector_ids(ws, conn, qvec, k=k)]


def _brief_hit(brief: FactBrief, score: float, voices: dict[str, VoiceShare], **extra: Any) -> SearchHit:
    return SearchHit(
        id=brief.id, domain=brief.domain, topic=brief.topic, content=brief.content, score=score, voices=voices,
        confidence=brief.confidence, memory_type=brief.memory_type, created_at=brief.created_at, **extra,
    )


def _semantic(ws: Workspace, conn: Any, query: str, scope: RepoScope | None, limit: int,
              embedder: Embedder | None, notes: list[str]) -> SearchResult:
    match, rows = keyword_rows(conn, ws, query, scope=scope, notes=notes)
    fts = [r.id for r in rows][: VOICE_LIMITS[Voice.FACT]]
    qvec = _query_vector(ws, conn, query, embedder, notes)
    vec = [fid for fid, _ in vector_ids(ws, conn, qvec, k=VECTOR_K, scope=scope)] if qvec is not None else []
    if qvec is None:
        notes.append("semantic mode ran on the keyword voice alone")
    fused = rrf_fuse([fts, vec[: VOICE_LIMITS[Voice.VECTOR]]], k=RRF_K, limit=limit)
    briefs = fact_briefs(ws, conn, [f.id for f in fused])
    fts_rank = {fid: i for i, fid in enumerate(fts)}
    vec_rank = {fid: i for i, fid in enumerate(vec)}
    hits: list[SearchHit] = []
    for place, item in enumerate(fused):
        voices: dict[str, VoiceShare] = {}
        for name, ranks in (("fact", fts_rank), ("vector", vec_rank)):
            if item.id in ranks:
                voices[name] = VoiceShare(ranks[item.id] + 1, rrf_term(ranks[item.id]))
        brief = briefs.get(item.id)
        if brief is not None:
            hits.append(_brief_hit(brief, item.score, voices, rrf=item.score, score_rank=place + 1))
    return SearchResult(query, "semantic", hits, match=match, notes=notes,
                        weights={"fact": 1.0, "vector": 1.0} if qvec is not None else {"fact": 1.0})


def _hybrid(ws: Workspace, conn: Any, query: str, scope: RepoScope | None, limit: int,
            embedder: Embedder | None, notes: list[str], now: float, variant: Variant = PRODUCT) -> SearchResult:
    intent = classify_intent(query)
    match, rows = keyword_rows(conn, ws, query, scope=scope, notes=notes)
    fts = [r.id for r in rows]
    qvec = _query_vector(ws, conn, query, embedder, notes)
    vec = [fid for fid, _ in vector_ids(ws, conn, qvec, k=VECTOR_K, scope=scope)] if qvec is not None else None
    if vec is None:
        notes.append("hybrid mode ran on the keyword-derived voices (fact, temporal, graph from keyword seeds)")
    temporal = temporal_ids(ws, conn, scope)
    graph = graph_ids(ws, conn, graph_seeds(fts, vec or []), scope=scope)
    voices: dict[Voice, list[str]] = {Voice.FACT: fts, Voice.TEMPORAL: temporal, Voice.GRAPH: graph}
    if vec is not None:
        voices[Voice.VECTOR] = vec
    briefs = fact_briefs(ws, conn, [fid for ids in voices.values() for fid in ids])
    records = {fid: b.record(scope) for fid, b in briefs.items()}
    fused = hybrid_fuse(voices, records, intent, now, top_k=limit, variant=variant)
    label = intent.category.value
    candidates = [_hybrid_hit(briefs[h.id], h, label) for h in fused.candidates]
    made = {id(h): c for h, c in zip(fused.candidates, candidates, strict=True)}  # each hit is a candidate
    hits = [made.get(id(h)) or _hybrid_hit(briefs[h.id], h, label) for h in fused.hits]
    return SearchResult(query, "hybrid", hits, match=match, intent=label, notes=notes,
                        weights={v.value: w for v, w in fused.weights.items() if v in voices},
                        candidates=candidates)


def _hybrid_hit(brief: FactBrief, h: HybridHit, intent: str) -> SearchHit:
    shares = {c.voice.value: VoiceShare(c.rank + 1, c.contribution, c.weight) for c in h.contributions}
    return _brief_hit(
        brief, h.score, shares, intent=intent, decay=h.weibull, decay_factor=h.decay_factor,
        confidence_factor=h.confidence_factor, boost=h.boost, rrf=h.rrf, score_rank=h.score_rank + 1,
        mmr_similarity=h.mmr_similarity, mmr_penalty=h.mmr_penalty, mmr_value=h.mmr_value, mmr_against=h.mmr_against,
    )


# --- entry point -------------------------------------------------------------------------


def search(
    ws: Workspace,
    query: str,
    *,
    mode: str = "hybrid",
    repo: str | None = None,
    limit: int | None = None,
    record_recall: bool = False,
    now: float | None = None,
    embedder: Embedder | None = None,
    variant: Variant = PRODUCT,
) -> SearchResult:
    """Run ``search_memory`` as the product would.

    ``limit`` defaults to the product's (20 keyword, 10 semantic/hybrid) and sets how
    many come back; the voices keep their own sizes (FTS 20, KNN 30, temporal 30).
    ``now`` (unix seconds) is the clock for decay and for ``last_recalled_at``.
    ``variant`` (hybrid only) is a recall-audit what-if, NOT what the product does; a
    what-if never records a recall.
    """
    if mode not in MODES:
        raise BadInput(f"unknown search mode {mode!r}; use one of {', '.join(MODES)}")
    _check_inputs(query, limit, repo)
    if variant is not PRODUCT and (mode != "hybrid" or record_recall):
        raise BadInput("a what-if ranking is for the hybrid mode's audit only and never records a recall")
    if record_recall and ws.read_only:
        raise ReadOnlyWorkspace(f"{ws.path.name} is open read-only; a recall cannot be recorded")
    clock = time.time() if now is None else float(now)
    if mode == "keyword":
        result = keyword_search(ws, query, limit=KEYWORD_LIMIT if limit is None else limit, repo=repo)
    else:
        scope = repo_scope(repo)
        notes: list[str] = []
        with ws.read() as conn:
            snapshot_version(ws, conn)  # before any read: lets the per-version caches serve this search
            if mode == "semantic":
                result = _semantic(ws, conn, query, scope, TOP_K if limit is None else limit, embedder, notes)
            else:
                result = _hybrid(ws, conn, query, scope, TOP_K if limit is None else limit, embedder, notes,
                                 clock, variant)
        if result.match is None:
            notes.insert(0, "the query has no keyword terms: the fact voice is empty")
        result.repo = scope.slug if scope else None
    if record_recall and result.hits:
        agent_facts.record_recall(ws, result.ids, int(clock))  # the agent's call writes (memory.facts)
        result.recorded = True
    return result


def _check_inputs(query: object, limit: object, repo: object) -> None:
    """At the edge: valid text of a sane length, a sane limit (``core.inputs``)."""
    check_text(query, "the query", max_chars=QUERY_MAX, nul=True)
    if limit is not None:
        check_count(limit, "the limit", 0, LIMIT_MAX)
    if repo is not None:
        check_text(repo, "the repo slug", max_chars=NAME_MAX)
