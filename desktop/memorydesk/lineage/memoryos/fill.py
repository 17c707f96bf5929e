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
from datetime import UTC, datetime, tzinfo
from typing import Any

from memorydesk.core.receipts import format_utc
from memorydesk.lineage.memoryos.anomalies import Anomaly
from memorydesk.lineage.memoryos.files import SHORT_TERM
from memorydesk.lineage.memoryos.lineage import lost_run_id
from memorydesk.lineage.memoryos.records import UserFiles
from memorydesk.lineage.memoryos.timing import lost_interval


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


def interrupted_migration(user: UserFiles, capacity: int | None, zone: tzinfo | None = None) -> Anomaly | None:
    """The anomaly when short-term memory holds fewer than ``capacity`` entries while
    mid-term memory holds pages (see the module docstring); None otherwise. It names the
    at-risk run the import writes for it (``lineage.lost_receipts``)."""
    lost = lost_interval(user, capacity)
    if lost is None:
        return None
    after, before = lost.after.at, lost.before.at if lost.before else None
    lower = f"{after.local} ({format_utc(after.utc)})"
    window = f"between {lower} and {before.local} ({format_utc(before.utc)})" if before else f"after {lower}"
    popped = lost.newest.at if lost.newest else after
    written = lost.written_at
    by = (f"by {_local(written, zone)} ({format_utc(written)}) at the latest, when short_term.json was last "
          "written" if written is not None and written >= popped.utc else "by the time these files were read at the "
          "latest")
    run = lost_run_id(lost)
    qas = "1 QA" if lost.missing == 1 else f"{lost.missing} QAs"
    pages = "1 page" if lost.pages == 1 else f"{lost.pages} pages"
    detail = (f"{qas} added {window} {'is' if lost.missing == 1 else 'are'} in neither file: short-term memory holds "
              f"{lost.entries} of its capacity {capacity} while mid-term memory holds {pages}, so a migration (or the "
              f"add_memory after it) did not finish after the newest mid-term page ({lost.after_page}); "
              f"{'it was' if lost.missing == 1 else 'they were'} popped by the first add_memory after {popped.local} "
              f"({format_utc(popped.utc)}) — a time the files do not hold, so that is only the earliest it can have "
              f"happened — and {by}. The Lineage tab shows this as the at-risk run {run}, at-risk from that latest "
              f"time on (before it the loss is not certain yet: waiting, then stale evidence). To reconcile: find "
              f"{user.user}'s {'QA' if lost.missing == 1 else 'QAs'} from that interval in the agent's own "
              f"conversation log and add {'it' if lost.missing == 1 else 'them'} again; do not retry the migration "
              "blindly")
    extra = {"from_utc": format_utc(after.utc), "to_utc": format_utc(before.utc) if before else None,
             "popped_after_utc": format_utc(popped.utc),
             "popped_by_utc": format_utc(written) if written is not None and written >= popped.utc else None,
             "from_local": after.local, "to_local": before.local if before else None,
             "entries": lost.entries, "capacity": capacity, "missing": lost.missing, "run_id": run}
    return Anomaly("interrupted_migration", user.user, user.file(SHORT_TERM), "", detail, extra)


def _local(moment: datetime, zone: tzinfo | None) -> str:
    """``moment`` as a wall-clock time in MemoryOS's zone (how its own times read)."""
    return moment.astimezone(zone or UTC).strftime("%Y-%m-%d %H:%M:%S")
