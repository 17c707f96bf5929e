"""Rank fusion as the product does it: RRF, the hybrid four-voice score, and MMR.

Ranks are 0-based: an id at rank ``r`` of a voice with weight ``w`` adds
``w · (1 / (60 + r + 1))``, so the first hit adds ``w/61``. (DESIGN's ``w/(60+r+1)``
with the product's loop index ``r`` starting at 0 — ``polyphonic_recall.dart``,
``rrf.dart``.) Floating-point operations follow the product's order so scores match
to the last bit; in particular the voices are summed in the order the product
registers them: fact, vector, temporal, graph.

Equal scores are ordered by the Dart VM's ``List.sort`` (``dart_sort``), which is a
stable insertion sort up to 33 items and an unstable dual-pivot quicksort beyond;
ties are common in semantic mode (an FTS-only and a vector-only hit at the same rank).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final, Mapping, Sequence

from memorydesk.core.product.dart_sort import dart_compare_doubles, dart_sort
from memorydesk.core.product.decay import weibull_at
from memorydesk.core.product.intent import QueryIntent
from memorydesk.core.product.text import jaccard, whitespace_tokens

__all__ = [
    "BASE_VOICE_WEIGHTS",
    "FusedId",
    "FusionRecord",
    "HybridHit",
    "HybridResult",
    "MMR_LAMBDA",
    "MmrPick",
    "PRODUCT",
    "VARIANTS",
    "Variant",
    "RRF_K",
    "TOP_K",
    "VOICE_LIMITS",
    "VOICE_ORDER",
    "VoiceContribution",
    "Voice",
    "decay_factor_of",
    "hybrid_fuse",
    "mmr_rerank",
    "rank_desc",
    "rrf_fuse",
    "rrf_term",
    "semantic_fuse",
    "voice_weights",
]

RRF_K: Final = 60
TOP_K: Final = 10
MMR_LAMBDA: Final = 0.7


class Voice(StrEnum):
    """The four recall voices of hybrid search."""

    VECTOR = "vector"
    GRAPH = "graph"
    FACT = "fact"
    TEMPORAL = "temporal"


#: The order in which the product accumulates the voices' RRF terms.
VOICE_ORDER: Final = (Voice.FACT, Voice.VECTOR, Voice.TEMPORAL, Voice.GRAPH)

BASE_VOICE_WEIGHTS: Final[Mapping[Voice, float]] = {
    Voice.VECTOR: 0.35,
    Voice.GRAPH: 0.25,
    Voice.FACT: 0.25,
    Voice.TEMPORAL: 0.15,
}

#: How many ids of each voice count (FTS top 20, KNN top 30, 30 newest; graph uncapped).
VOICE_LIMITS: Final[Mapping[Voice, int | None]] = {
    Voice.FACT: 20,
    Voice.VECTOR: 30,
    Voice.TEMPORAL: 30,
    Voice.GRAPH: None,
}


def _by_score_desc(scores: Sequence[float]) -> list[int]:
    order = list(range(len(scores)))
    if len(set(scores)) == len(scores) and not any(s != s for s in scores):
        # no two equal and no NaN: one order sorts them, whatever the algorithm (-0.0 == 0.0 counts as equal)
        order.sort(key=scores.__getitem__, reverse=True)
        return order
    dart_sort(order, lambda x, y: dart_compare_doubles(scores[y], scores[x]))
    return order


def rank_desc(values: Sequence[float]) -> list[int]:
    """Each item's 0-based place when ``values`` are sorted best first as the product sorts
    scores (the Dart VM's sort: equal values keep or lose their order as it does)."""
    places = [0] * len(values)
    for place, i in enumerate(_by_score_desc(values)):
        places[i] = place
    return places


# --- reciprocal rank fusion ------------------------------------------------------------


def rrf_term(rank: int, weight: float = 1.0, k: int = RRF_K) -> float:
    """What an id at 0-based ``rank`` adds: ``weight · (1 / (k + rank + 1))``."""
    return weight * (1.0 / (k + rank + 1))


@dataclass(frozen=True, slots=True)
class FusedId:
    """An id with its fused RRF score."""

    id: str
    score: float


def rrf_fuse(
    ranked_lists: Sequence[Sequence[str]], k: int = RRF_K, limit: int | None = None
) -> list[FusedId]:
    """Unweighted RRF of ranked id lists, best first, cut to ``limit`` if given."""
    scores: dict[str, float] = {}
    for ids in ranked_lists:
        for rank, id_ in enumerate(ids):
            scores[id_] = scores.get(id_, 0.0) + 1.0 / (k + rank + 1)
    fused = [FusedId(id_, score) for id_, score in scores.items()]
    dart_sort(fused, lambda x, y: dart_compare_doubles(y.score, x.score))
    if limit is not None and limit >= 0:
        return fused[:limit]
    return fused


def semantic_fuse(fts_ids: Sequence[str], vector_ids: Sequence[str]) -> list[FusedId]:
    """Semantic mode: RRF (k=60) of the FTS top 20 and the vector top 30, limit 10."""
    return rrf_fuse(
        [fts_ids[: VOICE_LIMITS[Voice.FACT]], vector_ids[: VOICE_LIMITS[Voice.VECTOR]]],
        k=RRF_K,
        limit=TOP_K,
    )


# --- MMR -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MmrPick:
    """One MMR choice: the input index, its max Jaccard to earlier picks, and the value.

    The first pick is taken on score alone (similarity 0, value ``λ·score``). ``against``
    is the input index of the earlier pick it was most similar to (None for the first,
    or when it shares no token with any).
    """

    index: int
    similarity: float
    penalty: float
    value: float
    against: int | None = None


@dataclass(frozen=True, slots=True)
class Variant:
    """A what-if for the recall audit — NOT what the product does, which is ``PRODUCT``.

    ``decay``: ``"product"`` (0.02 + 0.98·weibull), ``"none"`` (factor 1) or ``"floor"``
    (the product's factor, but never below ``floor``); ``mmr``: ``"product"``,
    ``"normalised"`` (the scores rescaled to 0..1 over the candidates, min to max, before
    the diversity term) or ``"none"`` (the best ``top_k`` by score).
    """

    name: str = "product"
    decay: str = "product"
    floor: float = 0.0
    mmr: str = "product"


PRODUCT: Final = Variant()
#: the named what-ifs of ``memory-desk audit recall --what-if NAME``
VARIANTS: Final[Mapping[str, Variant]] = {
    "no-decay": Variant("no-decay", decay="none"),
    "decay-floor-0.3": Variant("decay-floor-0.3", decay="floor", floor=0.3),
    "mmr-normalised": Variant("mmr-normalised", mmr="normalised"),
    "no-mmr": Variant("no-mmr", mmr="none"),
}


def mmr_rerank(
    scores: Sequence[float],
    texts: Sequence[str],
    lam: float = MMR_LAMBDA,
    top_k: int = TOP_K,
    relevance: Sequence[float] | None = None,
    order: Sequence[int] | None = None,
) -> list[MmrPick]:
    """Greedy MMR over items given as parallel ``scores`` and ``texts``.

    Best score first; then repeatedly the item maximising
    ``λ·score − (1−λ)·max Jaccard(item, chosen)`` (lower-cased whitespace tokens;
    the first maximum wins), until ``top_k`` are chosen. ``relevance`` (a what-if) puts
    other values in the relevance term; the order of the first pick stays by ``scores``.
    ``order``: ``scores``' indices best first, when the caller has sorted them already.
    """
    limit = max(top_k, 0)
    if limit == 0:
        return []
    rel = scores if relevance is None else relevance
    if len(scores) <= 1:
        return [MmrPick(i, 0.0, 0.0, lam * rel[i]) for i in range(len(scores))][:limit]
    tokens = [whitespace_tokens(text) for text in texts]
    remaining = list(order) if order is not None else _by_score_desc(scores)
    first = remaining.pop(0)
    picks = [MmrPick(first, 0.0, 0.0, lam * rel[first])]
    diversity = 1.0 - lam
    # each item's most similar chosen hit so far (the first of equals, in the order chosen), and how
    # many picks it has been compared with: brought up to date pick by pick, in the order chosen,
    # which is what a pass over every pick gives. An item whose value cannot beat the best of this
    # round even with what it knows so far (its similarity only grows, so its value only falls) is
    # not brought up to date until a round where it might.
    most: list[tuple[float, int | None]] = [(0.0, None)] * len(scores)
    compared = [0] * len(scores)  # picks each item was compared with (the first ones)
    prune = diversity >= 0.0
    while remaining and len(picks) < limit:
        best_at, best = 0, MmrPick(-1, 0.0, 0.0, float("-inf"))
        for at, i in enumerate(remaining):
            if prune and lam * rel[i] - diversity * most[i][0] <= best.value:
                continue  # at most that value: it cannot be the first maximum
            for pick in picks[compared[i] :]:
                s = jaccard(tokens[i], tokens[pick.index])
                if s > most[i][0]:
                    most[i] = (s, pick.index)
            compared[i] = len(picks)
            sim, against = most[i]
            penalty = diversity * sim
            value = lam * rel[i] - penalty
            if value > best.value:
                best_at, best = at, MmrPick(i, sim, penalty, value, against)
        if best.index < 0:  # every value NaN: the product takes the first remaining
            i = remaining[0]
            best = MmrPick(i, 0.0, 0.0, lam * rel[i])
        remaining.pop(best_at)
        picks.append(best)
    return picks


def _normalised(scores: Sequence[float]) -> list[float]:
    """The scores rescaled to 0..1, lowest to highest (all 1.0 when they are equal)."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high <= low:
        return [1.0 for _ in scores]
    return [(s - low) / (high - low) for s in scores]


def _chosen(scores: Sequence[float], texts: Sequence[str], lam: float, top_k: int, variant: Variant,
            order: Sequence[int]) -> list[MmrPick]:
    if variant.mmr == "none":
        return [MmrPick(i, 0.0, 0.0, scores[i]) for i in order[: max(top_k, 0)]]
    relevance = _normalised(scores) if variant.mmr == "normalised" else None
    return mmr_rerank(scores, texts, lam, top_k, relevance, order)


def decay_factor_of(weibull: float, variant: Variant) -> float:
    """The factor decay puts on a score: the product's ``0.02 + 0.98·weibull``, or a what-if's."""
    factor = 0.02 + 0.98 * weibull
    if variant.decay == "none":
        return 1.0
    if variant.decay == "floor":
        return max(variant.floor, factor)
    return factor


# --- hybrid ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FusionRecord:
    """What fusion needs to know about one fact (read by the store layer)."""

    created_at: float  # unix seconds
    memory_type: str | None
    confidence: float
    text: str  # topic + " " + content
    boost: float = 1.0  # newer product: 1.35 for the caller's repo, else 1.0


# not frozen: a frozen dataclass takes about nine times as long to make, and every search makes hundreds
@dataclass(slots=True)
class VoiceContribution:
    """One voice's share of a hit's RRF sum."""

    voice: Voice
    rank: int  # 0-based
    weight: float  # base weight × intent bias
    contribution: float


# not frozen: a frozen dataclass takes about nine times as long to make, and every search makes hundreds
@dataclass(slots=True)
class HybridHit:
    """A scored candidate with everything that decided its place."""

    id: str
    contributions: tuple[VoiceContribution, ...]
    rrf: float
    weibull: float
    decay_factor: float  # 0.02 + 0.98·weibull
    confidence_factor: float  # 0.8 + 0.2·clamp(confidence, 0, 1)
    boost: float
    score: float  # rrf × decay_factor × confidence_factor × boost
    score_rank: int  # 0-based place by score alone
    position: int | None = None  # 0-based place after MMR; None if not chosen
    mmr_similarity: float = 0.0
    mmr_penalty: float = 0.0
    mmr_value: float | None = None
    mmr_against: str | None = None  # the chosen hit it was most similar to


@dataclass(frozen=True, slots=True)
class HybridResult:
    """The outcome of one hybrid search, explained."""

    intent: QueryIntent | None
    weights: Mapping[Voice, float]
    hits: tuple[HybridHit, ...]  # chosen, in final order
    candidates: tuple[HybridHit, ...]  # every scored candidate, by score rank
    unknown_ids: tuple[str, ...]  # ranked ids that had no record (skipped)


def voice_weights(intent: QueryIntent | None) -> dict[Voice, float]:
    """Base voice weights times the intent's biases (graph is never biased)."""
    base = dict(BASE_VOICE_WEIGHTS)
    if intent is None:
        return base
    bias = intent.bias
    base[Voice.VECTOR] *= bias.vec
    base[Voice.FACT] *= bias.fts
    base[Voice.TEMPORAL] *= bias.importance
    return base


def hybrid_fuse(
    voices: Mapping[Voice, Sequence[str]],
    records: Mapping[str, FusionRecord],
    intent: QueryIntent | None,
    now: float,
    top_k: int = TOP_K,
    lam: float = MMR_LAMBDA,
    variant: Variant = PRODUCT,
) -> HybridResult:
    """Fuse the voices' ranked ids into the hybrid top ``top_k``, with explanations.

    ``voices`` holds each voice's ids best first (a missing voice contributes
    nothing, e.g. no vector voice without a query embedding); ``records`` the
    facts behind them; ``now`` is unix seconds. ``variant`` is for the recall audit's
    what-ifs only; the agent's search always runs ``PRODUCT``.
    """
    weights = voice_weights(intent)
    rrf: dict[str, float] = {}
    parts: dict[str, list[VoiceContribution]] = {}
    for voice in VOICE_ORDER:
        ids = voices.get(voice)
        weight = weights[voice]
        if ids is None or weight <= 0:
            continue
        limit = VOICE_LIMITS[voice]
        for rank, id_ in enumerate(ids if limit is None else ids[:limit]):
            term = rrf_term(rank, weight)
            rrf[id_] = rrf.get(id_, 0.0) + term
            parts.setdefault(id_, []).append(VoiceContribution(voice, rank, weight, term))

    rows: list[tuple[str, float, float, float, float, FusionRecord, float]] = []
    unknown: list[str] = []
    for id_, total in rrf.items():
        record = records.get(id_)
        if record is None:
            unknown.append(id_)
            continue
        decay = weibull_at(record.memory_type, record.created_at, now)
        decay_factor = decay_factor_of(decay, variant)
        confidence_factor = 0.8 + 0.2 * min(max(record.confidence, 0.0), 1.0)
        score = total * decay_factor * confidence_factor * record.boost
        rows.append((id_, total, decay, decay_factor, confidence_factor, record, score))

    scores = [row[6] for row in rows]
    order = _by_score_desc(scores)
    place = [0] * len(rows)
    for at, i in enumerate(order):
        place[i] = at
    scored = [HybridHit(id_, tuple(parts[id_]), total, decay, decay_factor, confidence_factor, record.boost, score,
                        score_rank=place[n])
              for n, (id_, total, decay, decay_factor, confidence_factor, record, score) in enumerate(rows)]
    picks = _chosen(scores, [row[5].text for row in rows], lam, top_k, variant, order)
    ids = [h.id for h in scored]
    for position, pick in enumerate(picks):
        scored[pick.index] = replace(
            scored[pick.index],
            position=position,
            mmr_similarity=pick.similarity,
            mmr_penalty=pick.penalty,
            mmr_value=pick.value,
            mmr_against=ids[pick.against] if pick.against is not None else None,
        )
    candidates = [scored[i] for i in order]  # by score rank
    return HybridResult(
        intent=intent,
        weights=weights,
        hits=tuple(scored[pick.index] for pick in picks),
        candidates=tuple(candidates),
        unknown_ids=tuple(unknown),
    )
