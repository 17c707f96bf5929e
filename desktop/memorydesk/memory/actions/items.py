"""Quarantine and release of an agent's note or a working-memory item (the Review tab), as
typed actions (``memory.actions.base``), each one transaction with one history row, undone by
Edit ▸ Undo — the same actions a fact or a policy has (``memory.actions.review``).

- A **note** is quarantined by emptying it (the product leaves a blank note out of the
  dispatch preamble); its text is kept in the history row, nowhere else. Its
  ``updated_at`` is left alone: the product's clock says when the *agent* wrote it.
  **Release** puts the text back — before whatever the agent wrote since, so nothing is
  lost (an agent appends ``- …`` lines to its note).
- A **working-memory item** is quarantined by taking its row out of the hot tier (agents
  stop getting it, consolidation cannot make it a fact); the whole row is kept in the
  history row, and release puts it back.

While quarantined, the scan reads the kept text (``quarantined_texts``), so the finding is
listed under the *Quarantined* state and can be released. Purge (``purge_items``) erases
the text, the history's copies included.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.actions.decisions import DECISIONS, add_decision, decision_row, drop_decision, needs_reason
from memorydesk.memory.history.record import HISTORY, ChangeResult, perform
from memorydesk.store import Workspace
from memorydesk.store.retry import with_retry

ITEM_KINDS = ("note", "working_item")
WORDS = {"note": "agent note", "working_item": "working-memory item"}


def joined(kept: str, current: str) -> str:
    """The released note: the quarantined text, then what the agent wrote since (if anything)."""
    return f"{kept}\n{current}" if current else kept


def _note_content(ws: Workspace, conn: Connection, note_id: str) -> str:
    notes = ws.layout.notes
    row = conn.execute(select(notes.c.content).where(notes.c.id == note_id)).first()
    if row is None:
        raise StaleEdit(f"note {note_id} no longer exists (its agent was deleted?); nothing was changed")
    return row.content or ""


def _set_note(ws: Workspace, conn: Connection, note_id: str, expect: str, value: str) -> None:
    if _note_content(ws, conn, note_id) != expect:
        raise StaleEdit(f"the agent wrote note {note_id} since; nothing was changed")
    notes = ws.layout.notes
    conn.execute(notes.update().where(notes.c.id == note_id).values(content=value))


def _item_row(ws: Workspace, conn: Connection, item_id: str):
    items = ws.layout.items
    return conn.execute(select(items).where(items.c.id == item_id)).first()


def _take_item(ws: Workspace, conn: Connection, row: dict[str, Any]) -> None:
    now = _item_row(ws, conn, row["id"])
    if now is None:
        raise StaleEdit(f"working-memory item {row['id']} is gone (consolidated or expired?); nothing was changed")
    if (now.content or "") != (row.get("content") or ""):
        raise StaleEdit(f"working-memory item {row['id']} changed since; nothing was changed")
    items = ws.layout.items
    conn.execute(items.delete().where(items.c.id == row["id"]))


def _put_item(ws: Workspace, conn: Connection, row: dict[str, Any]) -> None:
    if _item_row(ws, conn, row["id"]) is not None:
        raise StaleEdit(f"working-memory item {row['id']} is back already; nothing was changed")
    conn.execute(ws.layout.items.insert().values(**row))


@dataclass(frozen=True)
class _Decided(ReviewerAction):
    decision: dict[str, Any]

    def touched(self) -> dict[str, list[str]]:
        return {"review": [self.decision.get("finding_key", "")]}


@dataclass(frozen=True)
class QuarantineNote(_Decided):
    """A note emptied; ``content`` is its text, kept here. Undone by writing it back (refused
    when the agent wrote the note since: release it instead)."""

    entity, name = "note", "quarantine"
    id: str = ""
    content: str = ""

    def forward(self, ws: Workspace, conn: Connection) -> None:
        _set_note(ws, conn, self.id, self.content, "")
        add_decision(conn, self.decision)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        if _note_content(ws, conn, self.id) != "":
            raise StaleEdit(f"the agent wrote note {self.id} since the quarantine; Release puts the quarantined "
                            "text back before the new one")
        _set_note(ws, conn, self.id, "", self.content)
        drop_decision(conn, self.decision)


@dataclass(frozen=True)
class ReleaseNote(_Decided):
    """A quarantined note's text put back (``kept``), before what the agent wrote since
    (``current``). Undone by setting ``current`` again."""

    entity, name = "note", "release"
    id: str = ""
    kept: str = ""
    current: str = ""

    def forward(self, ws: Workspace, conn: Connection) -> None:
        _set_note(ws, conn, self.id, self.current, joined(self.kept, self.current))
        drop_decision(conn, self.decision)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        _set_note(ws, conn, self.id, joined(self.kept, self.current), self.current)
        add_decision(conn, self.decision)


@dataclass(frozen=True)
class QuarantineWorkingItem(_Decided):
    """A hot-tier item taken out; ``row`` is the whole row, kept here. Undone by inserting it again."""

    entity, name = "working_item", "quarantine"
    row: dict[str, Any] | None = None

    def forward(self, ws: Workspace, conn: Connection) -> None:
        _take_item(ws, conn, dict(self.row or {}))
        add_decision(conn, self.decision)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        _put_item(ws, conn, dict(self.row or {}))
        drop_decision(conn, self.decision)


@dataclass(frozen=True)
class ReleaseWorkingItem(_Decided):
    """A quarantined item's row inserted again. Undone by taking it out again."""

    entity, name = "working_item", "release"
    row: dict[str, Any] | None = None

    def forward(self, ws: Workspace, conn: Connection) -> None:
        _put_item(ws, conn, dict(self.row or {}))
        drop_decision(conn, self.decision)

    def inverse(self, ws: Workspace, conn: Connection) -> None:
        _take_item(ws, conn, dict(self.row or {}))
        add_decision(conn, self.decision)


ITEM_ACTIONS = (QuarantineNote, ReleaseNote, QuarantineWorkingItem, ReleaseWorkingItem)


# -- the calls the Review tab makes (through ``memory.actions.review.quarantine`` / ``release``) --------------
def quarantine(ws: Workspace, actor: str, finding: dict[str, Any], reason: str) -> ChangeResult:
    """Empty the finding's note, or take its working-memory item out of the hot tier."""
    reason = needs_reason(reason)
    kind, item = finding["item_kind"], finding["item_id"]
    if kind not in ITEM_KINDS:
        raise MemoryDeskError(f"not a note or a working-memory item: {kind}")

    def work(conn: Connection) -> ChangeResult:
        decision = decision_row(actor, reason, finding, "quarantined")
        if kind == "note":
            act: ReviewerAction = QuarantineNote(decision, item, _note_content(ws, conn, item))
        else:
            row = _item_row(ws, conn, item)
            if row is None:
                raise StaleEdit(f"working-memory item {item} is gone (consolidated or expired?); nothing was changed")
            act = QuarantineWorkingItem(decision, dict(row._mapping))
        hid = perform(ws, conn, act, entity_id=item, actor=actor, reason=reason)
        return ChangeResult(kind, [item], [hid], f"{WORDS[kind]} quarantined", {"review": [finding["key"]]})

    return with_retry(ws, work)


def release(ws: Workspace, actor: str, item_kind: str, item_id: str, reason: str) -> ChangeResult:
    """Put a quarantined note's text or working-memory item back."""
    reason = needs_reason(reason)

    def work(conn: Connection) -> ChangeResult:
        decision = conn.execute(select(DECISIONS).where(
            DECISIONS.c.item_kind == item_kind, DECISIONS.c.item_id == item_id,
            DECISIONS.c.decision == "quarantined")).first()
        kept = kept_detail(conn, item_kind, item_id)
        if decision is None or kept is None:
            raise StaleEdit(f"{WORDS.get(item_kind, item_kind)} {item_id} is not quarantined")
        d = dict(decision._mapping)
        if item_kind == "note":
            act: ReviewerAction = ReleaseNote(d, item_id, kept.get("content", ""), _note_content(ws, conn, item_id))
        else:
            act = ReleaseWorkingItem(d, kept.get("row"))
        hid = perform(ws, conn, act, entity_id=item_id, actor=actor, reason=reason)
        return ChangeResult(item_kind, [item_id], [hid], f"{WORDS[item_kind]} released", {"review": [d["finding_key"]]})

    return with_retry(ws, work)


def kept_detail(conn: Connection, item_kind: str, item_id: str) -> dict[str, Any] | None:
    """The detail of this item's latest quarantine (its kept text), or None (none, or purged since)."""
    # the newest quarantine (an undone one too: a redo makes it hold again; the decision row says
    # whether the item is quarantined now)
    row = conn.execute(select(HISTORY.c.detail).where(
        HISTORY.c.entity == item_kind, HISTORY.c.entity_id == item_id, HISTORY.c.action == "quarantine")
        .order_by(HISTORY.c.id.desc()).limit(1)).first()
    if row is None:
        return None
    try:
        detail = json.loads(row.detail or "{}")
    except ValueError:
        return None
    return detail if isinstance(detail, dict) and not detail.get("purged") else None


def quarantined_texts(ws: Workspace, conn: Connection) -> list[tuple[str, str, dict[str, Any]]]:
    """(item kind, id, kept detail) of every note and working-memory item quarantined now."""
    if ws.desk_schema == 0:
        return []
    have = conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = ?", (DECISIONS.name,)).first()
    if have is None:
        return []
    out = []
    for kind, item_id in conn.execute(select(DECISIONS.c.item_kind, DECISIONS.c.item_id).where(
            DECISIONS.c.item_kind.in_(ITEM_KINDS), DECISIONS.c.decision == "quarantined").distinct()).all():
        detail = kept_detail(conn, kind, item_id)
        if detail is not None:
            out.append((kind, item_id, detail))
    return out
