"""Why a run is in the state it is in: the sentence naming the receipts behind it
(docs/receipts.md, the table there; the run detail and ``lineage classify`` show it).

The state is decided over receipt columns (``core.health.vector``, ``core.health.arrays``:
one implementation for every view). :func:`gather` then reads the run's receipts once for
the receipts each rule would name — the scope conflict (rule 1), the versions whose source
is gone (rule 2), the versions never promoted without a waiting window (rule 3) or with one
(rule 3 once it has closed, rule 8 until then), the first of rules 4, 5 and 6 that holds, and
the newest receipt (rule 7) — and :func:`reason` says the decided state's sentence. Where
several receipts could be named the earliest one is (by ``atUtc``, then line, then version;
rule 7 names the newest), with how many more there are.

It has to find, for the decided state, the receipts the rule fired on: a test holds it to the
columns' decisions on random runs built to make the rules collide
(``tests/unit/test_health_vector.py``), and a state it finds nothing for is a bug of ours
(``AssertionError``).

Terms are the ones of :mod:`memorydesk.core.health.scalar`; "durable target" of a version is
an ``mtm`` or ``lpm`` receipt of it that is committed or verified (``lpm``: the
product's direct STM→LPM consolidation).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from memorydesk.core.health.table import HealthState, format_duration
from memorydesk.core.receipts import DONE_STATUSES, NO_DEADLINE, Receipt, format_utc

Key = tuple[datetime, int, str]
Found = tuple[Key, str]  # where the finding sorts (its receipt's time), the sentence naming it

DURABLE_TIERS: Final = frozenset({"mtm", "lpm"})


def when(receipt: Receipt) -> Key:
    """How receipts are ordered when several could be named: time, then line, then version."""
    return (receipt.at_utc, receipt.line or 0, receipt.version)


def first_of(found: list[Found]) -> str:
    """The earliest finding's sentence, with how many more there are."""
    found.sort(key=lambda item: item[0])
    detail = found[0][1]
    if len(found) > 1:
        detail += f" (and {len(found) - 1} more)"
    return detail


@dataclass(frozen=True, slots=True)
class Window:
    """A version not promoted yet whose waiting window was declared (rule 3 once closed, else rule 8)."""

    version: str
    until: datetime  # the latest waitingUntil of the version's stm receipts
    key: Key
    evidence: str  # the label of the stm receipt that declared it

    def closed_detail(self) -> str:
        return (f"version {self.version}: no mtm or lpm receipt is committed or verified and the waiting "
                f"window closed at {format_utc(self.until)} ({self.evidence})")

    def open_detail(self) -> str:
        if self.until >= NO_DEADLINE:
            return f"version {self.version} waits for promotion, with no deadline declared ({self.evidence})"
        return f"version {self.version} waits for promotion until {format_utc(self.until)} ({self.evidence})"


@dataclass(frozen=True, slots=True)
class Evidence:
    """The clock-free findings of one run, rule by rule (empty: the rule does not hold)."""

    conflict: str | None  # rule 1
    at_risk: list[Found]  # rule 2
    undeclared: list[Found]  # rule 3, whatever the time
    windows: list[Window]  # rule 3 or 8, by the time
    middle: tuple[int, str] | None  # the first of rules 4, 5, 6 that holds: (rule, detail)
    newest: Receipt  # rule 7 and the healthy sentence
    count: int


def gather(receipts: Sequence[Receipt]) -> Evidence:
    """One pass over a run's receipts (non-empty, one runId), then the clock-free rules."""
    user_scopes: set[str] = set()
    assistant_scopes: set[str] = set()
    stm: dict[str, list[Receipt]] = {}
    durable: set[str] = set()
    memory_done: list[Receipt] = []
    retrievals: list[Receipt] = []
    generations: list[Receipt] = []
    latest: dict[tuple[str, str], Receipt] = {}
    no_source_version: Receipt | None = None
    for r in receipts:
        user_scopes.add(r.user_scope)
        assistant_scopes.add(r.assistant_scope)
        tier = r.tier
        if tier == "retrieval":
            retrievals.append(r)
        elif tier == "generation":
            generations.append(r)
        else:
            if tier == "stm":
                bucket = stm.get(r.version)
                if bucket is None:
                    stm[r.version] = [r]
                else:
                    bucket.append(r)
            if r.status in DONE_STATUSES:
                memory_done.append(r)
                if tier in DURABLE_TIERS:
                    durable.add(r.version)
        slot = (tier, r.version)
        held = latest.get(slot)
        if held is None or _later(r, held):
            latest[slot] = r
        if r.source_version is None and (no_source_version is None or when(r) < when(no_source_version)):
            no_source_version = r

    conflict = None
    if len(user_scopes) > 1 or len(assistant_scopes) > 1:
        parts = []
        if len(user_scopes) > 1:
            parts.append(_scope_detail("userScope", receipts, lambda r: r.user_scope))
        if len(assistant_scopes) > 1:
            parts.append(_scope_detail("assistantScope", receipts, lambda r: r.assistant_scope))
        conflict = "; ".join(parts)

    at_risk: list[Found] = []
    undeclared: list[Found] = []
    windows: list[Window] = []
    for version, stm_receipts in stm.items():
        if version in durable:
            continue
        gone = [r for r in stm_receipts if r.source_present is False]
        if gone:
            first = min(gone, key=when)
            detail = (f"version {version}: {first.label()} says sourcePresent false and no mtm or lpm receipt "
                      f"of {version} is committed or verified")
            at_risk.append((when(first), detail))
            continue
        declared = [r for r in stm_receipts if r.waiting_until is not None]
        if not declared:
            first = min(stm_receipts, key=when)
            detail = (f"version {version}: no mtm or lpm receipt is committed or verified, the source is still "
                      f"in stm ({first.label()}) and no waiting window was declared")
            undeclared.append((when(first), detail))
            continue
        last = max(declared, key=lambda r: (r.waiting_until, when(r)))
        windows.append(Window(version, last.waiting_until, when(last), last.label()))  # type: ignore[arg-type]

    return Evidence(conflict, at_risk, undeclared, windows,
                    _middle(receipts, stm, memory_done, retrievals, generations, latest, no_source_version),
                    newest_of(receipts), len(receipts))


def newest_of(receipts: Sequence[Receipt]) -> Receipt:
    """The run's newest receipt (rule 7 names it, and the healthy sentence): the latest by
    time, then line, then version; the first of equals."""
    return max(receipts, key=when)


def _later(r: Receipt, held: Receipt) -> bool:
    """Is ``r`` the later receipt of its tier and version? At one instant and line, a failed one is."""
    mine, theirs = (r.at_utc, r.line or 0), (held.at_utc, held.line or 0)
    if mine != theirs:
        return mine > theirs
    return r.status == "failed" and held.status != "failed"


def _middle(receipts: Sequence[Receipt], stm: dict[str, list[Receipt]], memory_done: list[Receipt],
            retrievals: list[Receipt], generations: list[Receipt], latest: dict[tuple[str, str], Receipt],
            no_source_version: Receipt | None) -> tuple[int, str] | None:
    # 4. stale_retrieval
    returned: set[str] = set()
    stale: list[Found] = []
    implicit: list[Receipt] = []
    for r in retrievals:
        if r.status not in DONE_STATUSES:
            continue
        returned.add(r.version)
        if r.expected_version is None:
            implicit.append(r)
        elif r.version != r.expected_version:
            stale.append((when(r), f"{r.label()} returned {r.version} but expectedVersion is {r.expected_version}"))
    if implicit:
        stale.extend(_stale_against_newest(implicit, memory_done))
    if stale:
        return 4, first_of(stale)

    # 5. generation_unverified
    unverified = _unverified_generations(generations, returned)
    if unverified:
        return 5, first_of(unverified)

    # 6. uncertain
    if no_source_version is not None:
        return 6, f"{no_source_version.label()} lacks sourceVersion"
    if not stm:
        return 6, f"the run has no stm receipt ({len(receipts)} receipts)"
    failed = [(when(r), f"the latest {tier} receipt of {version}, {r.label()}, is failed")
              for (tier, version), r in latest.items() if r.status == "failed"]
    if failed:
        return 6, first_of(failed)
    return None


def _scope_detail(name: str, receipts: Sequence[Receipt], scope_of: Callable[[Receipt], str]) -> str:
    first: dict[str, Receipt] = {}
    for r in receipts:
        scope = scope_of(r)
        if scope not in first or when(r) < when(first[scope]):
            first[scope] = r
    ordered = sorted(first.items(), key=lambda item: when(item[1]))
    listed = ", ".join(f"{scope!r} first in {r.label()}" for scope, r in ordered)
    return f"{len(ordered)} {name}s in one run: {listed}"


_NUMBERED: Final = re.compile(r"([^0-9]*)([0-9]+)")


class _NewestVersion:
    """The newest version among done memory receipts, fed in time order."""

    __slots__ = ("best_number", "by_number", "by_time", "first", "latest", "numbered", "prefix")

    def __init__(self) -> None:
        self.first: dict[str, Receipt] = {}
        self.numbered = True
        self.prefix: str | None = None
        self.best_number = -1
        self.by_number: list[str] = []
        self.latest: datetime | None = None
        self.by_time: list[str] = []

    def add(self, receipt: Receipt) -> None:
        version = receipt.version
        if version in self.first:
            return
        self.first[version] = receipt
        if self.numbered:
            match = _NUMBERED.fullmatch(version)
            if match is None or (self.prefix is not None and match[1] != self.prefix):
                self.numbered = False
            else:
                self.prefix = match[1]
                number = int(match[2])
                if number > self.best_number:
                    self.best_number, self.by_number = number, [version]
                elif number == self.best_number:
                    self.by_number.append(version)
        if self.latest is None or receipt.at_utc > self.latest:
            self.latest, self.by_time = receipt.at_utc, [version]
        else:
            self.by_time.append(version)

    def newest(self) -> list[str]:
        return self.by_number if self.numbered else self.by_time


def _stale_against_newest(retrievals: list[Receipt], memory_done: list[Receipt]) -> list[Found]:
    commits = sorted(memory_done, key=when)
    tracker = _NewestVersion()
    found = []
    i = 0
    for r in sorted(retrievals, key=when):
        while i < len(commits) and commits[i].at_utc <= r.at_utc:
            tracker.add(commits[i])
            i += 1
        newest = tracker.newest()
        if newest and r.version not in newest:
            evidence = tracker.first[newest[0]]
            names = " / ".join(newest)
            detail = (f"{r.label()} returned {r.version} but the newest version committed or verified at or "
                      f"before it is {names} ({evidence.label()})")
            found.append((when(r), detail))
    return found


def _unverified_generations(generations: list[Receipt], returned: set[str]) -> list[Found]:
    finished = {g.version for g in generations if g.status not in ("started", "waiting")}
    found = []
    for g in generations:
        if g.status in ("started", "waiting") and g.version in finished:
            continue
        if g.depends_on_version is None:
            problem = "lacks dependsOnVersion"
        elif g.outcome_receipt is None:
            problem = "lacks outcomeReceipt"
        elif g.depends_on_version not in returned:
            problem = f"depends on {g.depends_on_version}, which no retrieval of the run returned"
        else:
            continue
        found.append((when(g), f"{g.label()} {problem}"))
    return found


def reason(state: HealthState, receipts: Sequence[Receipt], now: datetime, fresh_for: timedelta) -> str:
    """``rule N: …``, the receipts behind ``state`` (decided at ``now`` with ``fresh_for``) in
    the run's ``receipts``. Rules 7 and 9 (most runs) need only the newest receipt; the others
    read the run once (:func:`gather`)."""
    rule = state.rule
    if rule in (7, 9):
        newest = newest_of(receipts)
        if rule == 7:
            return (f"rule 7: the newest receipt, {newest.label()} at {format_utc(newest.at_utc)}, is older than "
                    f"{format_duration(fresh_for)} before {format_utc(now)}")
        return (f"rule 9: none of rules 1-8 hold ({len(receipts)} receipts, newest {newest.label()} at "
                f"{format_utc(newest.at_utc)})")
    e = gather(receipts)
    detail: str | None = None
    if rule == 1:
        detail = e.conflict
    elif rule == 2:
        detail = first_of(list(e.at_risk)) if e.at_risk else None
    elif rule == 3:
        missing = list(e.undeclared) + [(w.key, w.closed_detail()) for w in e.windows if w.until <= now]
        detail = first_of(missing) if missing else None
    elif rule in (4, 5, 6):
        detail = e.middle[1] if e.middle is not None and e.middle[0] == rule else None
    elif rule == 8:
        detail = first_of([(w.key, w.open_detail()) for w in e.windows]) if e.windows else None
    if detail is None:
        raise AssertionError(f"run {e.newest.run_id} is {state} (rule {rule}) but no receipt of it shows that rule")
    return f"rule {rule}: {detail}"
