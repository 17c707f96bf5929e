"""The recall audit: ask the agent's hybrid recall for each fact's own topic and say where
it lost the fact (``search.loss``), for a whole workspace or a sample of it, or for the
questions people collected; and the same under named what-ifs (``core.product.fusion.VARIANTS``),
which are NOT what the product does and never change the agent's ranking.

Read-only: searches are previews (no recall is recorded). Queries repeat (many facts share
a topic), so each distinct query is searched once per variant.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import literal_column, select

from memorydesk.core.errors import BadInput
from memorydesk.core.product.fusion import PRODUCT, TOP_K, VARIANTS, Variant
from memorydesk.core.product.vocab import parse_memory_type, parse_veracity
from memorydesk.search.agent import SearchResult, keyword_search, nearest_ids, search
from memorydesk.search.ahead import AHEAD, Ahead
from memorydesk.search.copies import follow
from memorydesk.search.keyword import is_keyword_reachable
from memorydesk.search.loss import STAGES, Loss, diagnose
from memorydesk.store.workspace import Workspace

AGE_BUCKETS = ((24, "under a day"), (24 * 7, "1–7 days"), (24 * 30, "7–30 days"), (24 * 90, "30–90 days"),
               (math.inf, "over 90 days"))


@dataclass(frozen=True)
class FactInfo:
    id: str
    topic: str
    content: str
    domain: str
    memory_type: str
    veracity: str
    created_at: int
    has_embedding: bool

    @property
    def keyword_reachable(self) -> bool:
        return is_keyword_reachable(self.topic, self.content)

    @property
    def reachable(self) -> bool:
        """Some query path can match it: a keyword term, or an embedding."""
        return self.has_embedding or self.keyword_reachable


@dataclass
class Audited:
    fact: FactInfo
    query: str
    loss: Loss
    what_if: dict[str, Loss] = field(default_factory=dict)

    def to_json(self, now: float) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.fact.id, "query": self.query, "rank": self.loss.rank,
                               "lost_at": self.loss.stage, "domain": self.fact.domain,
                               "memory_type": parse_memory_type(self.fact.memory_type).value,
                               "veracity": parse_veracity(self.fact.veracity).value,
                               "age_days": round(max(0.0, now - self.fact.created_at) / 86400, 2),
                               "reachable": self.fact.reachable}
        out.update({k: v for k, v in self.loss.to_json().items() if k not in ("target", "stage", "rank")})
        if self.what_if:
            out["what_if"] = {name: {"rank": loss.rank, "lost_at": loss.stage} for name, loss in self.what_if.items()}
        return out


Progress = Callable[[int, int], None]


class Searcher:
    """Hybrid searches for one audit: one clock, each (variant, query) searched once.

    ``prepare`` readies the vector voice of a batch of coming queries at once (``search.ahead``);
    each search is still the agent's own ``search``, given those same vectors.
    """

    def __init__(self, ws: Workspace, now: float) -> None:
        self.ws, self.now = ws, now
        self._done: dict[tuple[str, str], SearchResult] = {}
        self._ahead = Ahead(ws)

    def prepare(self, queries: Iterable[str]) -> None:
        self._ahead.prepare([q for q in queries if (PRODUCT.name, q) not in self._done])
        follow.prepare_graph(self.ws)  # the graph voice's edges beside the copies, at this version

    def result(self, query: str, variant: Variant = PRODUCT) -> SearchResult:
        key = (variant.name, query)
        found = self._done.get(key)
        if found is None:
            found = self._done[key] = search(self.ws, query, mode="hybrid", now=self.now, limit=TOP_K,
                                             variant=variant, embedder=self._ahead.embedder())
        return found

    def loss(self, query: str, target: str, variant: Variant = PRODUCT) -> Loss:
        return diagnose(self.result(query, variant), [target])[target]


def variants(names: Iterable[str]) -> list[Variant]:
    out = []
    for name in names:
        if name not in VARIANTS:
            raise BadInput(f"--what-if: unknown alternative {name!r}; choose from {', '.join(VARIANTS)}")
        out.append(VARIANTS[name])
    return out


# --- the facts ------------------------------------------------------------------------------


def _facts(ws: Workspace, ids: Sequence[str] | None = None) -> list[FactInfo]:
    f = ws.layout.facts
    stmt = select(f.c.id, f.c.topic, f.c.content, f.c.domain, f.c.memory_type, f.c.veracity, f.c.created_at,
                  f.c.embedding.is_not(None)).where(f.c.superseded_by.is_(None), f.c.workspace_id == ws.workspace_id)
    out = []
    with ws.read() as conn:
        if ids is None:
            rows = conn.execute(stmt.order_by(literal_column("rowid"))).all()
        else:
            rows = []
            for at in range(0, len(ids), 500):
                rows += conn.execute(stmt.where(f.c.id.in_(list(ids[at:at + 500])))).all()
    for r in rows:
        out.append(FactInfo(r[0], r[1] or "", r[2] or "", r[3] or "", r[4] or "", r[5] or "", int(r[6] or 0),
                            bool(r[7])))
    return out


def sample_facts(ws: Workspace, sample: int | None, seed: int) -> list[FactInfo]:
    """Every active fact (in the order written), or a seeded random sample of ``sample`` of them."""
    if sample is not None and sample <= 0:
        raise BadInput(f"--sample must be 1 or more, not {sample}")
    f = ws.layout.facts
    with ws.read() as conn:
        ids = list(conn.execute(select(f.c.id).where(f.c.superseded_by.is_(None),
                                                     f.c.workspace_id == ws.workspace_id)
                                .order_by(literal_column("rowid"))).scalars())
    if sample is not None and sample < len(ids):
        ids = random.Random(seed).sample(ids, sample)
    by_id = {fact.id: fact for fact in _facts(ws, ids)}
    return [by_id[i] for i in ids if i in by_id]


# --- the audit ------------------------------------------------------------------------------


def audit_facts(ws: Workspace, facts: Sequence[FactInfo], *, what_if: Sequence[Variant] = (),
                now: float | None = None, progress: Progress | None = None,
                cancelled: Callable[[], bool] | None = None) -> list[Audited]:
    """Each fact searched for by its own topic, and where it was lost (and under each what-if)."""
    searcher = Searcher(ws, time.time() if now is None else now)
    out: list[Audited] = []
    for n, fact in enumerate(facts):
        if cancelled is not None and cancelled():
            break
        if n % AHEAD == 0:
            searcher.prepare(f.topic for f in facts[n : n + AHEAD])
        query = fact.topic
        item = Audited(fact, query, searcher.loss(query, fact.id))
        for variant in what_if:
            item.what_if[variant.name] = searcher.loss(query, fact.id, variant)
        out.append(item)
        if progress is not None and (n % 25 == 0 or n + 1 == len(facts)):
            progress(n + 1, len(facts))
    return out


def _recall(items: Sequence[Audited], found: Callable[[Audited], bool]) -> dict[str, Any]:
    n = len(items)
    k = sum(1 for i in items if found(i))
    return {"facts": n, "found": k, "recall_at_10": round(k / n, 4) if n else None}


def _age_bucket(fact: FactInfo, now: float) -> str:
    hours = max(0.0, now - fact.created_at) / 3600
    return next(label for limit, label in AGE_BUCKETS if hours < limit)


def summarize(items: Sequence[Audited], now: float, what_if: Sequence[Variant] = ()) -> dict[str, Any]:
    """recall@10 overall and by domain, type, age and veracity; stages; unreachable facts; what-ifs."""
    found = lambda i: i.loss.stage == "found"  # noqa: E731
    summary: dict[str, Any] = _recall(items, found)
    summary["stages"] = {stage: count for stage in STAGES
                         if (count := sum(1 for i in items if i.loss.stage == stage))}
    groups: dict[str, Callable[[Audited], str]] = {
        "by_domain": lambda i: i.fact.domain,
        "by_memory_type": lambda i: parse_memory_type(i.fact.memory_type).value,
        "by_age": lambda i: _age_bucket(i.fact, now),
        "by_veracity": lambda i: parse_veracity(i.fact.veracity).value,
    }
    for name, key in groups.items():
        buckets: dict[str, list[Audited]] = defaultdict(list)
        for item in items:
            buckets[key(item)].append(item)
        order = [label for _limit, label in AGE_BUCKETS] if name == "by_age" else sorted(buckets)
        summary[name] = {label: _recall(buckets[label], found) for label in order if label in buckets}
    unreachable = [i.fact.id for i in items if not i.fact.reachable]
    summary["unreachable"] = {"count": len(unreachable), "ids": unreachable}
    if what_if:
        summary["what_if"] = {}
        for variant in what_if:
            lost = [i for i in items if i.loss.stage != "found"]
            back = sum(1 for i in lost if i.what_if[variant.name].stage == "found")
            gone = sum(1 for i in items if i.loss.stage == "found" and i.what_if[variant.name].stage != "found")
            summary["what_if"][variant.name] = {
                **_recall(items, lambda i, v=variant.name: i.what_if[v].stage == "found"),
                "brought_back": back, "newly_lost": gone,
                "stages": dict(Counter(i.what_if[variant.name].stage for i in items)),
            }
    return summary


def audit_workspace(ws: Workspace, *, sample: int | None = None, seed: int = 0, what_if: Sequence[str] = (),
                    now: float | None = None, progress: Progress | None = None,
                    cancelled: Callable[[], bool] | None = None) -> dict[str, Any]:
    """``memory-desk audit recall WORKSPACE``: ``{"summary": …, "facts": […]}`` in sample order."""
    clock = time.time() if now is None else now
    chosen = variants(what_if)
    facts = sample_facts(ws, sample, seed)
    items = audit_facts(ws, facts, what_if=chosen, now=clock, progress=progress, cancelled=cancelled)
    summary = summarize(items, clock, chosen)
    summary.update(sampled=len(facts), seed=seed if sample is not None else None,
                   complete=len(items) == len(facts), now=clock)
    return {"summary": summary, "facts": [i.to_json(clock) for i in items]}



def audit_ids(ws: Workspace, ids: Sequence[str], *, what_if: Sequence[str] = (), now: float | None = None,
              progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> dict[str, Any]:
    """As ``audit_workspace``, for the facts ``ids`` that are still active, in that order (a kept run's
    sample asked again: the gate of ``audit recall --baseline``)."""
    clock = time.time() if now is None else now
    chosen = variants(what_if)
    by_id = {fact.id: fact for fact in _facts(ws, list(ids))}
    facts = [by_id[i] for i in dict.fromkeys(ids) if i in by_id]
    items = audit_facts(ws, facts, what_if=chosen, now=clock, progress=progress, cancelled=cancelled)
    summary = summarize(items, clock, chosen)
    summary.update(sampled=len(facts), seed=None, complete=len(items) == len(facts), now=clock)
    return {"summary": summary, "facts": [i.to_json(clock) for i in items]}

# --- what the agent misses for one query ----------------------------------------------------


def best_missed(ws: Workspace, result: SearchResult) -> dict[str, str]:
    """The best keyword match and the best semantic (nearest-embedding) match of the query
    that are not among the hybrid hits: ``{"keyword": id, "semantic": id}`` (either may be
    absent)."""
    shown = set(result.ids)
    out: dict[str, str] = {}
    for fid in keyword_search(ws, result.query).ids:
        if fid not in shown:
            out["keyword"] = fid
            break
    for fid in nearest_ids(ws, result.query):
        if fid not in shown:
            out["semantic"] = fid
            break
    return out


# --- people's own questions -----------------------------------------------------------------


def load_queries(path: str | Path) -> list[tuple[str, list[str]]]:
    """A questions file (``-``: standard input): UTF-8 (a byte-order mark is fine), at most
    ``QUERIES_MAX`` bytes, strict JSON; never a FIFO or a device. One ``BadInput`` otherwise."""
    from memorydesk.core.inputs import QUERIES_MAX, decode_utf8, read_input, strict_json

    what = "--queries" if str(path) == "-" else f"--queries {path}"
    data = strict_json(decode_utf8(read_input(path, "--queries", QUERIES_MAX), what), what)
    try:
        return read_queries(data)
    except BadInput as exc:  # name the file the entry is in
        raise BadInput(str(exc).replace("--queries:", f"{what}:", 1)) from None


def read_queries(data: Any) -> list[tuple[str, list[str]]]:
    """``[{"query": "...", "expect": [fact ids]}, …]`` checked, in order."""
    if not isinstance(data, list):
        raise BadInput("--queries: expected a JSON list of {\"query\": text, \"expect\": [fact ids]}")
    out = []
    for n, entry in enumerate(data, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("query"), str):
            raise BadInput(f"--queries: entry {n} has no \"query\" text")
        expect = entry.get("expect", [])
        if not isinstance(expect, list) or not all(isinstance(x, str) for x in expect):
            raise BadInput(f"--queries: entry {n}: \"expect\" must be a list of fact ids")
        if not entry["query"].strip():
            raise BadInput(f"--queries: entry {n}: the query is empty")
        out.append((entry["query"], expect))
    return out


def audit_queries(ws: Workspace, queries: Sequence[tuple[str, list[str]]], *, what_if: Sequence[str] = (),
                  now: float | None = None, progress: Progress | None = None,
                  cancelled: Callable[[], bool] | None = None) -> dict[str, Any]:
    """One result per (query, expected fact): ``{"query", "target", "rank", "lost_at", …}``."""
    clock = time.time() if now is None else now
    chosen = variants(what_if)
    searcher = Searcher(ws, clock)
    results = []
    for n, (query, expect) in enumerate(queries):
        if cancelled is not None and cancelled():
            break
        if n % AHEAD == 0:
            searcher.prepare(q for q, _ in queries[n : n + AHEAD])
        losses = diagnose(searcher.result(query), expect)
        for target in expect:
            loss = losses[target]
            entry = {"query": query, "target": target, "rank": loss.rank, "lost_at": loss.stage}
            entry.update({k: v for k, v in loss.to_json().items() if k not in ("target", "stage", "rank")})
            if chosen:
                entry["what_if"] = {}
                for variant in chosen:
                    other = searcher.loss(query, target, variant)
                    entry["what_if"][variant.name] = {"rank": other.rank, "lost_at": other.stage}
            results.append(entry)
        if progress is not None:
            progress(n + 1, len(queries))
    found = sum(1 for r in results if r["lost_at"] == "found")
    summary = {"targets": len(results), "found": found,
               "recall_at_10": round(found / len(results), 4) if results else None,
               "stages": dict(Counter(r["lost_at"] for r in results)), "now": clock}
    return {"summary": summary, "results": results}


__all__ = ["AGE_BUCKETS", "Audited", "FactInfo", "Searcher", "audit_facts", "audit_ids", "best_missed", "audit_queries",
           "audit_workspace", "read_queries", "sample_facts", "summarize", "variants"]
