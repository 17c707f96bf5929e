"""The tier engine: STM → MTM → LPM with a receipt at every boundary (docs/receipts.md).

STM is the product's hot tier (``working_memory_items_table``: ``agent_id`` = the
assistant scope, ``session_id`` = the user scope), MTM our segments and pages, LPM the
durable facts (domain ``working-memory``, topic = user scope, author = assistant).
Each memory gets a version ``v<n>`` from its lane's counter and keeps the run it was
remembered in; every receipt about it is filed under that run.

A promotion is ONE transaction: the target is written, the source removed and the
receipts recorded together. Anything slow (summarising, embedding) runs before it
starts, while the source is still durable; if the source is gone by then (another
process promoted it), the promotion does nothing.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection, and_, literal_column, select

from memorydesk import SOURCE_VERSION, testpoints
from memorydesk.core.product.text import jaccard
from memorydesk.core.receipts import Receipt
from memorydesk.embedding.embedder import fact_vectors
from memorydesk.lineage import receipt_store
from memorydesk.lineage.summarizer import LocalSummarizer, Summarizer
from memorydesk.memory import facts as fact_rules
from memorydesk.memory.rows import new_id
from memorydesk.store import Workspace
from memorydesk.store.ours import LPM_DOMAIN, DeskLane, DeskMemoryVersion, DeskPage, DeskSegment
from memorydesk.store.retry import with_retry

LANES, VERSIONS = DeskLane.__table__, DeskMemoryVersion.__table__
SEGMENTS, PAGES = DeskSegment.__table__, DeskPage.__table__
BREAK_PROMOTION_ENV = "MEMORYDESK_TEST_BREAK_PROMOTION"  # test hook: drop the source, skip the target


@dataclass(frozen=True)
class TierConfig:
    stm_capacity: int = 5  # per lane; the oldest item moves on when a new one overflows it
    waiting_window_s: int = 24 * 3600  # declared on STM receipts: promotion expected within it
    heat_threshold: float = 5.0  # MTM → LPM when N_visit + L_interaction + R_recency reaches it
    segment_match: float = 0.3  # keyword Jaccard at which a page joins an existing segment


def newest_version(versions: list[str]) -> str | None:
    """The highest ``v<n>`` (our lanes number their versions); None for no versions."""
    def number(version: str) -> int:
        digits = version.lstrip("v")
        return int(digits) if digits.isdigit() else -1

    return max(versions, key=number) if versions else None


def heat(n_visit: int, l_interaction: int, last_visit_at: float, now: float) -> float:
    """``N_visit + L_interaction + R_recency`` with ``R = exp(-Δhours / 24)``."""
    return n_visit + l_interaction + math.exp(-max(0.0, now - last_visit_at) / 3600 / 24)


class TierEngine:
    def __init__(self, ws: Workspace, config: TierConfig | None = None, summarizer: Summarizer | None = None,
                 clock: Callable[[], float] = time.time, embedder=False, canary: bool = False) -> None:
        self.ws, self.config, self.clock = ws, config or TierConfig(), clock
        self.summarizer = summarizer or LocalSummarizer()
        self._embedder = embedder
        self.canary = canary

    # -- receipts --------------------------------------------------------------------------------
    def receipt(self, run_id: str, user: str, assistant: str, tier: str, status: str, version: str,
                now: float, **extra) -> Receipt:
        """One receipt, with a ``receiptId`` of its own: two events alike in every field (two
        retrievals of one version in one second) stay two receipts wherever they are ingested."""
        return Receipt(run_id=run_id, user_scope=user, assistant_scope=assistant, tier=tier, status=status,
                       version=version, at_utc=datetime.fromtimestamp(int(now), UTC), source_version=SOURCE_VERSION,
                       canary=True if self.canary else None,
                       receipt_id=f"{run_id}/{tier}/{version}/{status}/{secrets.token_hex(6)}", **extra)

    # -- STM -------------------------------------------------------------------------------------
    def remember(self, user: str, assistant: str, content: str, *, run_id: str, memory_type: str = "observation",
                 veracity: str = "inferred", importance: float = 0.5) -> tuple[str, str]:
        """Write a short-term item; returns (item id, version). Overflow moves the oldest on."""
        now = self.clock()

        def work(conn: Connection) -> tuple[str, str]:
            version = f"v{self._next_version(conn, user, assistant)}"
            item_id = new_id()
            conn.execute(self.ws.layout.items.insert().values(
                id=item_id, workspace_id=self.ws.workspace_id, agent_id=assistant, session_id=user, content=content,
                memory_type=memory_type, veracity=veracity, importance=importance, created_at=int(now)))
            conn.execute(VERSIONS.insert().values(item_id=item_id, run_id=run_id, user_scope=user,
                                                  assistant_scope=assistant, version=version))
            waiting = datetime.fromtimestamp(int(now + self.config.waiting_window_s), UTC)
            receipt_store.insert(conn, [self.receipt(run_id, user, assistant, "stm", "committed", version, now,
                                                     source_present=True, waiting_until=waiting)])
            testpoints.reached("tiers.stm")  # before the commit
            return item_id, version

        result = with_retry(self.ws, work)
        self.promote_overflow(user, assistant)
        return result

    def _next_version(self, conn: Connection, user: str, assistant: str) -> int:
        lane = and_(LANES.c.user_scope == user, LANES.c.assistant_scope == assistant)
        last = conn.execute(select(LANES.c.last_version).where(lane)).scalar()
        if last is None:
            conn.execute(LANES.insert().values(user_scope=user, assistant_scope=assistant, last_version=1))
            return 1
        conn.execute(LANES.update().where(lane).values(last_version=last + 1))
        return last + 1

    def stm_items(self, conn: Connection, user: str, assistant: str):
        items = self.ws.layout.items
        return conn.execute(select(items, VERSIONS.c.version, VERSIONS.c.run_id)
                            .join(VERSIONS, VERSIONS.c.item_id == items.c.id)
                            .where(and_(items.c.agent_id == assistant, items.c.session_id == user))
                            .order_by(items.c.created_at, literal_column(f"{items.name}.rowid"))).all()

    def promote_overflow(self, user: str, assistant: str, keep: int | None = None) -> int:
        """Move the oldest short-term items on until the lane holds ``keep`` (its capacity unless
        told); returns how many moved."""
        keep = self.config.stm_capacity if keep is None else keep
        moved = 0
        while True:
            with self.ws.read() as conn:
                items = self.stm_items(conn, user, assistant)
            if len(items) <= keep:
                return moved
            if self.promote_to_mtm(items[0].id) is None:
                return moved
            moved += 1

    def drain(self, user: str, assistant: str) -> int:
        """Move every short-term item of the lane on to MTM, each a promotion with its receipts: a
        lane that is closed (the canary's, before its memories are removed) ends with no run left
        waiting for a promotion that could no longer come."""
        return self.promote_overflow(user, assistant, keep=0)

    # -- STM → MTM -------------------------------------------------------------------------------
    def promote_to_mtm(self, item_id: str) -> str | None:
        """Move one short-term item into a segment; returns the page id (None if it was gone)."""
        items = self.ws.layout.items
        with self.ws.read() as conn:
            item = conn.execute(select(items, VERSIONS.c.version, VERSIONS.c.run_id, VERSIONS.c.user_scope,
                                       VERSIONS.c.assistant_scope)
                                .join(VERSIONS, VERSIONS.c.item_id == items.c.id)
                                .where(items.c.id == item_id)).first()
            if item is None:
                return None
            segments = conn.execute(select(SEGMENTS.c.id, SEGMENTS.c.keywords).where(and_(
                SEGMENTS.c.user_scope == item.user_scope,
                SEGMENTS.c.assistant_scope == item.assistant_scope))).all()
        # the slow part, before the transaction: the source is still durable
        keywords = self.summarizer.keywords([item.content])
        best = max(((jaccard(set(keywords), set(json.loads(s.keywords))), s.id) for s in segments), default=None)
        segment_id = best[1] if best and best[0] >= self.config.segment_match else None
        summary = None if segment_id else self.summarizer.summarize([item.content])
        broken = os.environ.get(BREAK_PROMOTION_ENV) == "1"
        now = self.clock()

        def work(conn: Connection) -> str | None:
            if conn.execute(select(items.c.id).where(items.c.id == item_id)).first() is None:
                return None  # promoted meanwhile by someone else
            page_id = new_id()
            if not broken:
                target = segment_id or new_id()
                if segment_id is None:
                    conn.execute(SEGMENTS.insert().values(
                        id=target, user_scope=item.user_scope, assistant_scope=item.assistant_scope,
                        summary=summary, keywords=json.dumps(keywords), n_visit=0, l_interaction=0,
                        last_visit_at=int(now), created_at=int(now)))
                conn.execute(PAGES.insert().values(
                    id=page_id, segment_id=target, item_id=item_id, run_id=item.run_id, version=item.version,
                    content=item.content, memory_type=item.memory_type, veracity=item.veracity,
                    importance=item.importance, created_at=int(now)))
                self._merge_keywords(conn, target, keywords, now)
            conn.execute(items.delete().where(items.c.id == item_id))
            lane = (item.run_id, item.user_scope, item.assistant_scope)
            made = [self.receipt(*lane, "stm", "committed", item.version, now, source_present=False)]
            if not broken:
                made.append(self.receipt(*lane, "mtm", "committed", item.version, now))
            receipt_store.insert(conn, made)
            testpoints.reached("tiers.mtm")  # target written, source removed, not yet committed
            return page_id

        return with_retry(self.ws, work)

    def _merge_keywords(self, conn: Connection, segment_id: str, keywords: list[str], now: float) -> None:
        row = conn.execute(select(SEGMENTS.c.keywords, SEGMENTS.c.l_interaction)
                           .where(SEGMENTS.c.id == segment_id)).one()
        merged = list(dict.fromkeys(json.loads(row.keywords) + keywords))
        conn.execute(SEGMENTS.update().where(SEGMENTS.c.id == segment_id).values(
            keywords=json.dumps(merged), l_interaction=row.l_interaction + 1, last_visit_at=int(now)))

    # -- MTM → LPM -------------------------------------------------------------------------------
    def hot_segments(self, user: str | None = None, assistant: str | None = None) -> list[str]:
        now = self.clock()
        query = select(SEGMENTS)
        if user is not None:
            query = query.where(and_(SEGMENTS.c.user_scope == user, SEGMENTS.c.assistant_scope == assistant))
        with self.ws.read() as conn:
            rows = conn.execute(query.order_by(SEGMENTS.c.created_at, SEGMENTS.c.id)).all()
        return [r.id for r in rows
                if heat(r.n_visit, r.l_interaction, r.last_visit_at, now) >= self.config.heat_threshold]

    def promote_to_lpm(self, segment_id: str) -> list[str]:
        """Write the segment's pages as durable facts and remove the segment; returns fact ids."""
        with self.ws.read() as conn:
            segment = conn.execute(select(SEGMENTS).where(SEGMENTS.c.id == segment_id)).first()
            pages = conn.execute(select(PAGES).where(PAGES.c.segment_id == segment_id)
                                 .order_by(PAGES.c.created_at, literal_column("rowid"))).all()
        if segment is None:
            return []
        vectors = fact_vectors([f"{segment.user_scope} {p.content}" for p in pages], self._embedder)
        now = self.clock()

        def work(conn: Connection) -> list[str]:
            if conn.execute(select(SEGMENTS.c.id).where(SEGMENTS.c.id == segment_id)).first() is None:
                return []
            written = []
            for page, vector in zip(pages, vectors, strict=True):
                result = fact_rules.propose_fact(
                    self.ws, conn, domain=LPM_DOMAIN, topic=segment.user_scope, content=page.content,
                    confidence=page.importance, memory_type=page.memory_type, veracity=page.veracity,
                    agent_id=segment.assistant_scope, source_observation_ids=[page.item_id], now=int(now),
                    embedding=vector[0] if vector else None, binary_embedding=vector[1] if vector else None)
                written.append(result.fact_id)
            conn.execute(PAGES.delete().where(PAGES.c.segment_id == segment_id))
            conn.execute(SEGMENTS.delete().where(SEGMENTS.c.id == segment_id))
            receipt_store.insert(conn, [self.receipt(p.run_id, segment.user_scope, segment.assistant_scope, "lpm",
                                                     "committed", p.version, now) for p in pages])
            testpoints.reached("tiers.lpm")  # facts written, segment removed, not yet committed
            return written

        return with_retry(self.ws, work)

    def promote_hot(self, user: str | None = None, assistant: str | None = None) -> int:
        return sum(len(self.promote_to_lpm(s)) for s in self.hot_segments(user, assistant))
