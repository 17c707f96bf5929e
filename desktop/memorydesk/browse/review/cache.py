"""The window's scan results as kept in the desk's own tables (``memdesk_review_*``, made by
the store's migrations when the file is opened for writing), with the workspace's data stamp:
reopening shows them at once, and the next scan reads only what changed since.

``memory.review_results.save`` keeps them (only what differs, when the file holds exactly
what the caller says it holds); ``load`` reads them back as a ``ScanCache`` (without the
vectors, which the next scan reads again).
"""

from __future__ import annotations

import json

from sqlalchemy import select

from memorydesk.browse.review.decisions import apply_states, read_decisions
from memorydesk.browse.review.scan import ScanCache, ScanReport
from memorydesk.core.review.finding import Finding, worst_first
from memorydesk.store import Workspace
from memorydesk.store.ours import DeskReviewItem, DeskReviewPair, DeskReviewSet, DeskReviewState
from memorydesk.store.watermarks import data_stamp

ITEMS, PAIRS, SETS, STATE = (DeskReviewItem.__table__, DeskReviewPair.__table__, DeskReviewSet.__table__,
                             DeskReviewState.__table__)


def available(ws: Workspace) -> bool:
    """Whether this file has the review tables (a desk file opened for writing has them)."""
    with ws.read() as conn:
        return conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = ?", (STATE.name,)).first() is not None


def _load(text: str) -> list[Finding]:
    found = [Finding.loads(json.dumps(d)) for d in json.loads(text or "[]")]
    for f in found:  # a dismissal is a decision, read afresh (files kept before that was so stored it here)
        if f.state == "dismissed":
            f.state = "open"
            f.evidence.pop("decision", None)
    return found


def load(ws: Workspace) -> tuple[ScanReport, bool] | None:
    """The kept scan (its findings in the states people's decisions give them now) and whether
    the workspace is unchanged since (its data stamp); None when nothing is kept."""
    if not available(ws):
        return None
    with ws.read() as conn:
        state = dict(conn.execute(select(STATE.c.key, STATE.c.value)).all())
        if "stamp" not in state:
            return None
        cache = ScanCache(stamp=state["stamp"], scanned_at=float(state.get("scanned_at", 0)),
                          duplicate_cosine=float(state.get("duplicate_cosine", 0.92)),
                          skipped_vectors=int(state.get("skipped_vectors", 0)),
                          model_todo={tuple(k) for k in json.loads(state.get("model_todo", "[]"))})
        for kind, item_id, fp, found in conn.execute(select(ITEMS.c.item_kind, ITEMS.c.item_id, ITEMS.c.fingerprint,
                                                            ITEMS.c.findings)):
            cache.per_item[(kind, item_id)] = (fp, _load(found))
            if kind == "fact":
                cache.fact_fp[item_id] = fp
        cache.pairs = {(a, b): c for a, b, c in conn.execute(select(PAIRS.c.fact_a, PAIRS.c.fact_b, PAIRS.c.cosine))}
        for signature, text in conn.execute(select(SETS.c.signature, SETS.c.finding)):
            cache.checked.add(signature)
            if text:
                cache.sets[signature] = Finding.loads(text)
    decisions = read_decisions(ws)
    findings = [f for _fp, fs in cache.per_item.values() for f in fs] + list(cache.sets.values())
    report = ScanReport(apply_states(worst_first(findings), decisions), json.loads(state.get("notes", "[]")), {}, {},
                        cache)
    report.counts = report.by_kind()
    return report, data_stamp(ws) == cache.stamp
