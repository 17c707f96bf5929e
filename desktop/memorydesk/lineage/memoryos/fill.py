"""How full short-term memory is, and what that says about an interrupted migration.

MemoryOS migrates only when short-term memory is full (``add_memory`` migrates the oldest
QA *before* appending the new one), so after any completed ``add_memory`` that ever
migrated, ``short_term.json`` holds exactly its capacity (``short_term_capacity``, a
constructor setting: not in the files, 10 by default in MemoryOS's source). Fewer
entries than the capacity while ``mid_term.json`` holds pages means a migration — or
the add after it — did not finish: ``pop_oldest()`` had already saved the shorter
file, and the popped QA never reached mid-term. The lost QA(s) were added after the
newest page MemoryOS did write and before the oldest entry still in short-term memory.

More entries than the capacity is not a loss (the capacity was lowered since). A
deployment whose capacity changed is judged by the one in force for its last run: that
is the capacity to give. Without a capacity nothing is judged; the report says how full
short-term memory is and that a capacity is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memorydesk.core.receipts import format_utc
from memorydesk.lineage.memoryos.anomalies import Anomaly
from memorydesk.lineage.memoryos.files import SHORT_TERM
from memorydesk.lineage.memoryos.records import UserFiles


@dataclass(frozen=True)
class StmFill:
    """How many entries short-term memory holds, and its capacity (None when not given)."""

    entries: int
    capacity: int | None

    def to_json(self) -> dict[str, Any]:
        """``{"entries", "capacity"}``, as ``--json`` reports it."""
        return {"entries": self.entries, "capacity": self.capacity}


def stm_fill(user: UserFiles, capacity: int | None) -> StmFill:
    return StmFill(len(user.stm), capacity)


def interrupted_migration(user: UserFiles, capacity: int | None) -> Anomaly | None:
    """The anomaly when short-term memory holds fewer than ``capacity`` entries while
    mid-term memory holds pages (see the module docstring); None otherwise."""
    pages = [page for session in user.sessions for page in session.pages]
    if capacity is None or not pages or len(user.stm) >= capacity:
        return None
    newest = max(pages, key=lambda page: page.qa.at.utc)
    oldest = min(user.stm, key=lambda qa: qa.at.utc) if user.stm else None
    missing = capacity - len(user.stm)
    lower = f"{newest.qa.at.local} ({format_utc(newest.qa.at.utc)})"
    window = (f"between {lower} and {oldest.at.local} ({format_utc(oldest.at.utc)})" if oldest is not None
              else f"after {lower}")
    detail = (f"{missing} QA(s) added {window} are in neither file: short-term memory holds {len(user.stm)} of "
              f"its capacity {capacity} while mid-term memory holds {len(pages)} page(s), so a migration (or the "
              f"add_memory after it) did not finish after the newest mid-term page ({newest.page_id}). To "
              f"reconcile: find {user.user}'s QA(s) from that interval in the agent's own conversation log and add "
              "them again; do not retry the migration blindly")
    extra = {"from_utc": format_utc(newest.qa.at.utc), "to_utc": format_utc(oldest.at.utc) if oldest else None,
             "from_local": newest.qa.at.local, "to_local": oldest.at.local if oldest else None,
             "entries": len(user.stm), "capacity": capacity, "missing": missing}
    return Anomaly("interrupted_migration", user.user, user.file(SHORT_TERM), "", detail, extra)
