"""The forget check: after a delete or a purge, ask every way an agent could still get a fact
(or a typed text: an e-mail address, a name, a secret) back, with the agent's own code, and
answer each *path* gone / still returns it (with what) / cannot tell (and why).

Paths, in the order the receipt lists them:

- what an agent is handed (``agents``): keyword, semantic and hybrid search for the fact's
  topic and for its distinctive words (for a typed text: for the text), the dispatch preamble
  for a task that names it (every agent), the graph voice from its former neighbours;
- what the file keeps (``tables``, ``index``): the fact's own row, its superseding and
  superseded versions, other facts that copy its text, policies derived from it or quoting
  it, agents' notes, working-memory items, conflicts that carry it, beliefs, the desk's
  history, the desk's own records, the full-text index's vocabulary, vector rows, the
  MemoryOS tiers (where the workspace has them), every other table;
- what lies beside the file (``files``): the file's own bytes, its write-ahead log, backups.

Read-only: every search is a preview, the index is asked through a ``temp`` vocabulary table.
The result is a content-free ``core.forget.receipt.Receipt``; keeping it in the history is a
reviewer's write (``memory.actions.forget``).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from memorydesk import __version__
from memorydesk.browse.forget import agents, files, index, subject
from memorydesk.browse.forget.subject import Remembered, Subject
from memorydesk.browse.forget.tables import TableReader, fact_holders
from memorydesk.core.errors import BadInput
from memorydesk.core.forget.receipt import GONE, STILL, Answer, Found, Receipt
from memorydesk.embedding.embedder import Embedder
from memorydesk.store import Workspace
from memorydesk.store.watermarks import data_stamp

#: paths whose rows quote it on their own: a purge of the fact leaves them (purge or correct them too)
OWN_COPIES = frozenset({"copies", "policies", "notes", "working_items", "tier.stm", "tier.mtm", "other_tables"})


def forget_check(ws: Workspace, *, fact_ids: Iterable[str] = (), text: str | None = None,
                 item_kind: str | None = None, item_ids: Iterable[str] = (),
                 remembered: Mapping[str, Remembered] | None = None, embedder: Embedder | None = None,
                 now: float | None = None) -> Receipt:
    """Check facts by id, notes or working-memory items by id (``item_kind``), or a typed text.

    ``remembered``: the text of facts (or items) as the window read it before it purged them —
    used to search for it, never stored."""
    fact_ids, item_ids = list(fact_ids), list(item_ids)
    if sum((bool(fact_ids), text is not None, bool(item_ids))) != 1:
        raise BadInput("check facts by id, notes or working-memory items by id, or a text: one of them")
    started = time.perf_counter()
    clock = time.time() if now is None else float(now)
    if text is not None:
        subj = subject.for_text(text)
    elif item_ids:
        subj = subject.for_items(ws, item_kind or "", item_ids, remembered)
    else:
        subj = subject.for_facts(ws, fact_ids, remembered, lambda terms: _read(ws, index.term_docs, terms))
    subj.holders = _read(ws, lambda conn, ws_: fact_holders(conn, ws_, subj.needles))
    answers = _ask(ws, subj, embedder, clock)
    return Receipt(
        receipt_id=f"fc-{secrets.token_hex(4)}", at=clock, workspace_id=ws.workspace_id, file=ws.path.name,
        data_stamp=data_stamp(ws), subject=_subject_json(subj), answers=tuple(answers),
        versions=tuple(subj.versions), neighbours=tuple(subj.neighbours),
        notes=tuple([*subj.notes, *_soft_delete_notes(subj, answers)]),
        elapsed_ms=(time.perf_counter() - started) * 1000, desk_version=__version__)


def _read(ws: Workspace, fn: Callable, *args):
    with ws.read() as conn:
        return fn(conn, ws, *args)


def _timed(fn: Callable[[], Answer | list[Answer]]) -> list[Answer]:
    started = time.perf_counter()
    got = fn()
    ms = (time.perf_counter() - started) * 1000
    many = got if isinstance(got, list) else [got]
    return [replace(a, ms=a.ms or ms / len(many)) for a in many]


def _ask(ws: Workspace, subj: Subject, embedder: Embedder | None, now: float) -> list[Answer]:
    out: list[Answer] = []
    out += _timed(lambda: agents.search_paths(ws, subj, embedder, now))
    out += _timed(lambda: agents.preamble_path(ws, subj))
    if subj.kind == "facts":
        out += _timed(lambda: agents.graph_path(ws, subj))
    with ws.read() as conn:
        reader = TableReader(ws, conn, subj)
        tiers = reader.has_tiers()
        steps: list[Callable[[], Answer]] = []
        if subj.kind == "facts":
            steps += [reader.fact, reader.versions]
        steps += [reader.copies, reader.policies, reader.notes]
        steps.append((lambda: reader.working_items("tier.stm", "MemoryOS short-term tier (working-memory items)"))
                     if tiers else reader.working_items)
        steps += [reader.conflicts, reader.beliefs, reader.history, reader.desk_records,
                  lambda: index.vocabulary(ws, conn, subj), reader.vectors]
        if tiers:
            steps.append(reader.mtm)
        steps.append(lambda: reader.other_tables(reader.covered()))
        for step in steps:
            out += _timed(step)
    if tiers:
        out.insert(next(i for i, a in enumerate(out) if a.key == "tier.mtm") + 1, _lpm(out))
    needles = files.needles(subj)
    out += _timed(lambda: files.file_bytes(ws, subj, needles))
    out += _timed(lambda: files.wal_bytes(ws, subj, needles))
    out += _timed(lambda: files.backups(ws, subj, needles))
    return out


def _lpm(answers: list[Answer]) -> Answer:
    """The long-term tier is the facts table: its answer is what the fact paths found there."""
    facts = [a for a in answers if a.key in ("fact", "versions", "copies")]
    held = tuple(dict.fromkeys(i for a in facts if a.verdict == STILL for i in a.ids_of("fact")))
    label = "MemoryOS long-term tier (facts)"
    if held:
        return Answer("tier.lpm", label, "file", STILL, (Found("fact", held),), "long-term facts still hold it")
    worst = next((a for a in facts if a.verdict != GONE), None)
    if worst is not None:
        return Answer("tier.lpm", label, "file", worst.verdict, worst.found, worst.why)
    return Answer("tier.lpm", label, "file", GONE, why="no long-term fact holds it")


def _subject_json(subj: Subject) -> dict:
    if subj.kind == "facts":
        return {"fact_ids": list(subj.given)}
    if subj.kind == "items":
        return {"item_kind": subj.item_kind, "item_ids": list(subj.given)}
    return {"text_chars": len(subj.queries[0][1]) if subj.queries else 0}


def _soft_delete_notes(subj: Subject, answers: list[Answer]) -> list[str]:
    """A soft delete says plainly where the text still is and what purge removes; and whatever quotes
    it on its own (which a purge of the fact leaves) is named."""
    soft = [f for f in subj.given if subj.versions.get(f) not in (None, "missing", "active")]
    still = [a for a in answers if a.verdict == STILL]
    if subj.kind != "facts" or not still:
        return []
    out = []
    if soft:
        what = ", ".join(f"{f} is {subj.versions[f]}" for f in soft)
        out.append(f"{what}, not purged: its text is still in {len(still)} path(s). Purge removes the fact, its "
                   "earlier versions, its index entries and vectors, the history's copies of its text and the log's, "
                   "and, when asked, the backups'.")
    own: dict[str, list[str]] = {}
    for a in still:
        for f in a.found if a.key in OWN_COPIES else ():
            if f.kind in ("fact", "policy", "note", "working_item") or a.key == "other_tables":
                known = own.setdefault(f.kind, [])
                known += [i for i in f.ids if i not in known]
    if own:
        out.append("What quotes it on its own stays until it is purged or corrected too: "
                   + "; ".join(f"{kind.replace('_', ' ')} {', '.join(ids)}" for kind, ids in own.items()) + ".")
    return out


__all__ = ["Remembered", "forget_check"]
