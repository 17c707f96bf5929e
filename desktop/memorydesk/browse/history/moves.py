"""The desk's own changes to facts' ``superseded_by``, as its history keeps them (read-only).

Every change the desk makes to a fact's ``superseded_by`` — an edit, a delete, a restore,
Restore Loser, Keep A/B, a merge, a quarantine, and their undos and redos — is kept with its
history row (``moves``: ``[fact, before, after]``, ``memory.history.record.note_move``). Read
here once for *as of* (the desk's changes applied backwards), the History (what the product
had written before the desk changed it) and the conflict trail (a supersession the desk took
back is still told, with who took it back, when and why).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["Move", "desk_moves"]


@dataclass(frozen=True)
class Move:
    """A fact's ``superseded_by`` went from ``before`` to ``after`` in the desk's entry ``entry``."""

    at: int
    before: str | None
    after: str | None
    entry: int
    actor: str
    reason: str
    action: str  # entity.action of the entry: ``conflict.restore_loser``, ``fact.undo``


def desk_moves(conn: Any) -> dict[str, list[Move]]:
    """Every recorded move of the desk, by fact, oldest first (empty without the desk's history)."""
    found = conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memdesk_history'")\
        .first()
    if found is None:
        return {}
    out: dict[str, list[Move]] = {}
    rows = conn.exec_driver_sql("SELECT id, entity, action, actor, reason, at, detail FROM memdesk_history "
                                "WHERE instr(detail, '\"moves\"') > 0 ORDER BY id").all()
    for hid, entity, action, actor, reason, at, detail in rows:
        try:
            moves = json.loads(detail or "{}").get("moves", [])
        except (ValueError, AttributeError):
            continue
        for move in moves if isinstance(moves, list) else []:
            if isinstance(move, list) and len(move) == 3:
                fact_id, before, after = move
                out.setdefault(str(fact_id), []).append(
                    Move(int(at), before, after, int(hid), actor or "", reason or "", f"{entity}.{action}"))
    return out
