"""Corrections that lose: two active facts that are semantically close (cosine ≥
``CORRECTION_COSINE``), disagree (``disagree``), were never recorded as a conflict, and
where the **older** one ranks above the newer in the agent's hybrid recall for the newer
one's topic (the recall audit's ``Searcher`` and ``search.loss`` ranks). A candidate for a
person to judge, never a verdict: the finding gives the similarity, the cue, both ranks
and both dates.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from sqlalchemy import Connection, or_, select

from memorydesk.browse.review import recall
from memorydesk.browse.review.disagree import disagreement
from memorydesk.browse.review.duplicates import FactText
from memorydesk.core.review.finding import Finding
from memorydesk.core.review.secrets import mask_secrets
from memorydesk.search.audit import Searcher
from memorydesk.search.loss import Loss, diagnose
from memorydesk.store import Workspace

CORRECTION_COSINE = 0.85
_CHUNK = 400


def recorded_pairs(ws: Workspace, conn: Connection, ids: Iterable[str]) -> set[tuple[str, str]]:
    """Pairs (sorted) among ``ids`` that a conflict row names."""
    c = ws.layout.conflicts
    ids = list(dict.fromkeys(ids))
    out: set[tuple[str, str]] = set()
    for at in range(0, len(ids), _CHUNK):
        chunk = ids[at:at + _CHUNK]
        for a, b in conn.execute(select(c.c.fact_a_id, c.c.fact_b_id).where(
                or_(c.c.fact_a_id.in_(chunk), c.c.fact_b_id.in_(chunk)))).all():
            out.add((a, b) if a < b else (b, a))
    return out


def candidates(pairs: dict[tuple[str, str], float], facts: dict[str, FactText],
               recorded: set[tuple[str, str]], cues: dict[tuple[str, str], str] | None = None,
               ) -> list[tuple[FactText, FactText, float, str]]:
    """(older, newer, cosine, cue) for close, disagreeing pairs no conflict names (``cues``: the
    disagreement already worked out per pair)."""
    out = []
    for (a, b), cosine in pairs.items():
        if cosine < CORRECTION_COSINE or (a, b) in recorded:
            continue
        fa, fb = facts[a], facts[b]
        if fa.created_at == fb.created_at:
            continue
        cue = cues[(a, b)] if cues is not None and (a, b) in cues else \
            disagreement(fa.content, fb.content, fa.topic, fb.topic)
        if cue is None:
            continue
        older, newer = (fa, fb) if fa.created_at < fb.created_at else (fb, fa)
        out.append((older, newer, cosine, cue))
    return out


def outranks(older: Loss, newer: Loss) -> bool:
    """The older comes back above the newer, or comes back and the newer does not; when neither comes
    back, the older has the better score before MMR (MMR would pick it first)."""
    if older.rank is not None:
        return newer.rank is None or older.rank < newer.rank
    if newer.rank is not None or older.score_rank is None:
        return False
    return newer.score_rank is None or older.score_rank < newer.score_rank


def _place(loss: Loss) -> str:
    if loss.rank is not None:
        return f"#{loss.rank}"
    if loss.score_rank is not None:
        return f"nowhere (#{loss.score_rank} by score, lost at {loss.stage})"
    return f"nowhere ({loss.stage})"


def losing(cands: list[tuple[FactText, FactText, float, str]], searcher: Searcher, fingerprint_of,
           *, budget_s: float, cancelled: Callable[[], bool] | None = None) -> tuple[list[Finding], list]:
    """The candidates where the older fact outranks the newer for the newer one's topic; and the
    candidates left unchecked when the time ran out."""
    started = time.monotonic()
    out = []
    order = sorted(cands, key=lambda c: -c[2])
    for n, (older, newer, cosine, cue) in enumerate(recall.ahead(searcher, order, lambda c: (c[1].topic,))):
        if time.monotonic() - started > budget_s or (cancelled is not None and cancelled()):
            return out, order[n:]
        result = searcher.result(newer.topic)
        losses = diagnose(result, [older.id, newer.id])
        lo, ln = losses[older.id], losses[newer.id]
        if not outranks(lo, ln):
            continue
        evidence = {
            "older": {"id": older.id, "topic": mask_secrets(older.topic), "content": mask_secrets(older.content)[:500],
                      "domain": older.domain,
                      "created_at": older.created_at, "rank": lo.rank, "score_rank": lo.score_rank,
                      "lost_at": lo.stage},
            "newer": {"id": newer.id, "topic": mask_secrets(newer.topic), "content": mask_secrets(newer.content)[:500],
                      "domain": newer.domain,
                      "created_at": newer.created_at, "rank": ln.rank, "score_rank": ln.score_rank,
                      "lost_at": ln.stage},
            "cosine": round(cosine, 4), "cue": cue, "query": mask_secrets(newer.topic),
            "says": (f"similar (cosine {cosine:.2f}) and disagreeing ({cue}); no conflict was recorded; for the "
                     f"newer fact's topic the agent's recall places the older one {_place(lo)} and the newer "
                     f"{_place(ln)}. A candidate for a person to judge, not a verdict."),
        }
        out.append(Finding("losing_correction", "medium", "fact", newer.id, "content", evidence, "open",
                           newer.domain, f"older fact outranks its correction: {mask_secrets(newer.topic)[:60]}",
                           fingerprint_of(older.id, newer.id), [older.id]))
    return out, []
