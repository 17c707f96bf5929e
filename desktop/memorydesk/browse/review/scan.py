"""The review scan: every kind over a workspace, worst first; again, only what changed.

``scan(ws)`` is what ``memory-desk review`` runs (read-only, nothing kept). A window
keeps a ``ScanCache`` (in memory, and in the desk's own tables through ``cache``) and
passes it back: then only items whose fingerprint changed are read and scanned again,
the close pairs of changed facts are found again against all vectors, and duplicate
clusters and losing corrections whose members did not change keep their recall checks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from memorydesk.browse.review import corrections, decay, duplicates, injection_scan, recall, vectors
from memorydesk.browse.review.disagree import (
    could_copy,
    could_disagree,
    differ_in_values,
    disagreement,
    same_subject,
    same_subject_text,
    subject_key,
    word_counts,
)
from memorydesk.browse.review.duplicates import FactText
from memorydesk.browse.review.items import (
    Item,
    fact_fingerprints,
    fact_items,
    has_embedding,
    is_active_print,
    other_items,
    scan_key,
)
from memorydesk.browse.review.text import text_findings
from memorydesk.core.errors import BadInput
from memorydesk.core.review.finding import KINDS, Finding, worst_first
from memorydesk.core.review.kinds import Needs, ReviewKind
from memorydesk.search.audit import Searcher
from memorydesk.store import Workspace, canary_rows
from memorydesk.store.watermarks import data_stamp

Progress = Callable[[str, int, int], None]  # (stage, done, total)
PAIR_COSINE = min(corrections.CORRECTION_COSINE, duplicates.DUPLICATE_COSINE)
PER_ITEM = ReviewKind.needing(Needs.ITEM)
PAIRED = ReviewKind.needing(Needs.PAIRS)


@dataclass
class Options:
    kinds: tuple[str, ...] = KINDS
    duplicate_cosine: float = duplicates.DUPLICATE_COSINE
    recall_budget_s: float = 20.0  # recall checks (MMR, ranks) at most this long per full scan
    rescan_recall_budget_s: float = 1.0  # … and per rescan (what is left is checked a second at a time)
    # texts the injection model embeds (no stored vector, or a long text's sentences) per full scan, ~10 s on two
    # cores, and per rescan; counted, not timed, so the window and the command find the same
    model_texts: int = 1500
    rescan_model_texts: int = 64
    now: float | None = None

    def __post_init__(self) -> None:
        unknown = [k for k in self.kinds if k not in KINDS]
        if unknown:
            raise BadInput(f"--kind: unknown kind {unknown[0]!r}; choose from {', '.join(KINDS)}")
        if not 0.5 <= self.duplicate_cosine < 1.0:
            raise BadInput(f"the duplicate threshold must be a cosine from 0.5 to 1, not {self.duplicate_cosine}")


@dataclass
class ScanCache:
    """What a scan leaves for the next one (in memory; ``cache`` stores and reads it)."""

    per_item: dict[tuple[str, str], tuple[str, list[Finding]]] = field(default_factory=dict)  # fp, findings
    fact_fp: dict[str, str] = field(default_factory=dict)
    pairs: dict[tuple[str, str], float] = field(default_factory=dict)  # fact ids (sorted) -> cosine
    sets: dict[str, Finding] = field(default_factory=dict)  # duplicates and losing corrections, by signature
    checked: set[str] = field(default_factory=set)  # correction candidates checked against recall, by signature
    texts: dict[str, FactText] = field(default_factory=dict)  # facts in close pairs (memory only)
    classes: dict[tuple[str, str], str] = field(default_factory=dict)  # pair -> "dup", a cue, or "" (memory only)
    model_todo: set[tuple[str, str]] = field(default_factory=set)  # items the injection model has still to read
    vectors: vectors.Vectors | None = None
    skipped_vectors: int = 0
    stamp: str = ""
    scanned_at: float = 0.0
    duplicate_cosine: float = duplicates.DUPLICATE_COSINE


@dataclass
class ScanReport:
    findings: list[Finding]
    notes: list[str]
    counts: dict[str, int]
    scanned: dict[str, int]  # items scanned this time, by kind of item
    cache: ScanCache
    complete: bool = True
    seconds: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)  # seconds per stage (text, pairs, sets, model)

    def by_kind(self) -> dict[str, int]:
        out = {k: 0 for k in KINDS}
        for f in self.findings:
            out[f.kind] += 1
        return out


class Cancelled(Exception):
    pass


def scan(ws: Workspace, options: Options | None = None, cache: ScanCache | None = None, *,
         progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> ScanReport:
    """Scan ``ws`` (all of it, or with ``cache`` only what changed). Raises ``Cancelled`` when asked to stop."""
    options = options or Options()
    started = time.monotonic()
    now = time.time() if options.now is None else options.now
    old = cache if cache is not None and cache.duplicate_cosine == options.duplicate_cosine else None
    new = ScanCache(duplicate_cosine=options.duplicate_cosine, stamp=data_stamp(ws), scanned_at=now)
    stop = cancelled or (lambda: False)
    say = progress or (lambda _s, _d, _t: None)
    notes: list[str] = []
    scanned = {"fact": 0, "policy": 0, "note": 0, "working_item": 0}
    if old is None and PAIRED & set(options.kinds):
        recall.start(ws)  # search's copies, built on search's thread while the text is scanned

    # 1. per item: secrets, personal data, injection, unreachable, fading (a scan for other kinds only,
    # e.g. ``--kind duplicate``, reads no text here)
    per_item = bool(PER_ITEM & set(options.kinds))
    stages: dict[str, float] = {}
    mark = time.monotonic()
    with ws.read() as conn:
        fps = fact_fingerprints(ws, conn)
        changed = [fid for fid, fp in fps.items() if old is None or old.fact_fp.get(fid) != fp]
        say("reading facts", 0, len(changed))
        fresh = {it.id: it for it in fact_items(ws, conn, None if old is None else changed)} if per_item else {}
        others = other_items(ws, conn) if per_item else []
    new.fact_fp = fps
    undecodable = 0
    read_now: list[Item] = []  # items whose text was scanned this time (the injection model reads them next)
    for n, fid in enumerate(fps):
        item = fresh.get(fid)
        if item is None:
            new.per_item[("fact", fid)] = old.per_item.get(("fact", fid), ("", [])) if old else ("", [])
            continue
        if n % 500 == 0:
            if stop():
                raise Cancelled()
            say("scanning facts", n, len(fps))
        new.per_item[("fact", fid)] = (item.fingerprint, _item_findings(item, has_embedding(item.fingerprint), now))
        read_now.append(item)
        scanned["fact"] += 1
        if "\ufffd" in item.text("content") or "\ufffd" in item.topic:
            undecodable += 1
    for item in others:
        key = scan_key(item)
        prev = old.per_item.get(key) if old else None
        if prev is not None and prev[0] == item.fingerprint:
            new.per_item[key] = prev
        else:
            new.per_item[key] = (item.fingerprint, text_findings(item))
            read_now.append(item)
            scanned[item.item_kind] += 1

    with ws.read() as conn:  # not memory an agent wrote: said, so a person does not review it as such
        for left in canary_rows.leftovers(conn, ws.layout) if ws.desk_schema >= 1 else []:
            notes.append(f"canary run {left.canary_id} stopped before it removed its rows ({left.summary()}); "
                         "`memory-desk canary` or `memory-desk check --repair` removes them")
    if undecodable:
        notes.append(f"{undecodable:,} fact(s) hold text that is not valid UTF-8 (read with U+FFFD where bytes "
                     "are invalid)")

    # 2. close pairs of facts through the vector index
    stages["text"], mark = time.monotonic() - mark, time.monotonic()
    wants_pairs = PAIRED & set(options.kinds)
    if wants_pairs:
        say("finding close pairs", 0, 1)
        gone = set(changed) | (old.fact_fp.keys() - fps.keys() if old is not None else set())
        active = sum(1 for fp in fps.values() if is_active_print(fp)) if old is not None else 0
        _pairs(ws, old, new, changed, gone, active, stop, fresh, options.duplicate_cosine)
        if new.skipped_vectors:
            notes.append(f"{new.skipped_vectors:,} active fact(s) have no usable embedding: duplicates and losing "
                         "corrections skip them")
        if stop():
            raise Cancelled()
        stages["pairs"], mark = time.monotonic() - mark, time.monotonic()
        _set_findings(ws, old, new, options, now, stop, notes, say, gone)
        stages["clusters and recall checks"], mark = time.monotonic() - mark, time.monotonic()
    if old is not None:  # what the model has still to read stays to be read (items gone since dropped)
        new.model_todo = {k for k in old.model_todo if k in new.per_item}
    if "injection" in options.kinds and new.model_todo:
        read_now += injection_scan.still_to_read(ws, new.model_todo, new.per_item, read_now, others)
    if "injection" in options.kinds and read_now:
        say("reading for injected instructions", 0, len(read_now))
        budget = options.model_texts if old is None else options.rescan_model_texts
        injection_scan.model_pass(ws, new, read_now, budget, stop, notes)
        stages["injection model"] = time.monotonic() - mark

    findings = [f for _fp, fs in new.per_item.values() for f in fs] + list(new.sets.values())
    findings = [f for f in findings if f.kind in options.kinds]
    for f in findings:
        if "note" in f.evidence and f.evidence["note"] not in notes:
            notes.append(f"{f.item_kind} {f.item_id}: {f.evidence['note']}")
        if "encoding" in f.evidence:
            notes.append(f"{f.item_kind} {f.item_id}: {f.evidence['encoding']}")
    report = ScanReport(worst_first(findings), list(dict.fromkeys(notes)), {}, scanned, new,
                        seconds=time.monotonic() - started, stages={k: round(v, 2) for k, v in stages.items()})
    report.counts = report.by_kind()
    return report


def _item_findings(item: Item, has_embedding: bool, now: float) -> list[Finding]:
    out = text_findings(item)
    for extra in (decay.unreachable_finding(item, has_embedding), decay.fading_finding(item, now)):
        if extra is not None:
            out.append(extra)
    return out


def _pairs(ws: Workspace, old: ScanCache | None, new: ScanCache, changed: list[str], gone: set[str],
           active: int, stop: Callable[[], bool], known: dict[str, Item], duplicate_cosine: float) -> None:
    with ws.read() as conn:
        if old is None:
            new.vectors = vectors.active_vectors(ws, conn)
            new.skipped_vectors = new.vectors.skipped
            found = vectors.close_pair_arrays(new.vectors.rows(), PAIR_COSINE, cancelled=stop)
            new.pairs = _worth_judging(ws, new.vectors.ids, found, known, duplicate_cosine)
            return
        if old.vectors is None:  # kept in the file, not in memory: the vectors are read again, the pairs kept
            new.vectors = vectors.active_vectors(ws, conn)
        else:
            new.vectors = _patched(ws, conn, old.vectors, changed, gone)
        new.vectors.skipped = new.skipped_vectors = max(0, active - new.vectors.live)
    new.pairs = {k: c for k, c in old.pairs.items() if k[0] not in gone and k[1] not in gone}
    where = new.vectors.position()
    rows = np.asarray([where[f] for f in changed if f in where], dtype=np.int64)
    if len(rows):
        found = vectors.pair_arrays_of(new.vectors.rows(), rows, PAIR_COSINE, new.vectors.live_mask())
        new.pairs.update(_worth_judging(ws, new.vectors.ids, found, known, duplicate_cosine))


def _worth_judging(ws: Workspace, ids: list[str], found: vectors.PairArrays, known: dict[str, Item],
                   duplicate_cosine: float) -> dict[tuple[str, str], float]:
    """The close pairs the rules could call copies or a correction (``disagree.could_*``, over
    arrays: a templated workspace has millions of close pairs, and few are either), by fact ids."""
    if not len(found):
        return {}
    where = np.unique(np.concatenate([found.i, found.j]))
    wanted = [ids[p] for p in where.tolist()]
    texts = {fid: (known[fid].topic, known[fid].text("content")) for fid in wanted if fid in known}
    missing = [fid for fid in wanted if fid not in texts]
    if missing:
        texts.update({t.id: (t.topic, t.content) for t in _texts(ws, missing).values()})
    subject = np.fromiter((subject_key(texts.get(fid, ("", ""))[0]) for fid in wanted), dtype=np.int64,
                          count=len(wanted))
    a, b = np.searchsorted(where, found.i), np.searchsorted(where, found.j)
    keep = (found.cos >= duplicate_cosine) & could_copy(subject[a], subject[b])
    maybe = np.flatnonzero((found.cos >= corrections.CORRECTION_COSINE) & same_subject(subject[a], subject[b]))
    if len(maybe):  # the words of only the facts still in question
        need = np.unique(np.concatenate([a[maybe], b[maybe]]))
        plain = np.zeros(len(wanted), dtype=np.int64)
        valued = np.zeros(len(wanted), dtype=bool)
        for k in need.tolist():
            plain[k], valued[k] = word_counts(texts.get(wanted[k], ("", ""))[1])
        am, bm = a[maybe], b[maybe]
        keep[maybe[could_disagree(plain[am], plain[bm], valued[am], valued[bm])]] = True
    pick = np.flatnonzero(keep)
    return {_sorted(ids[int(found.i[k])], ids[int(found.j[k])]): float(found.cos[k]) for k in pick.tolist()}


def _patched(ws: Workspace, conn, held: vectors.Vectors, changed: list[str], gone: set[str]) -> vectors.Vectors:
    """``held`` patched in place: facts that changed or left dropped, the changed active facts'
    vectors read again and appended (a cancelled rescan leaves it patched: patching it again
    for the same change is patching once)."""
    from memorydesk.embedding.embedder import BLOB_BYTES

    facts = ws.layout.facts.name
    add_ids, blobs = [], []
    for at in range(0, len(changed), 500):
        chunk = changed[at:at + 500]
        marks = ",".join("?" * len(chunk))
        for fid, blob in conn.exec_driver_sql(
                f"SELECT id, embedding FROM {facts} WHERE id IN ({marks}) AND superseded_by IS NULL "
                f"AND length(embedding) = {BLOB_BYTES}", tuple(chunk)).fetchall():
            add_ids.append(fid)
            blobs.append(bytes(blob))
    held.patch(gone, add_ids, vectors.unit_rows(b"".join(blobs), len(blobs)))
    return held


def _sorted(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def _texts(ws: Workspace, ids: Iterable[str]) -> dict[str, FactText]:
    with ws.read() as conn:
        return {it.id: FactText(it.id, it.topic, it.text("content"), it.domain, it.created_at, it.memory_type)
                for it in fact_items(ws, conn, list(ids)) if it.active}


def _set_findings(ws: Workspace, old: ScanCache | None, new: ScanCache, options: Options, now: float,
                  stop: Callable[[], bool], notes: list[str], say: Progress, gone: set[str]) -> None:
    involved = {x for pair in new.pairs for x in pair}
    known_texts = old.texts if old is not None else {}
    texts = {fid: known_texts[fid] for fid in involved if fid in known_texts and fid not in gone}
    texts.update(_texts(ws, [fid for fid in involved if fid not in texts]))
    new.texts = texts
    pairs = {k: c for k, c in new.pairs.items() if k[0] in texts and k[1] in texts}
    known_classes = old.classes if old is not None else {}
    for k, c in pairs.items():
        kept = known_classes.get(k)
        if kept is None or k[0] in gone or k[1] in gone:
            a, b = texts[k[0]], texts[k[1]]
            cue = disagreement(a.content, b.content, a.topic, b.topic) if c >= corrections.CORRECTION_COSINE else None
            kept = cue or ("dup" if c >= options.duplicate_cosine
                           and not differ_in_values(a.content, b.content, a.topic, b.topic)
                           and same_subject_text(a.topic, a.content, b.topic, b.content) else "")
        if kept:
            new.classes[k] = kept
    # only pairs that matter are kept: a pair judged neither a copy nor a correction is judged again
    # only when one of its facts changes (its pairs are then found again from the vectors)
    pairs = {k: c for k, c in pairs.items() if k in new.classes}
    new.pairs = pairs
    new.texts = texts = {fid: texts[fid] for k in pairs for fid in k}
    fp = new.fact_fp
    todo: list[Finding] = []
    if "duplicate" in options.kinds:
        say("grouping near-duplicates", 0, 1)
        dup = {k: c for k, c in pairs.items() if new.classes[k] == "dup"}
        ids = sorted({x for k in dup for x in k})
        where = {f: i for i, f in enumerate(ids)}
        groups = vectors.clusters({(where[a], where[b]): c for (a, b), c in dup.items()}, len(ids))
        for group in groups:
            members = [texts[ids[i]] for i in group]
            signature = "dup:" + ",".join(sorted(f"{m.id}@{fp.get(m.id, '')}" for m in members))
            known = old.sets.get(signature) if old else None
            if known is not None and known.evidence.get("mmr", {}).get("checked"):
                new.sets[signature] = known
                continue
            member_ids = {m.id for m in members}
            cos = {k: c for k, c in dup.items() if k[0] in member_ids and k[1] in member_ids}
            finding = duplicates.cluster_finding(members, cos, signature)
            new.sets[signature] = finding
            todo.append(finding)
    todo_cands = []
    sig = lambda a, b: f"loss:{a}@{fp.get(a, '')},{b}@{fp.get(b, '')}"  # noqa: E731
    if "losing_correction" in options.kinds:
        cue_pairs = {k: c for k, c in pairs.items() if new.classes[k] not in ("", "dup")}
        with ws.read() as conn:
            recorded = corrections.recorded_pairs(ws, conn, {x for k in cue_pairs for x in k})
        for older, newer, cosine, cue in corrections.candidates(cue_pairs, texts, recorded, new.classes):
            signature = sig(older.id, newer.id)
            if old is not None and signature in old.checked:
                new.checked.add(signature)
                if signature in old.sets:
                    new.sets[signature] = old.sets[signature]
            else:
                todo_cands.append((older, newer, cosine, cue))
    searches = len({texts[fid].topic for f in todo for fid in f.evidence["cluster"]} |
                   {n.topic for _o, n, _c, _q in todo_cands})
    if searches:
        recall.wait(ws, say, stop, searches)
    searcher = Searcher(ws, now)
    budget = options.recall_budget_s if old is None else options.rescan_recall_budget_s
    if todo:
        say("checking near-duplicates against recall", 0, len(todo))
        started = time.monotonic()
        left = duplicates.check_all(todo, texts, searcher, budget_s=budget, cancelled=stop)
        budget = max(0.0, budget - (time.monotonic() - started))
        if left:
            notes.append(f"{left:,} duplicate cluster(s) were not checked against recall (MMR) in the time given")
    if todo_cands:
        say("checking corrections", 0, len(todo_cands))
        found, unchecked = corrections.losing(todo_cands, searcher, sig, budget_s=budget, cancelled=stop)
        for f in found:
            new.sets[f.fingerprint] = f
        left = {sig(o.id, n.id) for o, n, _c, _q in unchecked}
        new.checked |= {sig(o.id, n.id) for o, n, _c, _q in todo_cands} - left
        if left:
            notes.append(f"{len(left):,} possible correction(s) were not checked against recall in the time given")
