"""When each QA moved: MemoryOS's own rule where the short-term capacity is known, an upper
bound where it is not.

MemoryOS's ``add_memory`` migrates *before* it appends: when short-term memory is full (it
holds ``short_term_capacity`` QAs), the add of a new QA first pops the oldest one and writes
it as a mid-term page (three LLM calls: seconds), then appends the new QA. Each migration
moves exactly one QA. So, counting a user's QAs in the order they were added, QA *i* leaves
short-term memory — and its page is written right after — when QA *i + capacity* is added,
at that QA's timestamp. Given the capacity (``--stm-capacity``), that is the time of the move:
``exact``.

Where the rule cannot be used, the move is dated by an **upper bound** and ``exact`` is
False: no capacity was given; the QA that triggered the move is one an interrupted
migration lost (its time is only known to lie in an interval: its end is used); or the
files contradict the rule (a capacity larger than the one MemoryOS ran with). The bound is
the earliest time the files prove the page was in mid-term memory by — the session's
creation for the page that created it (``add_session`` stamps it), else the session's
``last_visit_time`` — tightened by order: MemoryOS moves the oldest QA first, so a QA left
no later than any QA added after it.

A promotion (``lpm``) is always dated by an upper bound: the ``last_visit_time`` of a
session holding an analysed copy (the promotion sets it; later merges and retrievals only
move it later), and never before the move.

An **interrupted migration** (:class:`Lost`): short-term memory holds fewer than its
capacity while mid-term memory holds pages, so ``pop_oldest`` saved the shorter file and
the popped QA never reached mid-term. It was added after the newest page's QA and before
the oldest QA still in short-term memory, and it was popped by the next add after the
newest one — when MemoryOS was next used, which the files cannot say: the newest entry's
time is a *lower* bound of the pop (the QA was still held then). The pop saved the shorter
``short_term.json`` and nothing wrote it since (the next add would have filled it again), so
the file's modification time is an *upper* bound (:meth:`Lost.popped_between`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memorydesk.lineage.memoryos.records import QA, UserFiles


@dataclass(frozen=True)
class Move:
    """When a QA left short-term memory and its page was written (the same instant here)."""

    at: datetime
    exact: bool  # MemoryOS's rule with the capacity; False: an upper bound


@dataclass(frozen=True)
class Lost:
    """An interrupted migration: ``missing`` QAs added between ``after`` (the newest page's QA)
    and ``before`` (the oldest QA still in short-term memory; None when it is empty), popped
    after ``newest`` (the newest QA still there, else ``after``)."""

    user: str
    missing: int
    entries: int
    capacity: int
    pages: int
    after: QA  # the newest mid-term page's QA
    after_page: str  # its page id
    before: QA | None
    newest: QA | None
    written_at: datetime | None = None  # short_term.json's modification time (UTC), when known

    def popped_between(self, observed: datetime) -> tuple[datetime, datetime]:
        """When the lost QA(s) left short-term memory: after the newest QA still there was added
        (a lower bound), and by the time ``short_term.json`` was last written — the pop's own
        write — or, without that, by ``observed`` (when the files were read): an upper bound."""
        lower = (self.newest or self.after).at.utc
        return lower, max(lower, self.written_at or observed)


def lost_interval(user: UserFiles, capacity: int | None) -> Lost | None:
    """The interrupted migration the files show with this capacity (None: none, or no capacity)."""
    pages = [page for session in user.sessions for page in session.pages]
    if capacity is None or not pages or len(user.stm) >= capacity:
        return None
    newest_page = max(pages, key=lambda page: page.qa.at.utc)
    oldest = min(user.stm, key=lambda qa: qa.at.utc) if user.stm else None
    newest = max(user.stm, key=lambda qa: qa.at.utc) if user.stm else None
    return Lost(user.user, capacity - len(user.stm), len(user.stm), capacity, len(pages), newest_page.qa,
                newest_page.page_id, oldest, newest, user.stm_written_at)


def _bound_of(life) -> datetime:
    """The earliest time the files prove this QA's page was in mid-term memory by."""
    times = []
    for page, session in life.copies:
        created_it = session.pages and session.pages[0].page_id == page.page_id
        times.append(session.created.utc if created_it else session.last_visit.utc)
    return max(life.qa.at.utc, min(times))


def move_times(user: UserFiles, user_lives: list, capacity: int | None) -> dict[str, Move]:
    """Per QA that reached mid-term memory (``QaLife.item_id``): when it moved.

    ``user_lives`` are the user's QAs in the order they were added (``lineage.lives``)."""
    moved = [life for life in user_lives if life.copies]
    if not moved:
        return {}
    bounds: dict[str, datetime] = {}
    latest: datetime | None = None
    for life in reversed(moved):  # oldest first out: no later than any QA added after it
        own = _bound_of(life)
        latest = own if latest is None else min(latest, own)
        bounds[life.item_id] = max(life.qa.at.utc, latest)
    moves = {item: Move(at, False) for item, at in bounds.items()}
    if capacity is None:
        return moves
    lost = lost_interval(user, capacity)
    # the QAs in the order they were added; an interrupted migration's lost QAs sit before the oldest
    # QA still in short-term memory, known only by the end of their interval
    sequence: list[tuple[datetime | None, bool]] = []  # (time added, exact)
    first_resident = next((k for k, life in enumerate(user_lives) if life.in_stm), len(user_lives))
    for k, life in enumerate(user_lives):
        if lost is not None and k == first_resident:
            sequence += [(lost.before.at.utc if lost.before else None, False)] * lost.missing
        sequence.append((life.qa.at.utc, True))
    if lost is not None and first_resident == len(user_lives):
        sequence += [(None, False)] * lost.missing
    position = {}
    offset = 0
    for k, life in enumerate(user_lives):
        if lost is not None and k == first_resident:
            offset = lost.missing
        position[life.item_id] = k + offset
    for life in moved:
        if life.in_stm:
            continue
        successor = position[life.item_id] + capacity
        if successor >= len(sequence):
            continue  # the files hold too few QAs after it for this capacity: the bound stays
        at, exact = sequence[successor]
        if at is None or at < life.qa.at.utc or at > bounds[life.item_id]:
            continue  # unknown, or contradicting the files: the bound stays
        moves[life.item_id] = Move(at, exact)
    return moves
