"""Near-duplicate clusters of active facts, and what the duplication costs in recall.

Facts whose embeddings are at cosine ≥ the threshold (default 0.92, the setting
``review/duplicate_cosine``) are linked, pairs that disagree (``disagree``: those are
corrections, not copies) left out, and linked facts grouped. For each cluster, each
member is looked for by its own topic in the agent's hybrid recall (the recall audit's
``Searcher`` and stage, ``search.loss``): when MMR drops a member because another member
was chosen, the duplication costs that fact its place, and the finding says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from memorydesk.browse.review import recall
from memorydesk.core.review.finding import Finding
from memorydesk.core.review.secrets import mask_secrets
from memorydesk.core.worddiff import word_diff
from memorydesk.search.audit import Searcher

DUPLICATE_COSINE = 0.92
MAX_SHOWN = 12  # members given with their text in the evidence (every id is in "cluster")


@dataclass(frozen=True)
class FactText:
    id: str
    topic: str
    content: str
    domain: str
    created_at: int
    memory_type: str


def _diff(a: str, b: str) -> dict[str, list[list[str]]]:
    """Both texts as pieces ``[kind, text]`` (``same``, ``removed``: only in a, ``added``: only in b)."""
    left, right = word_diff(a, b)
    return {"a": [[p.kind, p.text] for p in left], "b": [[p.kind, p.text] for p in right]}


def cluster_finding(members: list[FactText], cosines: dict[tuple[str, str], float], fingerprint: str) -> Finding:
    members = sorted(members, key=lambda f: (-f.created_at, f.id))
    newest = members[0]
    shown = [{"id": f.id, "domain": f.domain, "topic": mask_secrets(f.topic), "content": mask_secrets(f.content)[:500],
              "created_at": f.created_at} for f in members[:MAX_SHOWN]]
    diffs = [{"a": newest.id, "b": f.id, "cosine": round(cosines.get(_key(newest.id, f.id), 0.0), 4),
              "diff": _diff(mask_secrets(newest.content)[:2000], mask_secrets(f.content)[:2000])}
             for f in members[1:MAX_SHOWN]]
    evidence = {"cluster": [f.id for f in members], "members": shown, "diffs": diffs,
                "min_cosine": round(min(cosines.values()), 4) if cosines else None,
                "mmr": {"checked": False}}
    domains = sorted({f.domain for f in members})
    return Finding("duplicate", "low", "fact", newest.id, "content", evidence, "open", ", ".join(domains)[:120],
                   f"{len(members)} near-duplicate facts: {mask_secrets(newest.topic)[:60]}", fingerprint,
                   [f.id for f in members[1:]])


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def check_mmr(finding: Finding, members: dict[str, FactText], searcher: Searcher) -> None:
    """Whether MMR drops a member for its own topic because another member was chosen; medium if so."""
    cluster = set(finding.evidence["cluster"])
    dropped = []
    for fid in finding.evidence["cluster"]:
        fact = members[fid]
        loss = searcher.loss(fact.topic, fid)
        if loss.stage == "mmr" and loss.mmr_against in cluster:
            dropped.append({"id": fid, "query": mask_secrets(fact.topic), "dropped_for": loss.mmr_against,
                            "similarity": round(loss.mmr_similarity or 0.0, 3), "score_rank": loss.score_rank})
    finding.evidence["mmr"] = {"checked": True, "dropped": dropped,
                               "says": (f"MMR drops {len(dropped)} member(s) from the agent's top 10 for their own "
                                        "topic because another member was chosen" if dropped else
                                        "MMR drops no member for its own topic")}
    if dropped:
        finding.severity = "medium"


def check_all(findings: list[Finding], facts: dict[str, FactText], searcher: Searcher, *, budget_s: float,
              cancelled: Callable[[], bool] | None = None) -> int:
    """MMR checks, largest clusters first, within ``budget_s`` seconds; returns how many were left unchecked."""
    started = time.monotonic()
    order = sorted(findings, key=lambda f: -len(f.evidence["cluster"]))
    topics = lambda f: [facts[fid].topic for fid in f.evidence["cluster"]]  # noqa: E731
    for n, finding in enumerate(recall.ahead(searcher, order, topics)):
        if time.monotonic() - started > budget_s or (cancelled is not None and cancelled()):
            for rest in order[n:]:
                rest.evidence["mmr"] = {"checked": False,
                                        "says": "not checked: the scan's time for recall checks ran out"}
            return len(order) - n
        check_mmr(finding, facts, searcher)
    return 0
