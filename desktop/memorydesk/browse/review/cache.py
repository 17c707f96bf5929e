"""The window's scan results in the desk's own tables (``memdesk_review_*``, made by the
store's migrations when the file is opened for writing), with the workspace's data stamp:
reopening shows them at once, and the next scan reads only what changed since.

``save`` writes only what differs from what is kept (items whose fingerprint or findings
changed, pairs and sets replaced, the stamp) — when the file holds exactly what the caller
says it holds (the same stamp and scan time); otherwise (nothing kept yet, a scan kept in
memory before the desk's tables existed, another window's save) it writes the whole scan.
``load`` reads it all back as a ``ScanCache`` (without the vectors, which the next scan
reads again).
"""

from __future__ import annotations

import json

from sqlalchemy import select

from memorydesk.browse.review.decisions import apply_states, read_decisions
from memorydesk.browse.review.scan import ScanCache, ScanReport, data_stamp
from memorydesk.core.review.finding import Finding, worst_first
from memorydesk.store import Workspace
from memorydesk.store.ours import DeskReviewItem, DeskReviewPair, DeskReviewSet, DeskReviewState

ITEMS, PAIRS, SETS, STATE = (DeskReviewItem.__table__, DeskReviewPair.__table__, DeskReviewSet.__table__,
                             DeskReviewState.__table__)


def available(ws: Workspace) -> bool:
    """Whether this file has the review tables (a desk file opened for writing has them)."""
    with ws.read() as conn:
        return conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = ?", (STATE.name,)).first() is not None


def _dump(findings: list[Finding]) -> str:
    return "[" + ",".join(f.dumps() for f in findings) + "]"


def _load(text: str) -> list[Finding]:
    found = [Finding.loads(json.dumps(d)) for d in json.loads(text or "[]")]
    for f in found:  # a dismissal is a decision, read afresh (files kept before that was so stored it here)
        if f.state == "dismissed":
            f.state = "open"
            f.evidence.pop("decision", None)
    return found


def save(ws: Workspace, report: ScanReport, kept: ScanCache | None = None) -> None:
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
        state = {"stamp": cache.stamp, "scanned_at": str(cache.scanned_at), "duplicate_cosine": str(cache.duplicate_cosine),
                 "notes": json.dumps(report.notes, ensure_ascii=False), "skipped_vectors": str(cache.skipped_vectors),
                 "fact_fp": "", "model_todo": json.dumps(sorted(cache.model_todo))}
        conn.execute(STATE.delete())
        conn.execute(STATE.insert(), [{"key": k, "value": v} for k, v in state.items()])


def _holds(conn, kept: ScanCache) -> bool:
    """Whether the file holds ``kept`` (its stamp and scan time): only then is a delta enough."""
    state = dict(conn.execute(select(STATE.c.key, STATE.c.value)).all())
    return state.get("stamp") == kept.stamp and state.get("scanned_at") == str(kept.scanned_at)


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
