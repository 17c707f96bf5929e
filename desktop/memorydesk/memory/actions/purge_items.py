"""Purge of an agent's note, a working-memory item or a policy (a secret or personal data the
review found there, or the forget check found quoting a purged fact): the same promise as a
fact's purge (``memory.actions.purge``) — the text leaves the file, its write-ahead log, the
history's copies (a quarantine kept the text there; a policy's edit or delete kept its row) and,
as asked, the backups beside the file. Not undoable.

A purged note is left empty (the row stays: the product's writers reuse one row per
agent, and a blank note is left out of the dispatch preamble); a purged working-memory
item or policy is deleted. A quarantined one is purged from where its quarantine kept it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, select

from memorydesk.core.errors import MemoryDeskError, StaleEdit
from memorydesk.core.inputs import check_reason
from memorydesk.memory.actions.base import ReviewerAction
from memorydesk.memory.actions.items import ITEM_KINDS, WORDS, kept_detail
from memorydesk.memory.actions.purge import (
    BACKUP_ACTIONS,
    BackupAction,
    BackupHolding,
    PurgeOutcome,
    erase_from_backup,
    scrub_history,
    settle_backups,
    text_needles,
)
from memorydesk.memory.history.record import ChangeResult, perform
from memorydesk.store import Workspace, files, wal
from memorydesk.store.engine import BUSY_TIMEOUT_MS, make_engine
from memorydesk.store.errors import translated
from memorydesk.store.layout import Layout, detect, table_names
from memorydesk.store.ours import DeskReviewDecision
from memorydesk.store.retry import with_retry

DECISIONS = DeskReviewDecision.__table__
PURGE_KINDS = (*ITEM_KINDS, "policy")
PURGE_WORDS = {**WORDS, "policy": "policy"}


def _table(layout: Layout, item_kind: str):
    return {"note": layout.notes, "working_item": layout.items, "policy": layout.policies}[item_kind]


def _text_column(table, item_kind: str):
    return table.c.rule if item_kind == "policy" else table.c.content


def erase_items(conn: Connection, layout: Layout, item_kind: str, ids: list[str], *, desk: bool) -> None:
    """Empty the notes (or delete the items or policies), and with the desk's tables the history's
    copies of their text and the decisions on them."""
    table = _table(layout, item_kind)
    if item_kind == "note":
        conn.execute(table.update().where(table.c.id.in_(ids)).values(content=""))
    else:
        conn.execute(table.delete().where(table.c.id.in_(ids)))
    if desk:
        scrub_history(conn, ids)
        conn.execute(DECISIONS.delete().where(DECISIONS.c.item_kind == item_kind, DECISIONS.c.item_id.in_(ids)))


@dataclass(frozen=True)
class PurgeItems(ReviewerAction):
    """Notes emptied or working-memory items deleted for good, with every copy of their text.
    Stores only the kind and the ids: it cannot be undone."""

    entity, name = "working_item", "purge"
    undoable = False
    item_kind: str
    ids: list[str]

    def forward(self, ws: Workspace, conn: Connection) -> None:
        erase_items(conn, ws.layout, self.item_kind, self.ids, desk=True)


@dataclass(frozen=True)
class PurgeNotes(PurgeItems):
    entity, name = "note", "purge"


@dataclass(frozen=True)
class PurgePolicies(PurgeItems):
    entity, name = "policy", "purge"


PURGE_ACTIONS = (PurgeItems, PurgeNotes, PurgePolicies)
ACTION_OF = {"note": PurgeNotes, "working_item": PurgeItems, "policy": PurgePolicies}


def _texts(ws: Workspace, conn: Connection, item_kind: str, ids: list[str]) -> dict[str, list[str]]:
    """Each item's text where it is now: its row, and the quarantine that kept it."""
    table = _table(ws.layout, item_kind)
    out: dict[str, list[str]] = {}
    for item_id, content in conn.execute(select(table.c.id, _text_column(table, item_kind))
                                         .where(table.c.id.in_(ids))):
        out.setdefault(item_id, []).append(content or "")
    if ws.desk_schema and item_kind in ITEM_KINDS:
        for item_id in ids:
            kept = kept_detail(conn, item_kind, item_id)
            if kept is not None:
                text = kept.get("content") if item_kind == "note" else (kept.get("row") or {}).get("content")
                out.setdefault(item_id, []).append(text or "")
    return out


def _needles(texts: dict[str, list[str]]) -> list[bytes]:
    raw = {t.encode("utf-8", "replace") for ts in texts.values() for t in ts}
    return [needle for r in raw for needle in text_needles(r)]


def _held_rows(path: Path, item_kind: str, ids: list[str]) -> list[str]:
    """The items a backup still has with text (a note not blank, an item present)."""
    engine = make_engine(path, read_only=True, immutable=True)
    try:
        with translated(path), engine.connect() as conn:
            layout = detect(table_names(conn))
            if layout is None:
                return []
            table = _table(layout, item_kind)
            query = select(table.c.id).where(table.c.id.in_(ids))
            if item_kind == "note":
                query = query.where(table.c.content != "")
            return list(conn.execute(query).scalars())
    finally:
        engine.dispose()


def backups_holding_items(ws: Workspace, item_kind: str, ids: Iterable[str]) -> list[BackupHolding]:
    """Backups beside ``ws`` that hold any of the items or their text."""
    ids = list(dict.fromkeys(ids))
    with ws.read() as conn:
        needles = _needles(_texts(ws, conn, item_kind, ids))
    out = []
    for path in files.backups_beside(ws.path):
        try:
            rows, unreadable = _held_rows(path, item_kind, ids), ""
        except MemoryDeskError as exc:
            rows, unreadable = [], str(exc)
        if rows or unreadable or wal.files_holding([path, Path(f"{path}-wal")], needles):
            out.append(BackupHolding(path, rows, unreadable))
    return out


def _erase_in_backup(path: Path, item_kind: str, ids: list[str], needles: list[bytes]) -> None:
    def erase(conn: Connection, layout: Layout, names: set[str]) -> None:
        erase_items(conn, layout, item_kind, ids, desk=False)
        if "memdesk_history" in names:
            scrub_history(conn, ids)

    erase_from_backup(path, needles, erase)


def purge_items(ws: Workspace, actor: str, item_kind: str, ids: Iterable[str], reason: str = "", *,
                backups: BackupAction = "keep") -> ChangeResult:
    """``purge_items_outcome`` as a change: its message says what was done and where the text still is."""
    outcome = purge_items_outcome(ws, actor, item_kind, ids, reason, backups=backups)
    change = outcome.change or ChangeResult(item_kind, [], [], "")
    change.message = "; ".join(outcome.lines())
    return change


def purge_items_outcome(ws: Workspace, actor: str, item_kind: str, ids: Iterable[str], reason: str = "", *,
                        backups: BackupAction = "keep") -> PurgeOutcome:
    """Purge notes or working-memory items; then the backups beside the file as ``backups`` says."""
    if item_kind not in PURGE_KINDS:
        raise MemoryDeskError(f"not a note, a working-memory item or a policy: {item_kind}")
    if backups not in BACKUP_ACTIONS:
        raise MemoryDeskError(f"backups: choose keep, erase or delete, not {backups!r}")
    reason = check_reason(reason)
    ids = list(dict.fromkeys(ids))
    if not ws.adopted:  # the backup the first change makes holds the text too: make it before looking
        ws.adopt()
    holding = backups_holding_items(ws, item_kind, ids)
    with ws.read() as conn:
        texts = _texts(ws, conn, item_kind, ids)
    needles = _needles(texts)
    missing = [i for i in ids if i not in texts and not any(i in h.fact_ids for h in holding)]
    if missing:
        raise StaleEdit(f"no {PURGE_WORDS[item_kind]} {missing[0]} in {ws.path.name} or a backup beside it; "
                        "nothing was purged")
    outcome = PurgeOutcome(None, None)
    present = [i for i in ids if i in texts]
    if present:
        outcome.change, outcome.wal = _purge_workspace(ws, actor, item_kind, present, reason.strip(), needles)
    settle_backups(outcome, holding, backups, lambda held: _erase_in_backup(held.path, item_kind, ids, needles))
    return outcome


def _purge_workspace(ws: Workspace, actor: str, item_kind: str, ids: list[str], reason: str,
                     needles: list[bytes]) -> tuple[ChangeResult, wal.WalState]:
    act_type: Any = ACTION_OF[item_kind]

    def work(conn: Connection) -> ChangeResult:
        hids = [perform(ws, conn, act_type(item_kind, [i]), entity_id=i, actor=actor, reason=reason)
                for i in ids]
        wal.mark_pending(conn)
        return ChangeResult(item_kind, ids, hids, f"{len(ids)} {PURGE_WORDS[item_kind]}(s) purged",
                            {"review": []})

    result = with_retry(ws, work)
    state = wal.finish_pending_erase(ws.path, wait_ms=BUSY_TIMEOUT_MS)
    ws.pending_erase = not state.done
    if not state.done:
        state = replace(state, holding=wal.files_holding([ws.path, Path(f"{ws.path}-wal")], needles))
    return result, state
