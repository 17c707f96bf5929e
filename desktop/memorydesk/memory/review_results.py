"""The review's results kept in the desk's own tables (``memdesk_review_*``), so that reopening
the file shows them at once and the next scan reads only what changed since. A record of the
desk's, not a change to memory: no history row, nothing to undo. ``browse.review.cache``
reads them back.

``save`` writes only what differs from what is kept (items whose fingerprint or findings
changed, pairs and sets replaced, the stamp) — when the file holds exactly what the caller
says it holds (the same stamp and scan time); otherwise (nothing kept yet, a scan kept in
memory before the desk's tables existed, another window's save) it writes the whole scan.
It takes the scan's report and cache (``browse.review.scan.ScanReport``, ``ScanCache``) by
what it reads of them (``Results``, ``Kept``).
"""

from __future__ import annotations

import json
from typing import Protocol

from sqlalchemy import Connection, select

from memorydesk.core.review.finding import Finding
from memorydesk.store import Workspace
from memorydesk.store.ours import DeskReviewItem, DeskReviewPair, DeskReviewSet, DeskReviewState

ITEMS, PAIRS, SETS, STATE = (DeskReviewItem.__table__, DeskReviewPair.__table__, DeskReviewSet.__table__,
                             DeskReviewState.__table__)


class Kept(Protocol):
    """What a scan leaves for the next one, as far as it is kept (``ScanCache``)."""

    per_item: dict[tuple[str, str], tuple[str, list[Finding]]]
    fact_fp: dict[str, str]
    pairs: dict[tuple[str, str], float]
    sets: dict[str, Finding]
    checked: set[str]
    stamp: str
    scanned_at: float
    duplicate_cosine: float
    skipped_vectors: int
    model_todo: set[tuple[str, str]]


class Results(Protocol):
    """A scan's report (``ScanReport``): its notes and its cache."""

    notes: list[str]

    @property
    def cache(self) -> Kept: ...


def _dump(findings: list[Finding]) -> str:
    return "[" + ",".join(f.dumps() for f in findings) + "]"


def save(ws: Workspace, report: Results, kept: Kept | None = None) -> None:
    """Keep ``report``'s cache; ``kept`` (what is stored now) limits the write to what differs."""
    cache = report.cache
    with ws.write() as conn:
        old_items = kept.per_item if kept is not None and _holds(conn, kept) else None
        if old_items is None:
            conn.execute(ITEMS.delete())
        else:
            gone = [k for k in old_items if k not in cache.per_item]
            for kind, item_id in gone:
                conn.execute(ITEMS.delete().where(ITEMS.c.item_kind == kind, ITEMS.c.item_id == item_id))
        rows = []
        for (kind, item_id), (fp, found) in cache.per_item.items():
            if old_items is not None:
                before = old_items.get((kind, item_id))
                if before is not None and before[0] == fp and [f.key for f in before[1]] == [f.key for f in found]:
                    continue
            rows.append({"item_kind": kind, "item_id": item_id, "fingerprint": fp or cache.fact_fp.get(item_id, ""),
                         "findings": _dump(found)})
        for at in range(0, len(rows), 2000):
            conn.execute(ITEMS.insert().prefix_with("OR REPLACE"), rows[at:at + 2000])
        conn.execute(PAIRS.delete())
        pairs = [{"fact_a": a, "fact_b": b, "cosine": c} for (a, b), c in cache.pairs.items()]
        for at in range(0, len(pairs), 5000):
            conn.execute(PAIRS.insert(), pairs[at:at + 5000])
        conn.execute(SETS.delete())
        sets = [{"signature": s, "finding": f.dumps()} for s, f in cache.sets.items()]
        sets += [{"signature": s, "finding": ""} for s in cache.checked if s not in cache.sets]
        if sets:
            conn.execute(SETS.insert(), sets)
        state = {"stamp": cache.stamp, "scanned_at": str(cache.scanned_at),
                 "duplicate_cosine": str(cache.duplicate_cosine),
                 "notes": json.dumps(report.notes, ensure_ascii=False), "skipped_vectors": str(cache.skipped_vectors),
                 "fact_fp": "", "model_todo": json.dumps(sorted(cache.model_todo))}
        conn.execute(STATE.delete())
        conn.execute(STATE.insert(), [{"key": k, "value": v} for k, v in state.items()])


def _holds(conn: Connection, kept: Kept) -> bool:
    """Whether the file holds ``kept`` (its stamp and scan time): only then is a delta enough."""
    state = dict(conn.execute(select(STATE.c.key, STATE.c.value)).all())
    return state.get("stamp") == kept.stamp and state.get("scanned_at") == str(kept.scanned_at)
