"""Retrieval and dispatch over the tiers of one lane, with ``retrieval`` and
``generation`` receipts when called with a run id (docs/receipts.md).

Retrieval only ever looks inside the asking lane (user scope × assistant scope):
its STM items, the pages of its MTM segments, and its durable facts. Segments it
returns are visited (``N_visit`` + 1), which is what heats them towards LPM.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from sqlalchemy import and_, select

from memorydesk.lineage import receipt_store
from memorydesk.lineage.tiers import LPM_DOMAIN, PAGES, SEGMENTS, VERSIONS, TierEngine, newest_version
from memorydesk.memory.rows import read_json_list
from memorydesk.store.retry import with_retry

_TOKEN = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Recalled:
    tier: str
    id: str
    version: str
    content: str


@dataclass
class Retrieval:
    memories: list[Recalled] = field(default_factory=list)

    @property
    def version(self) -> str | None:
        return newest_version([m.version for m in self.memories])


def _tokens(text: str) -> set[str]:
    return {t.lower() for t in _TOKEN.findall(text)}


def _lane_memories(engine: TierEngine, conn, user: str, assistant: str) -> list[tuple[Recalled, str | None]]:
    ws = engine.ws
    found: list[tuple[Recalled, str | None]] = [
        (Recalled("stm", r.id, r.version, r.content), None) for r in engine.stm_items(conn, user, assistant)]
    pages = conn.execute(select(PAGES, SEGMENTS.c.id.label("seg")).join(SEGMENTS, SEGMENTS.c.id == PAGES.c.segment_id)
                         .where(and_(SEGMENTS.c.user_scope == user, SEGMENTS.c.assistant_scope == assistant))).all()
    found += [(Recalled("mtm", p.id, p.version, p.content), p.seg) for p in pages]
    facts = ws.layout.facts
    rows = conn.execute(select(facts.c.id, facts.c.content, facts.c.source_observation_ids).where(and_(
        facts.c.domain == LPM_DOMAIN, facts.c.topic == user, facts.c.authored_by_agent_id == assistant,
        facts.c.superseded_by.is_(None)))).all()
    sources = {s for r in rows for s in read_json_list(r.source_observation_ids)}
    versions = dict(conn.execute(select(VERSIONS.c.item_id, VERSIONS.c.version)
                                 .where(VERSIONS.c.item_id.in_(sources))).all()) if sources else {}
    for r in rows:
        known = [versions[s] for s in read_json_list(r.source_observation_ids) if s in versions]
        if known:
            found.append((Recalled("lpm", r.id, newest_version(known) or known[0], r.content), None))
    return found


def retrieve(engine: TierEngine, user: str, assistant: str, query: str, *, run_id: str | None = None,
             expected_version: str | None = None, limit: int = 10) -> Retrieval:
    wanted = _tokens(query)
    with engine.ws.read() as conn:
        candidates = _lane_memories(engine, conn, user, assistant)
    scored = [(len(wanted & _tokens(m.content)), m, seg) for m, seg in candidates]
    hits = [(s, m, seg) for s, m, seg in scored if s > 0 or not wanted]
    hits.sort(key=lambda h: -h[0])
    hits = hits[:limit]
    result = Retrieval([m for _, m, _ in hits])
    visited = sorted({seg for _, _, seg in hits if seg})
    now = engine.clock()
    if not visited and not (run_id and result.memories) or engine.ws.read_only:
        return result

    def work(conn) -> None:
        for seg in visited:
            conn.execute(SEGMENTS.update().where(SEGMENTS.c.id == seg).values(
                n_visit=SEGMENTS.c.n_visit + 1, last_visit_at=int(now)))
        if run_id and result.memories:
            receipt_store.insert(conn, [engine.receipt(run_id, user, assistant, "retrieval", "verified",
                                                       result.version, now, expected_version=expected_version)])

    with_retry(engine.ws, work)
    return result


@dataclass(frozen=True)
class Dispatch:
    context: str
    depends_on: str | None
    outcome: str


def dispatch(engine: TierEngine, user: str, assistant: str, task: str, *, run_id: str | None = None) -> Dispatch:
    """Build what the assistant is handed for ``task`` from its lane's memory."""
    found = retrieve(engine, user, assistant, task, run_id=run_id)
    lines = [f"- [{m.tier}/{m.version}] {m.content}" for m in found.memories]
    context = "## Memory\n" + "\n".join(lines) if lines else ""
    outcome = "sha256:" + hashlib.sha256(json.dumps([task, context]).encode()).hexdigest()
    if run_id and found.version and not engine.ws.read_only:
        now = engine.clock()
        with_retry(engine.ws, lambda conn: receipt_store.insert(conn, [engine.receipt(
            run_id, user, assistant, "generation", "committed", found.version, now,
            depends_on_version=found.version, outcome_receipt=outcome)]))
    return Dispatch(context, found.version, outcome)
