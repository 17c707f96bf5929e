"""Health of a run from its lineage receipts (DESIGN.md §4, the table there).

A run is every receipt with one ``runId``. It is judged at a time ``now`` with a
freshness window (default 24 h); the rules below are tried in order and the first one
that holds decides the state. The result is deterministic for a given input and
``now``: nothing reads the clock, and where several receipts could be named the
earliest one is (by ``atUtc``, then line, then version; rule 7 names the newest), so
reordering a run's receipts never changes its state.

Terms
    *done*: status ``committed`` or ``verified``.
    *returned* (by a retrieval): the ``version`` of a done retrieval receipt. A
    retrieval that is only started/waiting, or failed, returned nothing.
    *versions of the run* for rules 2, 3 and 8: the versions that have at least one
    ``stm`` receipt. A version the run only names at a later tier is not expected to
    pass through STM in this run ("only what a run claims is judged"); a run without
    any ``stm`` receipt is caught by rule 6.
    *waiting window* of a version: the latest ``waitingUntil`` of its ``stm``
    receipts; it has closed when that time is at or before ``now``.

Rules
    1. scope_conflict — more than one ``userScope`` or more than one
       ``assistantScope`` among the run's receipts.
    2. source_at_risk — a version has an ``stm`` receipt with ``sourcePresent: false``
       and no done ``mtm`` receipt.
    3. promotion_missing — a version has no ``stm`` receipt with
       ``sourcePresent: false``, no done ``mtm`` receipt, and its waiting window has
       closed or was never declared.
    4. stale_retrieval — a done retrieval returned a version other than its
       ``expectedVersion``; or, without one, other than the newest version with a done
       ``stm``/``mtm``/``lpm`` receipt at or before the retrieval's ``atUtc`` (when
       there is such a version).
    5. generation_unverified — a generation lacks ``dependsOnVersion`` or
       ``outcomeReceipt``, or depends on a version no retrieval of the run returned.
       A generation receipt that is ``started`` or ``waiting`` is a progress marker:
       it is judged only when the run has no ``committed``/``verified``/``failed``
       generation receipt of the same version (an unfinished generation is judged
       on what it has).
    6. uncertain — some receipt lacks ``sourceVersion``, or the run has no ``stm``
       receipt.
    7. stale_evidence — the run's newest ``atUtc`` is more than the freshness window
       before ``now``.
    8. waiting — as rule 3, but the waiting window is still open.
    9. healthy — none of the above.

Versions are compared as strings for equality (``22`` and ``"22"`` are one version,
see :mod:`memorydesk.core.receipts`). "Newest" in rule 4 is decided like this:
when every candidate version is a number with one common non-digit prefix
(``21``, ``22``; or ``v21``, ``v22``), the largest trailing number is newest
(``v9`` < ``v10``); otherwise the newest is the version whose first done receipt is
the latest (ties: all versions first done at that instant count as newest). Receipts
dated after ``now`` are judged like any other.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Final

from memorydesk.core.receipts import DONE_STATUSES, Receipt, format_utc, gc_paused

__all__ = [
    "DEFAULT_FRESH_FOR",
    "OK_STATES",
    "Color",
    "HealthState",
    "RunHealth",
    "classify",
    "classify_run",
    "format_duration",
    "group_by_run",
    "parse_duration",
]

DEFAULT_FRESH_FOR: Final = timedelta(hours=24)


class Color(StrEnum):
    AT_RISK = "at-risk"
    STALE = "stale"
    UNCERTAIN = "uncertain"
    WAITING = "waiting"
    HEALTHY = "healthy"


class HealthState(StrEnum):
    """The nine states, in rule order."""

    SCOPE_CONFLICT = "scope_conflict"
    SOURCE_AT_RISK = "source_at_risk"
    PROMOTION_MISSING = "promotion_missing"
    STALE_RETRIEVAL = "stale_retrieval"
    GENERATION_UNVERIFIED = "generation_unverified"
    UNCERTAIN = "uncertain"
    STALE_EVIDENCE = "stale_evidence"
    WAITING = "waiting"
    HEALTHY = "healthy"

    @property
    def rule(self) -> int:
        return _RULES[self]

    @property
    def color(self) -> Color:
        return _COLORS[self]


_RULES: Final = {state: number for number, state in enumerate(HealthState, 1)}
_COLORS: Final = {
    HealthState.SCOPE_CONFLICT: Color.AT_RISK,
    HealthState.SOURCE_AT_RISK: Color.AT_RISK,
    HealthState.PROMOTION_MISSING: Color.AT_RISK,
    HealthState.STALE_RETRIEVAL: Color.STALE,
    HealthState.GENERATION_UNVERIFIED: Color.UNCERTAIN,
    HealthState.UNCERTAIN: Color.UNCERTAIN,
    HealthState.STALE_EVIDENCE: Color.STALE,
    HealthState.WAITING: Color.WAITING,
    HealthState.HEALTHY: Color.HEALTHY,
}
OK_STATES: Final = frozenset({HealthState.HEALTHY, HealthState.WAITING})


@dataclass(frozen=True, slots=True)
class RunHealth:
    """The verdict on one run; ``reason`` names the rule and the receipts behind it."""

    run_id: str
    state: HealthState
    reason: str

    @property
    def color(self) -> Color:
        return self.state.color

    @property
    def ok(self) -> bool:
        """Healthy or waiting: nothing for an operator to do yet."""
        return self.state in OK_STATES

    def to_json(self) -> dict[str, str]:
        return {"runId": self.run_id, "state": str(self.state), "color": str(self.color), "reason": self.reason}


def group_by_run(receipts: Iterable[Receipt]) -> dict[str, list[Receipt]]:
    """Receipts by ``runId`` in one pass, each run's receipts in input order."""
    runs: dict[str, list[Receipt]] = {}
    for receipt in receipts:
        bucket = runs.get(receipt.run_id)
        if bucket is None:
            runs[receipt.run_id] = [receipt]
        else:
            bucket.append(receipt)
    return runs


def classify(
    receipts: Iterable[Receipt], *, now: datetime, fresh_for: timedelta = DEFAULT_FRESH_FOR
) -> list[RunHealth]:
    """Classify every run in ``receipts``; the result is sorted by ``runId``."""
    _check_clock(now, fresh_for)
    with gc_paused():
        runs = group_by_run(receipts)
        return [_classify(run_id, runs[run_id], now, fresh_for) for run_id in sorted(runs)]


def classify_run(
    receipts: Sequence[Receipt], *, now: datetime, fresh_for: timedelta = DEFAULT_FRESH_FOR
) -> RunHealth:
    """Classify one run: ``receipts`` must be non-empty and share one ``runId``."""
    _check_clock(now, fresh_for)
    if not receipts:
        raise ValueError("a run needs at least one receipt")
    run_id = receipts[0].run_id
    if any(r.run_id != run_id for r in receipts):
        raise ValueError("classify_run got receipts of more than one run; use classify()")
    return _classify(run_id, receipts, now, fresh_for)


def _check_clock(now: datetime, fresh_for: timedelta) -> None:
    if now.utcoffset() is None:
        raise ValueError("now must be a timezone-aware datetime")
    if fresh_for <= timedelta(0):
        raise ValueError("the freshness window must be positive")


def _when(receipt: Receipt) -> tuple[datetime, int, str]:
    return (receipt.at_utc, receipt.line or 0, receipt.version)


def _classify(run_id: str, receipts: Sequence[Receipt], now: datetime, fresh_for: timedelta) -> RunHealth:
    # One pass collects what the rules need; the rules then run in table order.
    user_scopes: set[str] = set()
    assistant_scopes: set[str] = set()
    stm: dict[str, list[Receipt]] = {}
    mtm_done: set[str] = set()
    memory_done: list[Receipt] = []
    retrievals: list[Receipt] = []
    generations: list[Receipt] = []
    no_source_version: Receipt | None = None
    newest = receipts[0]
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
                if tier == "mtm":
                    mtm_done.add(r.version)
        if r.source_version is None and (no_source_version is None or _when(r) < _when(no_source_version)):
            no_source_version = r
        if r.at_utc >= newest.at_utc and (r.at_utc > newest.at_utc or _when(r) > _when(newest)):
            newest = r

    def verdict(state: HealthState, detail: str) -> RunHealth:
        return RunHealth(run_id, state, f"rule {state.rule}: {detail}")

    # 1. scope_conflict
    if len(user_scopes) > 1 or len(assistant_scopes) > 1:
        parts = []
        if len(user_scopes) > 1:
            parts.append(_scope_detail("userScope", receipts, lambda r: r.user_scope))
        if len(assistant_scopes) > 1:
            parts.append(_scope_detail("assistantScope", receipts, lambda r: r.assistant_scope))
        return verdict(HealthState.SCOPE_CONFLICT, "; ".join(parts))

    # 2, 3, 8: per version that went through STM.
    at_risk: list[tuple[tuple[datetime, int, str], str]] = []
    missing: list[tuple[tuple[datetime, int, str], str]] = []
    waiting: list[tuple[tuple[datetime, int, str], str]] = []
    for version, stm_receipts in stm.items():
        if version in mtm_done:
            continue
        gone = [r for r in stm_receipts if r.source_present is False]
        if gone:
            first = min(gone, key=_when)
            at_risk.append(
                (
                    _when(first),
                    f"version {version}: {first.label()} says sourcePresent false "
                    f"and no mtm receipt of {version} is committed or verified",
                )
            )
            continue
        declared = [r for r in stm_receipts if r.waiting_until is not None]
        if not declared:
            first = min(stm_receipts, key=_when)
            missing.append(
                (
                    _when(first),
                    f"version {version}: no mtm receipt is committed or verified, the source is "
                    f"still in stm ({first.label()}) and no waiting window was declared",
                )
            )
            continue
        last = max(declared, key=lambda r: (r.waiting_until, _when(r)))
        until = format_utc(last.waiting_until)  # type: ignore[arg-type]
        if last.waiting_until <= now:  # type: ignore[operator]
            missing.append(
                (
                    _when(last),
                    f"version {version}: no mtm receipt is committed or verified and the "
                    f"waiting window closed at {until} ({last.label()})",
                )
            )
        else:
            waiting.append((_when(last), f"version {version} waits for promotion until {until} ({last.label()})"))
    if at_risk:
        return verdict(HealthState.SOURCE_AT_RISK, _first_of(at_risk))
    if missing:
        return verdict(HealthState.PROMOTION_MISSING, _first_of(missing))

    # 4. stale_retrieval
    returned: set[str] = set()
    stale: list[tuple[tuple[datetime, int, str], str]] = []
    implicit: list[Receipt] = []
    for r in retrievals:
        if r.status not in DONE_STATUSES:
            continue
        returned.add(r.version)
        if r.expected_version is None:
            implicit.append(r)
        elif r.version != r.expected_version:
            stale.append((_when(r), f"{r.label()} returned {r.version} but expectedVersion is {r.expected_version}"))
    if implicit:
        stale.extend(_stale_against_newest(implicit, memory_done))
    if stale:
        return verdict(HealthState.STALE_RETRIEVAL, _first_of(stale))

    # 5. generation_unverified
    unverified = _unverified_generations(generations, returned)
    if unverified:
        return verdict(HealthState.GENERATION_UNVERIFIED, _first_of(unverified))

    # 6. uncertain
    if no_source_version is not None:
        return verdict(HealthState.UNCERTAIN, f"{no_source_version.label()} lacks sourceVersion")
    if not stm:
        return verdict(HealthState.UNCERTAIN, f"the run has no stm receipt ({len(receipts)} receipts)")

    # 7. stale_evidence
    if now - newest.at_utc > fresh_for:
        return verdict(
            HealthState.STALE_EVIDENCE,
            f"the newest receipt, {newest.label()} at {format_utc(newest.at_utc)}, is older than "
            f"{format_duration(fresh_for)} before {format_utc(now)}",
        )

    # 8. waiting
    if waiting:
        return verdict(HealthState.WAITING, _first_of(waiting))

    # 9. healthy
    return verdict(
        HealthState.HEALTHY,
        f"none of rules 1-8 hold ({len(receipts)} receipts, newest {newest.label()} at {format_utc(newest.at_utc)})",
    )


def _first_of(found: list[tuple[tuple[datetime, int, str], str]]) -> str:
    found.sort(key=lambda item: item[0])
    detail = found[0][1]
    if len(found) > 1:
        detail += f" (and {len(found) - 1} more)"
    return detail


def _scope_detail(name: str, receipts: Sequence[Receipt], scope_of: Callable[[Receipt], str]) -> str:
    first: dict[str, Receipt] = {}
    for r in receipts:
        scope = scope_of(r)
        if scope not in first or _when(r) < _when(first[scope]):
            first[scope] = r
    ordered = sorted(first.items(), key=lambda item: _when(item[1]))
    listed = ", ".join(f"{scope!r} first in {r.label()}" for scope, r in ordered)
    return f"{len(ordered)} {name}s in one run: {listed}"


_NUMBERED: Final = re.compile(r"([^0-9]*)([0-9]+)")


class _NewestVersion:
    """The newest version among done memory receipts, fed in time order."""

    __slots__ = ("first", "numbered", "prefix", "best_number", "by_number", "latest", "by_time")

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


def _stale_against_newest(
    retrievals: list[Receipt], memory_done: list[Receipt]
) -> list[tuple[tuple[datetime, int, str], str]]:
    commits = sorted(memory_done, key=_when)
    tracker = _NewestVersion()
    found = []
    i = 0
    for r in sorted(retrievals, key=_when):
        while i < len(commits) and commits[i].at_utc <= r.at_utc:
            tracker.add(commits[i])
            i += 1
        newest = tracker.newest()
        if newest and r.version not in newest:
            evidence = tracker.first[newest[0]]
            names = " / ".join(newest)
            found.append(
                (
                    _when(r),
                    f"{r.label()} returned {r.version} but the newest version committed or verified "
                    f"at or before it is {names} ({evidence.label()})",
                )
            )
    return found


def _unverified_generations(
    generations: list[Receipt], returned: set[str]
) -> list[tuple[tuple[datetime, int, str], str]]:
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
        found.append((_when(g), f"{g.label()} {problem}"))
    return found


_DURATION: Final = re.compile(r"([0-9]+)([smhd])")
_UNIT_SECONDS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400}


MAX_DURATION = timedelta(days=3650)


def parse_duration(text: str) -> timedelta:
    """``24h``, ``90m``, ``2d``, ``3600s`` → timedelta (a positive whole number and one
    unit, at most ``MAX_DURATION``, ten years). Raises ValueError otherwise."""
    match = _DURATION.fullmatch(text.strip())
    if match is None or len(match[1]) > 12:
        raise ValueError(f"{text[:40]!r} is not a duration like 24h, 90m, 2d or 3600s (up to 3650d)")
    seconds = int(match[1]) * _UNIT_SECONDS[match[2]]
    if seconds <= 0:
        raise ValueError(f"{text!r}: the duration must be positive")
    if seconds > MAX_DURATION.total_seconds():
        raise ValueError(f"{text!r} is longer than ten years (3650d)")
    return timedelta(seconds=seconds)


def format_duration(span: timedelta) -> str:
    """An exact form :func:`parse_duration` reads back: days from two days up,
    else hours, minutes or seconds (``24h``, ``90m``, ``2d``)."""
    seconds = span.total_seconds()
    whole = int(seconds)
    if whole != seconds:
        return f"{seconds}s"
    if whole % 86400 == 0 and whole >= 2 * 86400:
        return f"{whole // 86400}d"
    for unit in ("h", "m"):
        size = _UNIT_SECONDS[unit]
        if whole % size == 0:
            return f"{whole // size}{unit}"
    return f"{whole}s"
