"""Where the agent's hybrid recall lost a fact — one definition, used everywhere (the agent
view, the Facts detail, the workspace audit, ``memory-desk audit recall``).

For a hybrid search (``agent.search``, the agent's own code path) and a target fact, the
first stage that applies:

- ``found``: among the hits (its rank given);
- ``not_candidate``: in no voice's list (fact, vector, temporal, graph), so never scored;
- ``mmr``: among the ``top_k`` best final scores (``rrf × decay × confidence``) but not
  picked by MMR (a chosen hit too similar to it — which one, and the penalty, given);
- ``decay``: not among the best final scores, but among the best when no candidate is
  decayed (``rrf × confidence``);
- ``fusion``: a candidate, not among the best even undecayed (the voices did not rank it
  high enough).

Ranks follow the product's sort (``core.product.fusion.rank_desc``), so a tie falls as it falls for
the agent. Nothing here searches: it reads the ``SearchResult`` the search returned.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memorydesk.core.product.fusion import MMR_LAMBDA, TOP_K, rank_desc
from memorydesk.core.product.text import jaccard, whitespace_tokens
from memorydesk.search.agent import SearchHit, SearchResult

STAGES = ("found", "not_candidate", "mmr", "decay", "fusion")
STAGE_WORDS = {
    "found": "in the agent's top 10",
    "not_candidate": "in no voice's list",
    "mmr": "removed by MMR (diversity)",
    "decay": "lost to decay (age)",
    "fusion": "ranked too low by the voices",
}


@dataclass(frozen=True)
class Loss:
    """One target's fate in one search, with the numbers that decided it."""

    target: str
    stage: str
    rank: int | None = None  # 1-based place among the hits (found)
    voices: dict[str, int] = field(default_factory=dict)  # voice -> 1-based place in it
    rrf: float | None = None
    decay: float | None = None  # the Weibull weight, 0..1
    decay_factor: float | None = None
    confidence_factor: float | None = None
    score: float | None = None
    undecayed: float | None = None  # rrf × confidence × boost
    fusion_rank: int | None = None  # 1-based by rrf alone
    decay_rank: int | None = None  # by rrf × decay (× boost)
    score_rank: int | None = None  # by the final score
    undecayed_rank: int | None = None  # by rrf × confidence (× boost)
    mmr_value: float | None = None  # 0.7·score − 0.3·similarity when it was compared
    mmr_similarity: float | None = None
    mmr_penalty: float | None = None
    mmr_against: str | None = None  # the chosen hit that cost it its place (or, found: the one above)
    candidates: int = 0
    created_at: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None and v != {}}

    @property
    def funnel(self) -> list[tuple[str, int | None]]:
        """Its 1-based place after each step: voices (best), fusion, decay, confidence, MMR."""
        best_voice = min(self.voices.values()) if self.voices else None
        return [("voices", best_voice), ("fusion", self.fusion_rank), ("decay", self.decay_rank),
                ("confidence", self.score_rank), ("mmr", self.rank)]


def diagnose(result: SearchResult, targets: Iterable[str], top_k: int = TOP_K) -> dict[str, Loss]:
    """Each target's ``Loss`` in a hybrid ``result`` (its candidates must be there)."""
    cands = result.candidates
    index = {c.id: i for i, c in enumerate(cands)}
    places = {h.id: n + 1 for n, h in enumerate(result.hits)}
    chosen = {h.id: h for h in result.hits}
    rrf_rank = rank_desc([c.rrf or 0.0 for c in cands])
    decay_rank = rank_desc([(c.rrf or 0.0) * (c.decay_factor or 0.0) * c.boost for c in cands])
    undecayed = [(c.rrf or 0.0) * (c.confidence_factor or 0.0) * c.boost for c in cands]
    undecayed_rank = rank_desc(undecayed)
    out: dict[str, Loss] = {}
    for target in targets:
        i = index.get(target)
        if i is None:
            out[target] = Loss(target, "not_candidate", candidates=len(cands))
            continue
        c = cands[i]
        score_rank = (c.score_rank or 0) - 1
        numbers: dict[str, Any] = dict(
            voices={name: share.rank for name, share in c.voices.items()}, rrf=c.rrf, decay=c.decay,
            decay_factor=c.decay_factor, confidence_factor=c.confidence_factor, score=c.score,
            undecayed=undecayed[i], fusion_rank=rrf_rank[i] + 1, decay_rank=decay_rank[i] + 1,
            score_rank=score_rank + 1, undecayed_rank=undecayed_rank[i] + 1, candidates=len(cands),
            created_at=c.created_at,
        )
        if target in places:
            hit = chosen[target]
            out[target] = Loss(target, "found", rank=places[target], mmr_value=hit.mmr_value,
                               mmr_similarity=hit.mmr_similarity, mmr_penalty=hit.mmr_penalty,
                               mmr_against=hit.mmr_against, **numbers)
        elif score_rank < top_k:
            sim, against = _closest(c, result.hits)
            penalty = (1.0 - MMR_LAMBDA) * sim
            out[target] = Loss(target, "mmr", mmr_similarity=sim, mmr_penalty=penalty,
                               mmr_value=MMR_LAMBDA * (c.score or 0.0) - penalty, mmr_against=against, **numbers)
        elif undecayed_rank[i] < top_k:
            out[target] = Loss(target, "decay", **numbers)
        else:
            out[target] = Loss(target, "fusion", **numbers)
    return out


def _closest(candidate: SearchHit, chosen: Sequence[SearchHit]) -> tuple[float, str | None]:
    """The chosen hit most similar to ``candidate`` (MMR's token Jaccard on topic + content)."""
    mine = whitespace_tokens(f"{candidate.topic} {candidate.content}")
    best, against = 0.0, None
    for hit in chosen:
        s = jaccard(mine, whitespace_tokens(f"{hit.topic} {hit.content}"))
        if s > best:
            best, against = s, hit.id
    return best, against


def lost_at(result: SearchResult, target: str, top_k: int = TOP_K) -> Loss:
    return diagnose(result, [target], top_k)[target]


__all__ = ["STAGES", "STAGE_WORDS", "Loss", "diagnose", "lost_at"]
