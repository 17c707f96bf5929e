"""When a fact was set aside, and by whom, as far as the file says: the one rule the History,
the conflict trail and *as of* use for a supersession the product's rows record (the desk's
own changes are told by its history rows, which say who, when and why).

For a fact whose ``superseded_by`` holds ``by`` (CC_SCHEMA.md §7.2, §8):

- ``system:cleanup``: the product's cleanup leaves ``updated_at`` as it was and records no time;
  it archives only facts more than 30 whole days old, so it happened no earlier than 31 days
  after ``created_at`` (nor before ``updated_at``) — that bound, marked ``after``: the time is
  unknown;
- another sentinel (``system:harvest``; a ``human:`` one an older desk wrote): at the fact's own
  ``updated_at`` (the product sets it when it supersedes), by that sentinel;
- a fact created at or after it: at that fact's ``created_at``, by the agent whose write it was
  (a newer fact winning a contradiction, or replacing it);
- an older fact, where a contradiction row records the pair: the fact's own write lost to it
  (the product lets the new fact lose), by the fact's own author, at the row's time — or at
  its ``updated_at`` when that is earlier (the supersession is an update of the row, so it
  happened no later than the row's last update; the two agree in a file the product wrote);
- otherwise (an older fact no row records — a supersession cycle, the ``supersede_fact`` tool —
  or an id that names no fact): at its own ``updated_at``, by nobody the file names.

``superseded_at_sql`` in ``browse.history.as_of`` is the same rule in SQL, for the lists.
"""

from __future__ import annotations

from dataclasses import dataclass

CLEANUP = "system:cleanup"
#: the product's cleanup archives a fact whose age in whole days is more than 30: 31 days at the least
CLEANUP_AGE = 31 * 86400

__all__ = ["CLEANUP", "CLEANUP_AGE", "SetAside", "Written", "cleanup_earliest", "set_aside"]


@dataclass(frozen=True)
class Written:
    """A fact as the rule needs it (``key``: its rowid, which orders two facts of one second)."""

    id: str
    created_at: int
    updated_at: int
    superseded_by: str | None = None
    agent_id: str | None = None
    role: str | None = None
    key: int = 0


@dataclass(frozen=True)
class SetAside:
    """When and by whom a fact was set aside.

    ``kind``: ``agent`` (the write of ``writer`` did it), ``sentinel`` (``by`` is a sentinel:
    ``system:…`` or ``human:…``), or ``unknown`` (nobody the file names). ``after``: the file
    does not say when; ``at`` is the earliest it can have been. ``why``: in a few words, for
    a person (``contradiction`` when a conflict row records it)."""

    at: int
    kind: str
    by: str
    why: str
    writer: Written | None = None
    after: bool = False

    @property
    def sentinel(self) -> bool:
        return self.kind == "sentinel"


def cleanup_earliest(created_at: int, updated_at: int) -> int:
    """The earliest a ``system:cleanup`` can have set a fact aside."""
    return max(int(created_at) + CLEANUP_AGE, int(updated_at))


def set_aside(old: Written, new: Written | None, contradiction_at: int | None = None) -> SetAside:
    """The rule (see the module docstring) for ``old``, whose ``superseded_by`` names ``new``
    (None: a sentinel, or an id that names no fact). ``contradiction_at``: the time of the
    contradiction row whose loser is ``old`` and whose winner is ``new``, when there is one."""
    by = old.superseded_by or ""
    if by == CLEANUP:
        return SetAside(cleanup_earliest(old.created_at, old.updated_at), "sentinel", by,
                        "archived by the product's cleanup at an unknown time, not before this (the cleanup records "
                        "no time; it archives facts more than 30 days old)", after=True)
    if by.startswith(("system:", "human:")):
        return SetAside(int(old.updated_at), "sentinel", by, f"sentinel {by}")
    if new is None:
        return SetAside(int(old.updated_at), "unknown", by, f"{by} names no fact; timed by its updated_at")
    recorded = contradiction_at is not None
    if new.created_at >= old.created_at or recorded:
        at = int(new.created_at) if new.created_at >= old.created_at else min(int(contradiction_at or 0),
                                                                               int(old.updated_at))
        if not recorded or (new.created_at, new.key) >= (old.created_at, old.key):  # the newer write did it
            return SetAside(at, "agent", new.id, "contradiction" if recorded else "superseded by a newer fact",
                            writer=new)
        return SetAside(at, "agent", new.id, "contradiction: its own write lost to an older fact", writer=old)
    if new.superseded_by == old.id:
        why = f"a supersession cycle ({new.id} is older and superseded by it); timed by its updated_at"
    else:
        why = f"{new.id} is older than it and no conflict row records it; timed by its updated_at"
    return SetAside(int(old.updated_at), "unknown", new.id, why)
