"""What one forget check looks for, read from the file: the versions of the facts, their text
(from the workspace, from what the window remembered before a purge, or from a backup beside
the file), the needles and queries derived from it (``core.forget.probes``), their vectors,
and the facts they were linked to — now, or as an earlier check recorded (its receipt keeps
the ids of the neighbours, so the graph voice can be asked from them after a purge).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Connection, select

from memorydesk.core.errors import BadInput, MemoryDeskError
from memorydesk.core.forget import probes
from memorydesk.core.inputs import NAME_MAX, QUERY_MAX, check_text
from memorydesk.memory.actions.purge import earlier_versions
from memorydesk.store import Workspace, files
from memorydesk.store.engine import make_engine
from memorydesk.store.errors import translated
from memorydesk.store.layout import detect, table_names

ITEM_KINDS = ("note", "working_item", "policy")
FORGET_ENTITY = "forget"  # the history rows that keep forget receipts (``memory.actions.forget``)


@dataclass(frozen=True)
class Remembered:
    """A fact's (or an item's) text as the window read it before purging it — kept in memory only."""

    topic: str
    content: str
    embedding: bytes | None = None


@dataclass
class Subject:
    kind: str  # facts | text | items
    given: list[str]  # the fact (or item) ids asked about; empty for a typed text
    item_kind: str | None = None
    versions: dict[str, str] = field(default_factory=dict)  # every version id → its state ("missing": no row)
    texts: list[tuple[str, str]] = field(default_factory=list)  # (topic, content) of what is known
    needles: list[str] = field(default_factory=list)  # folded (``probes.fold``)
    byte_needles: list[bytes] = field(default_factory=list)
    queries: list[tuple[str, str]] = field(default_factory=list)  # (topic | words | text, query)
    embeddings: list[bytes] = field(default_factory=list)
    neighbours: list[str] = field(default_factory=list)
    #: every fact row whose topic or content holds a needle → its ``superseded_by`` (filled by the check, once)
    holders: dict[str, str | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    missing_text: list[str] = field(default_factory=list)  # given ids whose text is nowhere to be read

    @property
    def text_known(self) -> bool:
        return bool(self.needles)

    @property
    def unknown_why(self) -> str:
        """Why nothing of its text can be looked for (when ``text_known`` is false)."""
        if self.texts:
            return (f"its text is shorter than {probes.MIN_NEEDLE} characters and holds no secret, personal data or "
                    "identifier: looked for elsewhere it would be found by chance")
        return "its text is not known here, so nothing could be looked for"

    def words(self) -> str:
        if self.kind == "text":
            return "the typed text"
        noun = {"note": "note", "working_item": "working-memory item", "policy": "policy"}.get(self.item_kind or "",
                                                                                                "fact")
        return f"{noun} {self.given[0]}" if len(self.given) == 1 else f"these {len(self.given)} {noun}s"


def state_of(superseded_by: str | None) -> str:
    if superseded_by is None:
        return "active"
    if superseded_by.startswith("human:"):
        return superseded_by.removeprefix("human:")  # deleted, quarantined, …
    if superseded_by.startswith("system:"):
        return f"archived ({superseded_by})"
    return "superseded"


def for_text(text: str) -> Subject:
    check_text(text, "the text", max_chars=QUERY_MAX, nul=True)
    typed = text.strip()
    if len(typed) < probes.MIN_TEXT:
        raise BadInput(f"the text to check must have at least {probes.MIN_TEXT} characters besides spaces "
                       "(a shorter one would be found by chance in unrelated memory)")
    return Subject("text", [], needles=probes.minimal([typed]), byte_needles=probes.byte_needles([], [typed]),
                   queries=[("text", typed)])


def for_items(ws: Workspace, item_kind: str, ids: Iterable[str],
              remembered: Mapping[str, Remembered] | None = None) -> Subject:
    """A note or a working-memory item: its text from its row, or as remembered before its purge."""
    if item_kind not in ITEM_KINDS:
        raise BadInput(f"not a note, a working-memory item or a policy: {item_kind}")
    ids = _checked_ids(ids)
    table, column = _item_table(ws, item_kind)
    with ws.read() as conn:
        rows = {r[0]: r[1] or "" for r in conn.execute(select(table.c.id, column).where(table.c.id.in_(ids)))}
    subject = Subject("items", ids, item_kind)
    texts = []
    for item_id in ids:
        text = rows.get(item_id) or (remembered or {}).get(item_id, Remembered("", "")).content
        if text.strip():
            texts.append(text)
        else:
            subject.missing_text.append(item_id)
    whole: list[str] = []  # what an agent's search is asked for: not every part of the text
    for text in texts:
        whole += probes.fact_needles(text, probes.detected_spans(text), parts=False)
        subject.needles += probes.fact_needles(text, probes.detected_spans(text))
    subject.needles = probes.minimal(subject.needles)
    subject.byte_needles = probes.byte_needles(_as_written(subject.needles, texts))
    subject.queries = [("text", q) for q in probes.minimal(whole) if len(q) <= QUERY_MAX]
    return subject


def for_facts(ws: Workspace, ids: Iterable[str], remembered: Mapping[str, Remembered] | None = None,
              docs: Callable[[list[str]], Mapping[str, int]] | None = None) -> Subject:
    """The facts, their versions and their text. ``docs(terms)``: term → documents in the full-text
    index (for the distinctive words; the caller reads them from the index's vocabulary)."""
    ids = _checked_ids(ids)
    remembered = dict(remembered or {})
    facts = ws.layout.facts
    subject = Subject("facts", ids)
    with ws.read() as conn:
        chain = _chain(conn, ws, ids)
        versions, neighbours = _recorded(conn, ws, chain)
        chain = list(dict.fromkeys([*chain, *versions]))  # versions purged since an earlier check named them
        rows = {r.id: r for r in conn.execute(
            select(facts.c.id, facts.c.topic, facts.c.content, facts.c.superseded_by, facts.c.embedding)
            .where(facts.c.id.in_(chain)))}
        known_ids = _named_in_history(conn, ws, ids) if ws.desk_schema else set()
        subject.neighbours = _neighbours(conn, ws, chain, neighbours)
    subject.versions = {v: state_of(rows[v].superseded_by) if v in rows else "missing" for v in chain}
    from_backups = _from_backups(ws, [i for i in ids if i not in rows and i not in remembered])
    for fid in ids:
        row = rows.get(fid)
        if row is not None:
            known = Remembered(row.topic or "", row.content or "", row.embedding)
        elif fid in remembered:
            known = remembered[fid]
        elif fid in from_backups:
            known, where = from_backups[fid]
            subject.notes.append(f"the text of fact {fid} was read from backup {where} to search for it")
        else:
            if fid not in known_ids:
                raise BadInput(f"no fact {fid} in {ws.path.name}, its history or a backup beside it")
            subject.missing_text.append(fid)
            continue
        subject.texts.append((known.topic, known.content))
        if isinstance(known.embedding, bytes) and known.embedding:
            subject.embeddings.append(bytes(known.embedding))
    if subject.missing_text:
        subject.notes.append(
            f"the text of {', '.join(subject.missing_text)} is in no table of {ws.path.name} and in no backup beside "
            "it, so the paths that look for its text cannot tell; check its words with --text")
    needles: list[str] = []
    for topic, content in subject.texts:
        needles += probes.fact_needles(content, probes.detected_spans(content))
        subject.queries.append(("topic", topic))
        terms = probes.query_terms(topic, content)
        words = probes.rarest(terms, docs(terms) if docs is not None and terms else {})
        if words:
            subject.queries.append(("words", " ".join(words)))
    subject.needles = probes.minimal(needles)
    subject.byte_needles = probes.byte_needles(_as_written(subject.needles, [c for _t, c in subject.texts]))
    return subject


def _checked_ids(ids: Iterable[str]) -> list[str]:
    out = list(dict.fromkeys(ids))
    if not out:
        raise BadInput("give at least one id to check")
    for i in out:
        check_text(i, "an id", max_chars=NAME_MAX)
    return out


def _as_written(needles: list[str], texts: list[str]) -> list[str]:
    """Each folded needle as it is written in the texts (a byte search cannot fold case)."""
    out = []
    for needle in needles:
        for text in texts:
            at = probes.fold(text).find(needle)
            if at >= 0:
                out.append(text[at:at + len(needle)])
        out.append(needle)
    return list(dict.fromkeys(out))


def _chain(conn: Connection, ws: Workspace, ids: list[str]) -> list[str]:
    """The facts, every version they superseded, and every version that superseded them."""
    facts = ws.layout.facts
    chain = earlier_versions(conn, ws.layout, ids)
    frontier = list(ids)
    while frontier:
        later = [v for (v,) in conn.execute(select(facts.c.superseded_by).where(facts.c.id.in_(frontier)))
                 if v and ":" not in v and v not in chain]
        present = set(conn.execute(select(facts.c.id).where(facts.c.id.in_(later))).scalars())
        frontier = [v for v in later if v in present]
        chain += frontier
        for v in later:
            if v not in chain and v not in present:
                chain.append(v)  # named as the newer version, but no such row
    return list(dict.fromkeys(chain))


def _neighbours(conn: Connection, ws: Workspace, chain: list[str], recorded: set[str]) -> list[str]:
    edges = ws.layout.edges
    found = set(recorded)
    for src, dst in conn.execute(select(edges.c.source_fact_id, edges.c.target_fact_id).where(
            edges.c.source_fact_id.in_(chain) | edges.c.target_fact_id.in_(chain))):
        found.update((src, dst))
    return sorted(found - set(chain))


def _recorded(conn: Connection, ws: Workspace, chain: list[str]) -> tuple[list[str], set[str]]:
    """The versions and the neighbours that earlier forget checks of these facts recorded (kept receipts)."""
    if not ws.desk_schema:
        return [], set()
    versions: list[str] = []
    neighbours: set[str] = set()
    wanted = set(chain)
    for (detail,) in conn.exec_driver_sql("SELECT detail FROM memdesk_history WHERE entity = ?", (FORGET_ENTITY,)):
        try:
            receipt = json.loads(detail or "{}").get("receipt") or {}
        except (ValueError, AttributeError):
            continue
        if isinstance(receipt, dict) and wanted & set(receipt.get("versions", ())):
            versions += [str(v) for v in receipt.get("versions", ())]
            neighbours.update(str(n) for n in receipt.get("neighbours", ()))
    return versions, neighbours


def _named_in_history(conn: Connection, ws: Workspace, ids: list[str]) -> set[str]:
    marks = ",".join("?" * len(ids))
    rows = conn.exec_driver_sql(
        f"SELECT entity_id, before_id, after_id FROM memdesk_history WHERE entity_id IN ({marks}) "
        f"OR before_id IN ({marks}) OR after_id IN ({marks})", (*ids, *ids, *ids))
    return {v for r in rows for v in r if v}


def _from_backups(ws: Workspace, ids: list[str]) -> dict[str, tuple[Remembered, str]]:
    """Facts gone from the workspace whose rows a backup beside it still has (newest backup first)."""
    out: dict[str, tuple[Remembered, str]] = {}
    if not ids:
        return out
    for path in reversed(files.backups_beside(ws.path)):
        wanted = [i for i in ids if i not in out]
        if not wanted:
            break
        try:
            for row in fact_rows_in(path, wanted):
                out[row[0]] = (Remembered(row[1] or "", row[2] or "", row[3]), path.name)
        except MemoryDeskError:
            continue
    return out


def fact_rows_in(path: Path, ids: list[str]) -> list[tuple]:
    """``(id, topic, content, embedding)`` of the facts with these ids in another workspace file
    (a backup), read without changing a byte of it."""
    engine = make_engine(path, read_only=True, immutable=True)
    try:
        with translated(path), engine.connect() as conn:
            layout = detect(table_names(conn))
            if layout is None:
                return []
            facts = layout.facts
            return [tuple(r) for r in conn.execute(select(facts.c.id, facts.c.topic, facts.c.content,
                                                          facts.c.embedding).where(facts.c.id.in_(ids)))]
    finally:
        engine.dispose()


def remembered_facts(ws: Workspace, ids: Iterable[str]) -> dict[str, Remembered]:
    """What the window keeps in memory of facts it is about to purge: their text and vector, so the
    check after the purge can still look for them (nothing of it is stored)."""
    facts = ws.layout.facts
    with ws.read() as conn:
        rows = conn.execute(select(facts.c.id, facts.c.topic, facts.c.content, facts.c.embedding)
                            .where(facts.c.id.in_(list(ids)))).all()
    return {r.id: Remembered(r.topic or "", r.content or "", r.embedding) for r in rows}


def remembered_items(ws: Workspace, item_kind: str, ids: Iterable[str]) -> dict[str, Remembered]:
    """The same for notes, working-memory items and policies (their content, or a policy's rule)."""
    table, column = _item_table(ws, item_kind)
    with ws.read() as conn:
        rows = conn.execute(select(table.c.id, column).where(table.c.id.in_(list(ids)))).all()
    return {r[0]: Remembered("", r[1] or "") for r in rows}


def _item_table(ws: Workspace, item_kind: str):
    table = {"note": ws.layout.notes, "working_item": ws.layout.items, "policy": ws.layout.policies}[item_kind]
    return table, table.c.rule if item_kind == "policy" else table.c.content
