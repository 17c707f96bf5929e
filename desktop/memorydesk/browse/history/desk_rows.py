"""The desk's own rows in the history, and what they say about the product's.

``desk`` is the history source of the desk's own changes (who, when, why, and what changed
in one line). ``DeskRecords`` is what the product's sources need to know of them, read once
(the history table is small):

- ``made``: the facts and policies the desk wrote (an edit's new version): their creation is
  the desk's row, not an agent's;
- ``moves``: every change the desk made to a fact's ``superseded_by`` (kept with its history
  row since the desk applies its changes backwards, ``browse.history.as_of``), so what the
  product had written before the desk changed it is known — a loser the desk restored was
  still superseded by the product's write, and the History says so;
- ``legacy``: the ids named by changes an older desk made without keeping their moves: a
  supersession between two of them may be the desk's, and is left to its rows;
- ``redacted_by``: the facts whose text a redaction rewrote in place, and who redacted them:
  the agent's rows show the text as it is now, and say so.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memorydesk.browse.history.event import Context, Event, Group, page
from memorydesk.browse.history.moves import Move, desk_moves
from memorydesk.core.change_words import grant_cells, grant_words, move_words
from memorydesk.store.workspace import Workspace

#: changes that move facts' ``superseded_by`` (older rows of these kept no moves)
MOVING = {("fact", "edit"), ("fact", "delete"), ("fact", "restore"), ("fact", "merge"), ("fact", "quarantine"),
          ("conflict", "restore_loser"), ("conflict", "keep"), ("conflict", "review_burst"), ("fact", "undo"),
          ("fact", "redo"), ("conflict", "undo"), ("conflict", "redo")}

__all__ = ["DeskRecords", "desk", "desk_records", "desk_summary"]


@dataclass
class DeskRecords:
    made: set[str] = field(default_factory=set)
    moves: dict[str, list[Move]] = field(default_factory=dict)  # oldest first
    legacy: set[str] = field(default_factory=set)
    #: a fact whose text a redaction rewrote in place (its earlier versions, not undone) → who redacted it
    redacted_by: dict[str, str] = field(default_factory=dict)
    #: a fact the desk moved → the superseded_by values the product gave it (before the desk's
    #: first move, and after its last when an agent changed it since)
    _product: dict[str, list[str]] = field(default_factory=dict)

    def product_values(self, fact_id: str, now: str | None) -> list[str]:
        """What the file (not the desk) pointed ``fact_id`` at, given its value ``now``: its value
        before the desk first moved it, and its value now when that is not what the desk left."""
        ms = self.moves.get(fact_id)
        if not ms:
            return [now] if now and not now.startswith("human:") else []
        out = []
        first = ms[0].before
        if first and not first.startswith("human:"):
            out.append(first)
        if now != ms[-1].after and now and not now.startswith("human:") and now not in out:
            out.append(now)
        return out

    def formerly(self, target: str) -> list[str]:
        """Facts the product pointed at ``target`` that the desk has since pointed elsewhere."""
        if not self._product:
            for fid, ms in self.moves.items():
                first = ms[0].before
                if first and ":" not in first:
                    self._product.setdefault(first, []).append(fid)
        return self._product.get(target, [])

    def left_to_the_desk(self, loser: str, winner: str) -> bool:
        """A supersession between two facts an older desk's changes name (without their moves)."""
        return loser in self.legacy and winner in self.legacy


def desk_records(ws: Workspace) -> DeskRecords:
    out = DeskRecords()
    if ws.desk_schema == 0:
        return out
    with ws.read() as conn:
        rows = conn.exec_driver_sql("SELECT entity, entity_id, before_id, after_id, action, detail, actor, undone_by "
                                    "FROM memdesk_history ORDER BY id").all()
        out.moves = desk_moves(conn)
    for entity, eid, before, after, act, detail, actor, undone_by in rows:
        try:
            d = json.loads(detail or "{}")
        except ValueError:
            d = {}
        if not isinstance(d, dict):
            d = {}
        if (entity, act) == ("fact", "edit") and after:
            out.made.add(after)
        if isinstance(d.get("new_id"), str) and act not in ("undo", "redo"):
            out.made.add(d["new_id"])
        if (entity, act) == ("fact", "redact") and undone_by is None and isinstance(d.get("before"), dict):
            out.redacted_by.update((fid, actor) for fid in d["before"] if isinstance(fid, str))
        if "moves" not in d and (entity, act) in MOVING:
            out.legacy.update(i for i in (eid, before, after) if i)
            out.legacy.update(_strings(d))
    return out


def _strings(value: Any, depth: int = 0) -> Iterable[str]:
    if depth > 3:
        return
    if isinstance(value, str) and 0 < len(value) <= 64:
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in ("new_row", "row", "rows", "content", "review", "reviews"):
                yield from _strings(v, depth + 1)
    elif isinstance(value, list):
        for v in value[:10_000]:
            yield from _strings(v, depth + 1)


def desk(ctx: Context, pos: int | None, n: int) -> list[Group]:
    if ctx.ws.desk_schema == 0:
        return []
    got = page(ctx, "entity, entity_id, before_id, after_id, action, actor, reason, at, detail, undo_of, undone_by",
               "memdesk_history", pos, n, key="id")
    originals = _originals(ctx, [r[10] for r in got if r[10]])
    out: list[Group] = []
    for hid, entity, eid, before, after, act, actor, reason, at, detail, undo_of, undone_by in got:
        ids = tuple(dict.fromkeys(i for i in (eid, before, after) if i))
        summary = desk_summary(entity, act, eid, before, after, undo_of, detail, originals.get(undo_of or 0))
        event = Event(at, actor, "reviewer", entity, act, ids, summary, reason or "", hid, undone_by, detail or "{}")
        out.append((hid, at, [event] if ctx.in_range(at) else []))
    return out


def _originals(ctx: Context, ids: list[int]) -> dict[int, tuple[str, str, str, str, bool]]:
    """For each entry an undo or a redo names: (entity, action, entity id, detail) of the change
    itself, and whether the entry named puts it back (an undo of it) or does it again."""
    out: dict[int, tuple[str, str, str, str, bool]] = {}
    if not ids:
        return out
    with ctx.ws.read() as conn:
        for hid in dict.fromkeys(ids):
            row, back, seen = None, False, 0
            wanted: int | None = hid
            while wanted is not None and seen < 100:
                row = conn.exec_driver_sql("SELECT entity, entity_id, action, detail, undo_of FROM memdesk_history "
                                           "WHERE id = ?", (wanted,)).first()
                if row is None or row[2] not in ("undo", "redo"):
                    break
                back = not back if row[2] == "undo" else back
                wanted, seen = row[4], seen + 1
            if row is not None:
                out[hid] = (row[0], row[2], row[1], row[3] or "{}", back)
    return out


def _detail(detail: str | None) -> dict[str, Any]:
    try:
        d = json.loads(detail or "{}")
    except ValueError:
        return {}
    return d if isinstance(d, dict) else {}


def desk_summary(entity: str, act: str, eid: str, before: str | None, after: str | None, undo_of: int | None,
                 detail: str | None, original: tuple[str, str, str, str, bool] | None = None) -> str:
    """One line: what the change was and what it changed (a grant edit: its cells; an undo: what
    it put back)."""
    d = _detail(detail)
    moved = f": {move_words(d['moves'])}" if d.get("moves") else ""
    if act in ("undo", "redo"):
        head = f"{act} of entry {undo_of} ({entity} {eid})"
        if original is not None and original[0] == "grant":
            # it reverses the entry it names: the change's cells put back, or (a redo) set again
            head += f": {grant_words(_detail(original[3]), back=not original[4])}"
        return head + moved
    if entity == "forget":  # a forget receipt: its own one-line verdict (content-free)
        try:
            return f"forget check {eid}: {d['receipt']['summary']}"
        except (KeyError, TypeError):
            return f"forget check {eid}"
    if entity == "grant":
        return f"{act} grant {grant_words(d)}" if len(grant_cells(d)) == 1 else f"{act} grant {eid}: {grant_words(d)}"
    if before and after and before != after:
        return f"{act} {entity} {before} → {after}{moved}"
    ids = d.get("ids")
    count = len(ids) if isinstance(ids, list) else 0
    if entity == "fact" and act == "embed":
        return f"vectors written for {count:,} fact{'s' if count != 1 else ''} that had none"
    return f"{act} {entity} {eid}" + (f" ({count} rows)" if count > 1 else "") + moved
