"""Each QA's life through MemoryOS's tiers, and the content-free receipts the files prove.

One run per QA (docs/receipts.md). A QA is the same one in ``short_term.json`` and,
once migrated, as a page in ``mid_term.json``: MemoryOS copies its text and timestamp
into the page, so the QA's identity is (user, timestamp, question, answer), hashed.

What the files prove, and the receipts derived from it (times: ``timing``):

* a QA in STM, or as a page: ``stm committed sourcePresent:true`` at the QA's own time,
  declaring a wait with no deadline (below: in STM a QA waits, it is not missing);
* a page in MTM (not also in STM): ``stm committed sourcePresent:false`` and ``mtm
  committed`` when it moved — MemoryOS's own rule given the short-term capacity, else an
  upper bound (``timing.move_times``);
* a page whose copy is ``analyzed`` (its session was promoted): ``lpm committed`` by its
  session's ``last_visit_time`` (an upper bound), never before the move — unless the
  promotion that analysed it was one whose LLM failed (``llm.failed_promotions``): then
  ``lpm failed`` at that promotion's time, for nothing was extracted (never healthy);
* what went wrong in a move, each an ``mtm failed`` beside the ``mtm committed`` at the
  same instant (the page is in mid-term memory, so the run is not at risk; ``uncertain``,
  never healthy): the LLM failed while the page was moved (``meta_info`` is its error string,
  or the page opened a fallback session), or MemoryOS inserted the page more than once
  (``mtm-duplicate-<k>@<session>``: one per extra copy — the two-themes duplicate);
* a QA whose ``agent_response`` is the LLM's error string (``get_response`` during an
  outage): ``generation failed`` at the QA's time;
* a QA an earlier import found in STM that is now in neither file:
  ``stm committed sourcePresent:false`` at ``short_term.json``'s modification time
  (MemoryOS removes the source first: until the page is written, nothing holds it);
* a QA still in STM (not yet a page) is *waiting*, not missing: MemoryOS moves it at the
  next ``add_memory`` once short-term memory is full, whenever that is, so
  ``stm waiting sourcePresent:true`` with no deadline (``waitingUntil`` = ``NO_DEADLINE``)
  at the newest time ``short_term.json`` is known to have held it (its newest entry's
  time: that add saved every entry still there). Its run is waiting while that evidence
  is fresh, stale after the freshness window, and at-risk only once it leaves STM
  without reaching MTM (the receipt above, from a later import or ``--watch`` pass);
* the QA(s) an interrupted migration lost (``timing.Lost``, with the capacity): one run
  of their own, ``memoryos:<user>:interrupted-migration:<digest>``, one version per lost
  QA naming the interval it was added in — ``stm committed sourcePresent:true`` by the
  oldest QA still in STM (it was held then), ``stm waiting`` at the newest one (still held
  then: it was popped by the next add, a time the files do not hold) and ``stm committed
  sourcePresent:false`` when ``short_term.json`` was last written (the pop's own write: by
  then it had certainly happened — an upper bound, like the other bounded times here), so
  the run is waiting (then stale evidence) while the loss is not certain yet, and at-risk
  (``source_at_risk``) from then on.

Each receipt's ``sourceVersion`` names the importer and how it dated the moves:
``…; stm=<capacity>)`` for MemoryOS's rule, ``…; moves dated by upper bounds)`` where a move
is a bound (:func:`import_timing` reads it back). A promotion is always a bound.

A QA's run and version are the ones the receipts adapter gives it (``adapters.memoryos.qa_run``):
``memoryos:<user>:qa-<hash>``, the hash of the user, the QA's timestamp as MemoryOS wrote it and
its order among that user's QAs with that timestamp (as the files list them) — so receipts of
the adapter and of an import of the same folder name one run per QA. A QA an earlier import
registered keeps the run and version it was given then (earlier desks used the page id, or
``qa-`` and a hash of its text and time). Nothing else is claimed.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import datetime

from memorydesk import SOURCE_VERSION
from memorydesk.core.receipts import NO_DEADLINE, Receipt, format_utc
from memorydesk.lineage.adapters.memoryos import qa_run
from memorydesk.lineage.memoryos.llm import degraded_move, is_llm_error
from memorydesk.lineage.memoryos.records import QA, Page, Session, UserFiles
from memorydesk.lineage.memoryos.timing import Lost, Move

#: Names the importer and the MemoryOS layout it reads (the start of every receipt's ``sourceVersion``).
IMPORT_SOURCE = f"{SOURCE_VERSION} import memoryos (memoryos-pypi JSON files"
_IMPORTER = " import memoryos ("
BOUNDED = "moves dated by upper bounds"
_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "memorydesk:memoryos-import")


def stable_id(*parts: str) -> str:
    """A UUID (the product's id shape) that is the same on every import of the same thing."""
    return str(uuid.uuid5(_NAMESPACE, "\x1f".join(parts)))


@dataclass
class QaLife:
    """One QA of one user: where the files show it now, and its run."""

    user: str
    qa: QA
    identity: str
    in_stm: bool = False
    copies: list[tuple[Page, Session]] = field(default_factory=list)
    run_id: str = ""
    version: str = ""
    known: bool = False  # an earlier import already registered its run and version

    @property
    def item_id(self) -> str:
        """The id of its hot item while in STM (and the ``item_id`` of its pages)."""
        return stable_id("qa", self.user, self.identity)

    def lpm_by(self, moved: datetime) -> datetime | None:
        """An upper bound of its promotion (None: not promoted), never before it ``moved``."""
        promoted = [session.last_visit.utc for page, session in self.copies if page.analyzed]
        return max(moved, min(promoted)) if promoted else None


def lives(user: UserFiles) -> list[QaLife]:
    """Every QA of a user found in STM or as a page, ordered by the QA's own time.

    Two different QAs never share a life: a repeated STM entry or a second page id with
    the same text and time gets an identity of its own.
    """
    found: dict[str, QaLife] = {}
    page_identity: dict[str, str] = {}
    for session in user.sessions:
        for page in session.pages:
            identity = page_identity.get(page.page_id)
            if identity is None:
                identity = page.qa.identity
                if identity in found:  # same text and time, another page id: another QA
                    identity = f"{identity}\x1f{page.page_id}"
                page_identity[page.page_id] = identity
                found[identity] = QaLife(user.user, page.qa, identity)
            found[identity].copies.append((page, session))
    seen_in_stm: dict[str, int] = {}
    for qa in user.stm:
        repeat = seen_in_stm.get(qa.identity, 0)
        seen_in_stm[qa.identity] = repeat + 1
        identity = qa.identity if repeat == 0 else f"{qa.identity}\x1f#{repeat}"
        life = found.get(identity)
        if life is None:
            life = found[identity] = QaLife(user.user, qa, identity)
        life.in_stm, life.qa = True, qa
    return sorted(found.values(), key=lambda life: life.qa.at.utc)


def assign_runs(user_lives: list[QaLife], registry: dict[str, tuple[str, str]]) -> None:
    """Give each life its run and version: the registered ones, else the ones the receipts adapter
    gives the same QA (``qa_run``: the user, the QA's timestamp as MemoryOS wrote it, its order
    among the user's QAs with that timestamp), so receipts from both paths name one run."""
    seconds: dict[str, int] = {}
    for life in user_lives:
        order = seconds[life.qa.at.local] = seconds.get(life.qa.at.local, 0) + 1
        known = registry.get(life.item_id)
        if known is not None:
            life.run_id, life.version, life.known = known[0], known[1], True
            continue
        life.run_id, life.version = qa_run(life.user, life.qa.at.local, order)


def import_source(capacity: int | None, bounded: bool) -> str:
    """The ``sourceVersion`` of an import's receipts: the importer, the short-term capacity it
    was given, and whether the run's moves are dated by upper bounds (``timing``)."""
    stm = f"; stm={capacity}" if capacity else "; stm capacity not given"
    return f"{IMPORT_SOURCE}{stm}{f'; {BOUNDED}' if bounded or not capacity else ''})"


@dataclass(frozen=True)
class ImportTiming:
    """How ``import memoryos`` dated a run's receipts (from its ``sourceVersion``)."""

    moves_bounded: bool  # STM→MTM dated by an upper bound, not MemoryOS's rule
    lpm_bounded: bool = True  # a promotion is always dated by an upper bound


def import_timing(source_version: str | None) -> ImportTiming | None:
    """None for receipts ``import memoryos`` did not write; else how it dated them (receipts of
    earlier desks, without ``stm=``, dated every move by an upper bound)."""
    if not source_version or _IMPORTER not in source_version:
        return None
    return ImportTiming(moves_bounded=BOUNDED in source_version or "; stm=" not in source_version)


def _receipt(life_run: str, user: str, assistant: str, tier: str, version: str, at: datetime, name: str,
             source: str, source_present: bool | None = None, status: str = "committed",
             waiting_until: datetime | None = None) -> Receipt:
    return Receipt(run_id=life_run, user_scope=user, assistant_scope=assistant, tier=tier, status=status,
                   version=version, at_utc=at, source_version=source, source_present=source_present,
                   receipt_id=f"{life_run}/{name}", waiting_until=waiting_until)


def receipts_for(life: QaLife, assistant: str, resident_at: datetime | None, move: Move | None,
                 capacity: int | None, failed_promotion: datetime | None = None) -> list[Receipt]:
    """The receipts of one QA; ``resident_at``: the newest time short-term memory is known to
    have held what it holds now (for a QA waiting there); ``move``: when it left (a page);
    ``failed_promotion``: when a promotion whose LLM failed "analysed" its page (``llm``)."""
    run, user, version = life.run_id, life.user, life.version
    source = import_source(capacity, move is not None and not move.exact)
    made = [_receipt(run, user, assistant, "stm", version, life.qa.at.utc, "stm-present", source, True,
                     waiting_until=NO_DEADLINE)]
    if life.in_stm and not life.copies:
        seen = max(life.qa.at.utc, resident_at or life.qa.at.utc)
        made.append(_receipt(run, user, assistant, "stm", version, seen, f"stm-waiting@{format_utc(seen)}", source,
                             True, status="waiting", waiting_until=NO_DEADLINE))
    if life.copies and move is not None:
        if not life.in_stm:
            made.append(_receipt(run, user, assistant, "stm", version, move.at, "stm-gone", source, False))
        made.append(_receipt(run, user, assistant, "mtm", version, move.at, "mtm", source))
        # what went wrong in that move, each a failed receipt of its own at the same instant (the
        # page is in mid-term memory, so the run is not at risk; it is never healthy either)
        for k, (_page, session) in enumerate(life.copies[1:], 2):  # MemoryOS inserted the page again
            made.append(_receipt(run, user, assistant, "mtm", version, move.at,
                                 f"mtm-duplicate-{k}@{session.session_id}", source, status="failed"))
        if any(degraded_move(page, session) for page, session in life.copies):
            made.append(_receipt(run, user, assistant, "mtm", version, move.at, "mtm-llm-error", source,
                                 status="failed"))
        if failed_promotion is not None:
            made.append(_receipt(run, user, assistant, "lpm", version, max(move.at, failed_promotion),
                                 "lpm-llm-error", source, status="failed"))
        elif (lpm := life.lpm_by(move.at)) is not None:
            made.append(_receipt(run, user, assistant, "lpm", version, lpm, "lpm", source))
    if is_llm_error(life.qa.agent_response):  # get_response answered with the LLM's error string
        made.append(_receipt(run, user, assistant, "generation", version, life.qa.at.utc, "generation-llm-error",
                             source, status="failed"))
    return made


def gone_receipt(run_id: str, version: str, user: str, assistant: str, observed: datetime,
                 capacity: int | None) -> Receipt:
    """An STM entry an earlier import saw that is now in neither file, as of ``observed`` (when
    ``short_term.json`` was last written: the loss happened by then — an upper bound)."""
    return _receipt(run_id, user, assistant, "stm", version, observed, "stm-gone", import_source(capacity, True),
                    False)


def lost_run_id(lost: Lost) -> str:
    digest = hashlib.sha256(f"{lost.user}\x1f{lost.after.identity}".encode()).hexdigest()[:16]
    return f"memoryos:{lost.user}:interrupted-migration:{digest}"


def lost_versions(lost: Lost) -> list[str]:
    """One version per lost QA, naming the interval it was added in (content-free)."""
    until = format_utc(lost.before.at.utc) if lost.before else "…"
    span = f"added {format_utc(lost.after.at.utc)}..{until}"
    return [span] if lost.missing == 1 else [f"{span} #{k}" for k in range(1, lost.missing + 1)]


def lost_receipts(lost: Lost, assistant: str, observed: datetime) -> list[Receipt]:
    """The at-risk run of an interrupted migration (see the module docstring); ``observed``: when
    the files were read (the pop's upper bound when ``short_term.json``'s time is not known)."""
    run = lost_run_id(lost)
    source = import_source(lost.capacity, True)
    held_until, popped_by = lost.popped_between(observed)
    made = []
    for k, version in enumerate(lost_versions(lost), 1):
        if lost.before is not None:
            made.append(_receipt(run, lost.user, assistant, "stm", version, lost.before.at.utc, f"held-{k}", source,
                                 True, waiting_until=NO_DEADLINE))
        made.append(_receipt(run, lost.user, assistant, "stm", version, held_until, f"still-held-{k}", source, True,
                             status="waiting", waiting_until=NO_DEADLINE))
        made.append(_receipt(run, lost.user, assistant, "stm", version, popped_by, f"popped-{k}", source, False))
    return made
