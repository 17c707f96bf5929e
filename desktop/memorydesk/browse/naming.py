"""How the desk names things to a person: a fact in a confirmation, the phrase that confirms
a purge, two facts set against each other, and the change Edit ▸ Undo / Redo would act on
(no Qt, no writes).

A fact is named by its topic; where other facts share that topic, by its topic and the
first words of its content, as many as it takes to tell it from the others (its id when
even its whole content does not). That name is what a purge asks the person to type.

Two facts of one conflict usually share their topic and most of their words (“installs
dependencies with pnpm” against “… with yarn”): each is named by the words that tell it from
the other (``telling_words``: the first words it has and the other lacks, with a word
before them), its author and its time (``pair_names``) — in the decision dialogs and in
Edit ▸ Undo / Redo.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from memorydesk.core.change_words import grant_cells, grant_words
from memorydesk.core.review.shown import shown
from memorydesk.core.worddiff import word_diff
from memorydesk.memory.history import record as history
from memorydesk.memory.history.batches import batch_entries, batch_of
from memorydesk.store.workspace import Workspace

#: at most this many words of the content are added to a shared topic (versions of one
#: fact often differ only at the ninth or tenth word: "… ships to staging on Monday")
MAX_WORDS = 16
#: a name longer than this is cut (with "…") where it is shown, never where it is typed
SHOWN = 80


@dataclass(frozen=True)
class FactName:
    id: str
    topic: str
    name: str  # what tells it apart: its topic, topic plus first words, or its id
    shared: int  # how many facts of the workspace have this topic (1: only this one)

    @property
    def shown(self) -> str:
        name = f"{self.topic} (id {self.id})" if self.name == self.id and self.topic else self.name
        return name if len(name) <= SHOWN else name[:SHOWN - 1] + "…"


def _words(text: str) -> list[str]:
    return " ".join(text.split()).split(" ") if text.strip() else []


def distinct_name(fact_id: str, topic: str, content: str, others: Sequence[str]) -> str:
    """The topic, or topic plus the first words of ``content`` that no other content of the
    same topic (``others``) starts with; the id when no prefix of ``MAX_WORDS`` words tells
    them apart."""
    topic = " ".join(topic.split())
    if not others:
        return topic
    words = _words(content)
    rest = [_words(o) for o in others]
    for n in range(1, min(MAX_WORDS, len(words)) + 1):
        head = words[:n]
        if all(r[:n] != head for r in rest):
            return f"{topic}: {' '.join(head)}"
    return fact_id


def fact_names(ws: Workspace, ids: Iterable[str]) -> list[FactName]:
    """Each fact's name (in the order given; ids that no longer exist are left out)."""
    with ws.read() as conn:
        return names_in(ws, conn, ids)


def names_in(ws: Workspace, conn: Any, ids: Iterable[str]) -> list[FactName]:
    """``fact_names`` within a read already open."""
    f = ws.layout.facts.c
    wanted = list(dict.fromkeys(ids))
    out: list[FactName] = []
    rows = {r.id: r for r in conn.execute(select(f.id, f.topic, f.content).where(f.id.in_(wanted)))}
    for fid in wanted:
        row = rows.get(fid)
        if row is None:
            continue
        topic, content = str(row.topic or ""), str(row.content or "")
        shared = int(conn.execute(select(func.count()).where(f.topic == row.topic)).scalar_one())
        others: list[str] = []
        if shared > 1:
            others = [str(c or "") for c in conn.execute(
                select(f.content).where(f.topic == row.topic, f.id != fid).limit(5000)).scalars()]
        out.append(FactName(fid, topic, distinct_name(fid, topic, content, others), shared))
    return out


def policy_names(ws: Workspace, ids: Iterable[str]) -> list[FactName]:
    """Each policy named for a purge: its rule's first words (secrets and personal data masked,
    ``core.review.shown``) and its id, the one thing that is its own — a domain is shared by
    policies, and a rule's words can be too (ids that no longer exist are left out)."""
    p = ws.layout.policies.c
    wanted = list(dict.fromkeys(ids))
    with ws.read() as conn:
        rules = dict(conn.execute(select(p.id, p.rule).where(p.id.in_(wanted))).all())
    out = []
    for pid in wanted:
        if pid in rules:
            words, room = " ".join(_words(shown(str(rules[pid] or "")))), SHOWN - len(pid) - 8
            head = words if len(words) <= room else words[:room - 1].rstrip() + "…"  # room for the id
            out.append(FactName(pid, head, pid, 1))
    return out


def listed(names: Sequence[FactName], most: int = 5) -> str:
    """“a”, “b” and 3 more — for a sentence."""
    quoted = [f"“\u2068{n.shown}\u2069”" for n in names[:most]]
    if len(names) > most:
        return ", ".join(quoted) + f" and {len(names) - most:,} more"
    if len(quoted) > 1:
        return ", ".join(quoted[:-1]) + " and " + quoted[-1]
    return quoted[0] if quoted else ""


# --- two facts set against each other ---------------------------------------------------------------

#: at most this many differing words name a fact of a pair, with this many words before them
TELLING, BEFORE = 6, 2


def _telling(pieces: list[Any], changed: str) -> str:
    """From a word or two before the first ``changed`` word of a side of a word diff to the last
    changed word within ``TELLING`` words of it, and “…” where the text goes on: “…with pnpm;…”.
    Empty when the side has no such word."""
    words: list[tuple[str, bool]] = [(w, p.kind == changed) for p in pieces for w in p.text.split()]
    first = next((i for i, (_w, c) in enumerate(words) if c), None)
    if first is None:
        return ""
    start = max(0, first - BEFORE)
    end = max(i for i in range(first, min(len(words), first + TELLING)) if words[i][1]) + 1
    text = " ".join(w for w, _c in words[start:end])
    return ("…" if start > 0 else "") + text + ("…" if end < len(words) else "")


def telling_words(a: str, b: str) -> tuple[str, str]:
    """The words that tell ``a`` from ``b`` and ``b`` from ``a`` (see ``_telling``); a side that has
    no word the other lacks is named by its first words."""
    pa, pb = word_diff(a, b)
    first = lambda text: " ".join(text.split()[:TELLING]) + ("…" if len(text.split()) > TELLING else "")  # noqa: E731
    return _telling(pa, "removed") or first(a), _telling(pb, "added") or first(b)


@dataclass(frozen=True)
class PairName:
    """One fact of a pair, named against the other: ``words`` tell it apart (its topic first where
    the topics differ), then who wrote it and when."""

    id: str
    words: str
    author: str
    at: int | None

    @property
    def short(self) -> str:
        """“…with pnpm;…” (Ada): for a menu."""
        return f"“{self.words}” ({self.author})"

    @property
    def shown(self) -> str:
        """“…with pnpm;…” (Ada, 2026-12-03 07:04): for a dialog."""
        return f"“{self.words}” ({self.author}, {_local(self.at)})"


def _local(at: int | None) -> str:
    try:
        return dt.datetime.fromtimestamp(int(at)).strftime("%Y-%m-%d %H:%M") if at is not None else "time unknown"
    except (OverflowError, OSError, ValueError, TypeError):
        return str(at)


def pair_names(ws: Workspace, conn: Any, a_id: str, b_id: str) -> tuple[PairName, PairName]:
    """Facts ``a_id`` and ``b_id`` named against each other (a fact no longer in the file: its id)."""
    f, agents = ws.layout.facts.c, ws.layout.agents.c
    rows = {r.id: r for r in conn.execute(select(f.id, f.topic, f.content, f.authored_by_agent_id,
                                                 f.authored_by_role, f.created_at).where(f.id.in_([a_id, b_id])))}
    ids = [r.authored_by_agent_id for r in rows.values() if r.authored_by_agent_id]
    names = dict(conn.execute(select(agents.id, agents.name).where(agents.id.in_(ids))).all()) if ids else {}
    a, b = rows.get(a_id), rows.get(b_id)
    wa, wb = telling_words(str(a.content or ""), str(b.content or "")) if a is not None and b is not None else ("", "")
    out = []
    for fid, row, words in ((a_id, a, wa), (b_id, b, wb)):
        if row is None:
            out.append(PairName(fid, f"fact {fid[:8]}… (no longer in the file)", "nobody known", None))
            continue
        if a is not None and b is not None and a.topic != b.topic:
            words = f"{' '.join(str(row.topic).split())}: {words}"
        if a is not None and b is not None and wa == wb:  # the same words: the id tells them apart
            words = f"{words} (id {fid[:8]})"
        author = (names.get(row.authored_by_agent_id) or row.authored_by_agent_id or row.authored_by_role
                  or "no agent (a person's edit)")
        out.append(PairName(fid, words, author, row.created_at))
    return out[0], out[1]


def conflict_names(ws: Workspace, a_id: str, b_id: str) -> tuple[PairName, PairName]:
    """``pair_names`` in a read of its own."""
    with ws.read() as conn:
        return pair_names(ws, conn, a_id, b_id)


# --- the change an undo or a redo acts on ---------------------------------------------------------

ACTION_WORDS = {"edit": "Edit", "delete": "Delete", "restore": "Restore", "purge": "Purge",
                "activate": "Activate", "restore_loser": "Restore the loser of", "confirm": "Confirm",
                "embed": "Index missing vectors of"}


def _fact_topic(ws: Workspace, conn: Any, fact_id: str | None) -> str | None:
    if not fact_id:
        return None
    f = ws.layout.facts.c
    return conn.execute(select(f.topic).where(f.id == fact_id)).scalar()


def _policy_words(ws: Workspace, conn: Any, policy_id: str | None, detail: dict[str, Any]) -> str | None:
    p = ws.layout.policies.c
    rule = conn.execute(select(p.rule).where(p.id == policy_id)).scalar() if policy_id else None
    if rule is None:
        rule = (detail.get("row") or {}).get("rule")
    if not rule:
        return None
    words = _words(str(rule))
    return " ".join(words[:6]) + (" …" if len(words) > 6 else "")


def _quoted(ws: Workspace, conn: Any, *ids: str | None) -> list[str]:
    """Each fact as “its name” (``names_in``: the topic, with first words where topics are
    shared), its id where it is gone."""
    named = {n.id: n.shown for n in names_in(ws, conn, [i for i in ids if i])}
    return [f"“{named.get(i, i)}”" for i in ids if i]


def _conflict_facts(ws: Workspace, conn: Any, conflict_id: str | None) -> tuple[str | None, str | None]:
    """A conflict row's (fact_a, fact_b): the loser and the winner of a resolved one."""
    c = ws.layout.conflicts.c
    row = conn.execute(select(c.fact_a_id, c.fact_b_id).where(c.id == conflict_id)).first() if conflict_id else None
    return (row.fact_a_id, row.fact_b_id) if row is not None else (None, None)


def _conflict_words(ws: Workspace, conn: Any, action: str, detail: dict[str, Any]) -> str | None:
    """A conflict decision in words that name its facts, each by what tells it from the other."""
    if action == "restore_loser" and detail.get("loser") and detail.get("winner"):
        loser, winner = pair_names(ws, conn, detail["loser"], detail["winner"])
        return f"Restore {loser.short} over {winner.short}"
    if action == "keep" and detail.get("kept") and detail.get("dropped"):
        kept, dropped = pair_names(ws, conn, detail["kept"], detail["dropped"])
        return f"Keep {kept.short} over {dropped.short}"
    if action in ("confirm", "keep_both"):
        a, b = _conflict_facts(ws, conn, detail.get("conflict"))
        if a is None or b is None:
            return None
        fa, fb = pair_names(ws, conn, a, b)
        if action == "keep_both":
            return f"Keep both {fa.short} and {fb.short}"
        return f"Confirm {fb.short} over {fa.short}"
    if action == "review_burst":
        n = len(detail.get("conflicts", []))
        (winner,) = _quoted(ws, conn, detail.get("winner"))
        return f"Review {n:,} conflict{'s' if n != 1 else ''} won by {winner}"
    return None


def describe(ws: Workspace, conn: Any, row: Any) -> str:
    """A few words for one history entry (the change itself, not an undo of it)."""
    detail = json.loads(row.detail or "{}")
    verb = ACTION_WORDS.get(row.action, row.action.replace("_", " ").capitalize())
    if row.entity == "fact" and row.action == "embed":
        n = len(detail.get("ids", []))
        return f"{verb} {n:,} fact{'s' if n != 1 else ''}"
    if row.entity == "conflict":
        words = _conflict_words(ws, conn, row.action, detail)
        if words:
            return words
    if row.entity == "fact":
        topic = _fact_topic(ws, conn, detail.get("old_id") or row.entity_id)
        return f"{verb} fact {topic}" if topic else f"{verb} a fact"
    if row.entity == "policy":
        if row.action == "activate":
            verb = "Activate" if detail.get("after") else "Deactivate"
        words = _policy_words(ws, conn, detail.get("old_id") or row.entity_id, detail)
        return f"{verb} policy “{words}”" if words else f"{verb} a policy"
    if row.entity == "edge":
        rows = detail.get("rows", [])
        if len(rows) == 1:  # its two ends and its type: Delete edge “deploy” → “rollback” (related)
            cols = {c[0]: c[2] for c in rows[0].get("columns", []) if len(c) >= 3}
            a, b = (_fact_topic(ws, conn, cols.get(k) or "") for k in ("source_fact_id", "target_fact_id"))
            if a or b:
                kind = f" ({cols['edge_type']})" if cols.get("edge_type") else ""
                return f"{verb} edge “{a or '?'}” → “{b or '?'}”{kind}"
        n = len(rows) or 1
        return f"{verb} {'an edge' if n == 1 else f'{n} edges'}"
    if row.entity == "grant":  # the domain and the cells: “Set 9 grant cells of security from write to none”
        one = len(grant_cells(detail)) == 1
        if one:
            return f"{verb} grant {grant_words(detail)}"
        return f"{verb} {grant_words(detail, cells_word='grant cells')}"
    return f"{verb} {row.entity}".replace("_", " ")


def _original(conn: Any, row: Any) -> Any:
    seen = 0
    while row is not None and row.action in ("undo", "redo") and row.undo_of and seen < 1000:
        row = conn.execute(select(history.HISTORY).where(history.HISTORY.c.id == row.undo_of)).first()
        seen += 1
    return row


def _together(conn: Any, row: Any) -> int:
    """How many changes not undone were made with this one (one action on several facts
    writes one entry each, at the same second, with the same reason): undo takes one."""
    h = history.HISTORY.c
    return int(conn.execute(select(func.count()).where(
        h.entity == row.entity, h.action == row.action, h.actor == row.actor, h.reason == row.reason,
        h.at == row.at, h.undone_by.is_(None))).scalar_one())


def _rows(conn: Any, ids: list[int]) -> list[Any]:
    return list(conn.execute(select(history.HISTORY).where(history.HISTORY.c.id.in_(ids))))


def undo_redo_names(ws: Workspace, actor: str | None = None) -> tuple[str | None, str | None, str]:
    """What Edit ▸ Undo and Edit ▸ Redo would act on now, in a few words (None: nothing);
    a file without the desk's history has neither. One action on several facts is undone
    and redone whole (“Delete 3 facts”, ``memory.history.batches``); entries an older build wrote
    one per fact are taken back one at a time, and the third item says so (“1 of 3
    deleted together”). With ``actor`` (the person at the desk), a change someone else made
    (another person, or a demo's seeded decision) says whose it is: “Maya Okafor's change”."""

    if ws.desk_schema == 0:
        return None, None, ""
    names: list[str | None] = []
    note = ""
    with ws.read() as conn:
        for n, target in enumerate((history.latest_undoable(conn), history.latest_redoable(conn))):
            row = None
            if target is not None:
                row = conn.execute(select(history.HISTORY).where(history.HISTORY.c.id == target)).first()
            original = _original(conn, row) if row is not None else None
            name = describe(ws, conn, original) if original is not None else None
            taken = len(batch_entries(conn, target)) if target is not None else 1
            if name is not None and taken > 1 and original.action == "embed":  # one run, its batches together
                n = sum(len(json.loads(_original(conn, r).detail or "{}").get("ids", []))
                        for r in _rows(conn, batch_entries(conn, target)))
                name = f"{ACTION_WORDS['embed']} {n:,} facts"
            elif name is not None and taken > 1:
                verb = ACTION_WORDS.get(original.action, original.action.replace("_", " ").capitalize())
                name = f"{verb} {taken:,} {original.entity.replace('_', ' ')}s"
            elif name is not None and n == 0 and row.action not in ("undo", "redo") and batch_of(row.detail) is None:
                together = _together(conn, row)
                if together > 1:
                    done = {"delete": "deleted", "restore": "restored", "edit": "edited"}.get(row.action, "changed")
                    note = f"1 of {together} {done} together"
            if name is not None and n == 0 and actor is not None and original.actor != actor:
                note = ", ".join(x for x in (note, f"{original.actor}'s change") if x)
            names.append(name)
    return names[0], names[1], note


def undo_refusal(ws: Workspace) -> str:
    """Why Edit ▸ Undo would be refused now, said before it is pressed ("" when it would not): a
    note's quarantine once the agent wrote the note again (undoing it would overwrite that)."""
    if ws.desk_schema == 0:
        return ""
    with ws.read() as conn:
        target = history.latest_undoable(conn)
        row = conn.execute(select(history.HISTORY).where(history.HISTORY.c.id == target)).first() if target else None
        original = _original(conn, row) if row is not None and row.action != "undo" else None
        if original is None or (original.entity, original.action) != ("note", "quarantine"):
            return ""
        notes = ws.layout.notes
        now = conn.execute(select(notes.c.content).where(notes.c.id == original.entity_id)).first()
    if now is not None and now.content:
        return "The agent wrote the note again since the quarantine; Release puts the kept text back before it"
    return ""


__all__ = ["FactName", "PairName", "conflict_names", "describe", "distinct_name", "fact_names", "listed", "names_in",
           "pair_names", "telling_words", "undo_redo_names", "undo_refusal"]
