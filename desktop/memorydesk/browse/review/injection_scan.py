"""The injection model's part of a scan: the items read this time that no rule flagged, scored
by ``injection_model`` — a fact by its stored embedding when it has one, any other text
embedded (and a long text's sentences too) up to a number of texts per scan (counted, not
timed: a scan finds the same whatever the machine's load). What that leaves is said in a
note and kept for the next scans.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from memorydesk.browse.review import injection_model, vectors
from memorydesk.browse.review.items import Item, fact_items, scan_key
from memorydesk.core.review.finding import Finding
from memorydesk.core.review.mask import excerpt
from memorydesk.core.review.secrets import secret_spans

BACKLOG_PER_SCAN = 256  # of the items an earlier scan left to the model, read by one rescan
_BATCH = 8  # texts embedded at a time (a long one with its sentences): the budget is checked between batches
_WORDS = re.compile(r"[^\W\d_]{2,}")


def _text(item: Item) -> str:
    return "\n".join(t for _n, t in item.fields if t)


def _wordy(text: str) -> bool:
    """A few words (or, in a script written without spaces, a dozen letters): a bare token is no instruction."""
    words = _WORDS.findall(text)
    return len(words) >= 4 or (not text.isascii() and sum(map(len, words)) >= 12)


def finding(item: Item, hit: injection_model.ModelHit) -> Finding:
    text = _text(item)
    where = text.find(hit.sentence) if hit.sentence else -1
    start, end = (where, where + len(hit.sentence)) if where >= 0 else (0, min(len(text), 160))
    shown = excerpt(text, start, end, around=20 if where >= 0 else 0, masks=secret_spans(text))
    field = item.fields[-1][0] if len(item.fields) > 1 and where > len(item.fields[0][1]) else item.fields[0][0]
    if item.item_kind == "fact":
        field = "content"
    reaches_all = item.item_kind == "policy" and item.active
    evidence = {"rule": "model", "explanation": (
        f"reads as an instruction planted for the agent (model score {hit.score:.2f}); closest written example: "
        f"“{hit.nearest}”"), "excerpt": shown, "score": hit.score, "similarity": hit.similarity}
    return Finding("injection", "critical" if reaches_all else "high", item.item_kind, item.id, field, evidence,
                   "quarantined" if item.quarantined else "open", item.domain,
                   f"reads as an instruction: {shown[:80]}", item.fingerprint)


def model_findings(items: list[Item], stored: dict[str, np.ndarray], *, budget: int,
                   cancelled: Callable[[], bool] | None = None) -> tuple[dict[tuple[str, str], Finding], list[Item]]:
    """Findings by (item kind, id) for the items the model flags, and the items the budget left unread.

    ``stored``: unit vectors of facts by id (their stored embeddings)."""
    items = [it for it in items if _wordy(_text(it))]  # an instruction takes a few words
    if not items or not injection_model.available():
        return {}, []
    out: dict[tuple[str, str], Finding] = {}
    by_vector = [it for it in items if it.item_kind == "fact" and it.id in stored]
    if by_vector:
        prob, nearest, sim = injection_model.score_vectors(np.stack([stored[it.id] for it in by_vector]))
        for k, it in enumerate(by_vector):
            hit = injection_model.hit_of(prob[k], nearest[k], sim[k], "", _text(it))
            if hit is not None:
                out[(it.item_kind, it.id)] = finding(it, hit)
    # a text without a stored vector is embedded; a long one is also read sentence by sentence (one planted
    # sentence among many ordinary ones barely moves the whole text's vector)
    scored = {id(it) for it in by_vector}
    # (a fact with a stored vector is read by that vector alone: reading its sentences too costs a model run
    # each, more than a scan of 100,000 facts can give)
    rest = [it for it in items if id(it) not in scored and _text(it).strip()]
    used = 0  # texts embedded: a whole text, and each sentence of a long one
    for at in range(0, len(rest), _BATCH):
        if used >= budget or (cancelled is not None and cancelled()):
            return out, rest[at:]
        chunk = rest[at:at + _BATCH]
        used += sum((id(it) not in scored) + (len(injection_model.sentences(_text(it)))
                                              if len(_text(it)) > injection_model.LONG else 0) for it in chunk)
        hits = injection_model.score_texts([_text(it)[:20_000] for it in chunk],
                                           whole=[id(it) not in scored for it in chunk])
        for it, hit in zip(chunk, hits, strict=True):
            if hit is not None:
                out[(it.item_kind, it.id)] = finding(it, hit)
    return out, []


def model_pass(ws, new, read_now: list[Item], budget: int, stop: Callable[[], bool], notes: list[str]) -> None:
    """The injection model over the items a scan read this time that no injection rule flagged; their
    findings added to ``new`` (a ``scan.ScanCache``), what the budget left marked to be read again."""
    todo = [it for it in read_now
            if not any(f.kind == "injection" for f in new.per_item.get(scan_key(it), ("", []))[1])]
    facts = [it.id for it in todo if it.item_kind == "fact"]
    stored: dict[str, np.ndarray] = {}
    if new.vectors is not None:
        where, rows = new.vectors.position(), new.vectors.rows()
        stored = {fid: rows[where[fid]] for fid in facts if fid in where}
    missing = [fid for fid in facts if fid not in stored]
    if missing:
        with ws.read() as conn:
            stored.update(vectors.stored_vectors(ws, conn, missing))
    found, left = model_findings(todo, stored, budget=budget, cancelled=stop)
    for key, f in found.items():
        item_key = scan_key(next(it for it in todo if (it.item_kind, it.id) == key))
        fp, fs = new.per_item[item_key]
        new.per_item[item_key] = (fp, [*fs, f])
    # the next scans give these to the model first (and what this one had no room to take up)
    new.model_todo = {scan_key(it) for it in left} | (set(new.model_todo) - {scan_key(it) for it in read_now})
    if left:
        notes.append(f"{len(left):,} item(s) were not read by the injection model in this scan (it embeds at most "
                     f"{budget:,} texts a scan); the next scans read them")


def still_to_read(ws, todo_keys: set[tuple[str, str]], per_item: dict, read_now: list[Item],
                  others: list[Item]) -> list[Item]:
    """The items an earlier scan's model had no time for (``todo_keys``) that this scan did not read again."""
    done = {scan_key(it) for it in read_now}
    todo = set(sorted(k for k in todo_keys if k not in done and k in per_item)[:BACKLOG_PER_SCAN])
    fact_ids = [item_id for kind, item_id in todo if kind == "fact"]
    with ws.read() as conn:
        facts = list(fact_items(ws, conn, fact_ids)) if fact_ids else []
    return facts + [it for it in others if scan_key(it) in todo]
