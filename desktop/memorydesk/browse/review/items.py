"""What the review scans: active facts (and quarantined ones), policies, agents' notes and
working-memory items, each with a fingerprint that changes when the item changes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sqlalchemy import Connection, and_, literal_column, or_, select

from memorydesk.store import Workspace

QUARANTINED = "human:quarantined"


@dataclass(frozen=True)
class Item:
    item_kind: str  # fact, policy, note, working_item
    id: str
    domain: str
    fields: tuple[tuple[str, str], ...]  # (field name, text)
    active: bool  # reaches agents now (an active fact, an active policy)
    quarantined: bool
    fingerprint: str
    created_at: int = 0
    memory_type: str = ""
    topic: str = ""

    def text(self, name: str) -> str:
        for field_name, text in self.fields:
            if field_name == name:
                return text
        return ""


def _fp(*parts: object) -> str:
    return "|".join("" if p is None else str(p) for p in parts)


def fact_items(ws: Workspace, conn: Connection, ids: Iterable[str] | None = None) -> Iterator[Item]:
    f = ws.layout.facts
    stmt = select(f.c.id, f.c.topic, f.c.content, f.c.domain, f.c.memory_type, f.c.created_at,
                  *_fingerprint_columns(ws)).where(
        and_(f.c.workspace_id == ws.workspace_id, or_(f.c.superseded_by.is_(None), f.c.superseded_by == QUARANTINED)))
    chunks = [None] if ids is None else _chunks(list(ids))
    for chunk in chunks:
        part = stmt if chunk is None else stmt.where(f.c.id.in_(chunk))
        for r in conn.execute(part).fetchall():
            topic, content = r[1] or "", r[2] or ""
            superseded = r[7]
            yield Item("fact", r[0], r[3] or "", (("topic", topic), ("content", content)), superseded is None,
                       superseded == QUARANTINED, r[6], int(r[5] or 0), r[4] or "", topic)


#: What says a fact changed, read without its text: whether it has an embedding, whether it is
#: active (not superseded, not quarantined), time, state, domain, type, lengths — one text
#: made by SQLite (no Python row per column), the same in ``fact_items`` and ``fact_fingerprints``.
FINGERPRINT_SQL = ("(embedding IS NOT NULL) || (superseded_by IS NULL) || '|' || ifnull(updated_at, '') || '|' || "
                   "ifnull(superseded_by, '') || '|' || ifnull(domain, '') || '|' || ifnull(memory_type, '') || '|' || "
                   "ifnull(length(topic), '') || '|' || ifnull(length(content), '')")


def has_embedding(fingerprint: str) -> bool:
    return fingerprint[:1] == "1"


def is_active_print(fingerprint: str) -> bool:
    return fingerprint[1:2] == "1"


def _fingerprint_columns(ws: Workspace) -> tuple:
    return (literal_column(FINGERPRINT_SQL), ws.layout.facts.c.superseded_by)


def hash_text(text: str) -> str:
    import hashlib

    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def policy_items(ws: Workspace, conn: Connection) -> Iterator[Item]:
    p = ws.layout.policies
    for r in conn.execute(select(p.c.id, p.c.domain, p.c.rule, p.c.active, p.c.updated_at).where(
            p.c.workspace_id == ws.workspace_id)).fetchall():
        rule = r[2] or ""
        yield Item("policy", r[0], r[1] or "", (("rule", rule),), bool(r[3]), False,
                   _fp("p", r[4], r[3], hash_text(rule)))


def _agents(ws: Workspace, conn: Connection) -> dict[str, str]:
    """Agent id → what a person calls it ("agent otto"), for a note's or working item's domain."""
    a = ws.layout.agents.c
    return {i: f"agent {name or i}" for i, name in conn.execute(select(a.id, a.name)).all()}


def note_items(ws: Workspace, conn: Connection) -> Iterator[Item]:
    n = ws.layout.notes
    agents = _agents(ws, conn)
    for r in conn.execute(select(n.c.id, n.c.agent_id, n.c.content, n.c.updated_at).where(
            n.c.workspace_id == ws.workspace_id)).fetchall():
        text = r[2] or ""
        yield Item("note", r[0], agents.get(r[1], f"agent {r[1]}"), (("content", text),), True, False,
                   _fp("n", r[3], hash_text(text)))


def working_items(ws: Workspace, conn: Connection) -> Iterator[Item]:
    w = ws.layout.items
    agents = _agents(ws, conn)
    for r in conn.execute(select(w.c.id, w.c.agent_id, w.c.content, w.c.created_at, w.c.memory_type).where(
            w.c.workspace_id == ws.workspace_id)).fetchall():
        text = r[2] or ""
        yield Item("working_item", r[0], agents.get(r[1], f"agent {r[1]}"), (("content", text),), True, False,
                   _fp("w", r[3], hash_text(text)), int(r[3] or 0), r[4] or "")


def quarantined_items(ws: Workspace, conn: Connection) -> Iterator[Item]:
    """Notes and working items quarantined now, with the text their quarantine kept (the note
    is empty and the item out of the hot tier meanwhile): listed as quarantined, to release."""
    from memorydesk.memory.actions.items import quarantined_texts

    agents = _agents(ws, conn)
    for kind, item_id, detail in quarantined_texts(ws, conn):
        if kind == "note":
            text = detail.get("content") or ""
            note = conn.execute(select(ws.layout.notes.c.agent_id, ws.layout.notes.c.updated_at).where(
                ws.layout.notes.c.id == item_id)).first()
            agent, at = (note[0], note[1]) if note is not None else ("?", None)
            yield Item("note", item_id, agents.get(agent, f"agent {agent}"), (("content", text),), False, True,
                       _fp("n", at, hash_text(text)))
        else:
            row = detail.get("row") or {}
            text = row.get("content") or ""
            yield Item("working_item", item_id, agents.get(row.get("agent_id"), f"agent {row.get('agent_id')}"),
                       (("content", text),), False, True,
                       _fp("w", row.get("created_at"), hash_text(text)), int(row.get("created_at") or 0),
                       row.get("memory_type") or "")


def other_items(ws: Workspace, conn: Connection) -> list[Item]:
    """Policies, notes and working items (few next to the facts: always read whole), the
    quarantined notes and items included."""
    return [*policy_items(ws, conn), *note_items(ws, conn), *working_items(ws, conn), *quarantined_items(ws, conn)]


def scan_key(item: Item) -> tuple[str, str]:
    """Where a scan keeps an item's findings: a quarantined note's kept text apart from what
    its agent may have written since."""
    kept_apart = item.quarantined and item.item_kind in ("note", "working_item")
    return item.item_kind, f"{item.id}#quarantined" if kept_apart else item.id


def fact_fingerprints(ws: Workspace, conn: Connection) -> dict[str, str]:
    """Every scanned fact's fingerprint, read without its text (an agent's write always moves
    ``updated_at``; a desk edit makes a new fact). SQLite joins them into one text (no Python
    row per fact); a text whose separators do not split it into one record a fact (an id or a
    field holding them) is read again row by row."""
    facts = ws.layout.facts.name
    where = (f"FROM {facts} WHERE workspace_id = ? AND (superseded_by IS NULL OR superseded_by = ?)",
             (ws.workspace_id, QUARANTINED))
    text, count = conn.exec_driver_sql(
        f"SELECT group_concat(id || char(31) || {FINGERPRINT_SQL}, char(30)), count(*) {where[0]}", where[1]).one()
    if not count:
        return {}
    if text is not None and text.count("\x1e") == count - 1 and text.count("\x1f") == count:
        out = dict(r.split("\x1f", 1) for r in text.split("\x1e"))
        if len(out) == count:
            return out
    return dict(conn.exec_driver_sql(f"SELECT id, {FINGERPRINT_SQL} {where[0]}", where[1]).fetchall())


def _chunks(ids: list[str], size: int = 500) -> list[list[str]]:
    return [ids[i:i + size] for i in range(0, len(ids), size)]
