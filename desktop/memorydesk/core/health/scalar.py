"""Health of a run from its lineage receipts (docs/receipts.md, the table there).

A run is every receipt with one ``runId``. It is judged at a time ``now`` with a
freshness window (default 24 h), *as an operator would have seen it then*: only the
receipts with ``atUtc`` at or before ``now`` count, and a run with no such receipt is not
judged at all (it has not happened yet — :func:`classify` leaves it out). The rules below
are tried in order and the first one that holds decides the state. The result is deterministic for a given input and
``now``: nothing reads the clock, and where several receipts could be named the
earliest one is (by ``atUtc``, then line, then version; rule 7 names the newest), so
reordering a run's receipts never changes its state.

Terms
    *done*: status ``committed`` or ``verified``. A ``failed`` receipt is never
    evidence of a commit.
    *durable target* of a version: an ``mtm`` or ``lpm`` receipt of it that is done
    (``lpm``: the product's direct STM→LPM consolidation).
    *returned* (by a retrieval): the ``version`` of a done retrieval receipt. A
    retrieval that is only started/waiting, or failed, returned nothing.
    *versions of the run* for rules 2, 3 and 8: the versions that have at least one
    ``stm`` receipt. A version the run only names at a later tier is not expected to
    pass through STM in this run ("only what a run claims is judged"); a run without
    any ``stm`` receipt is caught by rule 6.
    *waiting window* of a version: the latest ``waitingUntil`` of its ``stm``
    receipts; it has closed when that time is at or before ``now``.
    *latest receipt* of a tier and version: the one with the latest ``atUtc`` (then
    line); at one instant a ``failed`` one counts as the latest.

Rules
    1. scope_conflict — more than one ``userScope`` or more than one
       ``assistantScope`` among the run's receipts.
    2. source_at_risk — a version has an ``stm`` receipt with ``sourcePresent: false``
       and no durable target.
    3. promotion_missing — a version has no ``stm`` receipt with
       ``sourcePresent: false``, no durable target, and its waiting window has
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
       receipt, or the latest receipt of some tier and version is ``failed``.
    7. stale_evidence — the run's newest ``atUtc`` is more than the freshness window
       before ``now``.
    8. waiting — as rule 3, but the waiting window is still open.
    9. healthy — none of the above.

Only rules 3, 7 and 8 read the clock. :func:`assess` does the rest once per run
(:mod:`memorydesk.core.health.rules`) and :meth:`RunAssessment.at` decides at a given
``now``; :func:`classify` is the two together.

Versions are compared as strings for equality (``22`` and ``"22"`` are one version,
see :mod:`memorydesk.core.receipts`). "Newest" in rule 4 is decided like this:
when every candidate version is a number with one common non-digit prefix
(``21``, ``22``; or ``v21``, ``v22``), the largest trailing number is newest
(``v9`` < ``v10``); otherwise the newest is the version whose first done receipt is
the latest (ties: all versions first done at that instant count as newest). Receipts
dated after ``now`` are not evidence yet: judging at ``now`` is judging the input cut at
``now`` (:func:`as_of`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Final

from memorydesk.core.health.rules import Evidence, first_of, gather
from memorydesk.core.receipts import Receipt, format_utc, gc_paused

__all__ = [
    "DEFAULT_FRESH_FOR",
    "OK_STATES",
    "Color",
    "HealthState",
    "RunAssessment",
    "RunHealth",
    "as_of",
    "assess",
    "check_clock",
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
_BY_RULE: Final = {state.rule: state for state in HealthState}


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


@dataclass(frozen=True, slots=True)
class RunAssessment:
    """One run read once: judge it at any time with :meth:`at`.

    The numbers a vectorised judge needs (see :mod:`memorydesk.core.health.arrays`):
    ``fixed`` — the state whatever the time (rules 1, 2, and 3 without a window), or
    None; ``closes_at`` — when the first declared waiting window closes (rule 3 from
    then on), or None; ``middle`` — the state of rules 4-6, or None; ``newest_at``;
    ``waits`` — a declared window exists (rule 8 while every one is open).
    """

    run_id: str
    evidence: Evidence

    @property
    def fixed(self) -> HealthState | None:
        e = self.evidence
        if e.conflict is not None:
            return HealthState.SCOPE_CONFLICT
        if e.at_risk:
            return HealthState.SOURCE_AT_RISK
        if e.undeclared:
            return HealthState.PROMOTION_MISSING
        return None

    @property
    def closes_at(self) -> datetime | None:
        return min((w.until for w in self.evidence.windows), default=None)

    @property
    def middle(self) -> HealthState | None:
        m = self.evidence.middle
        return None if m is None else _BY_RULE[m[0]]

    @property
    def newest_at(self) -> datetime:
        return self.evidence.newest.at_utc

    @property
    def waits(self) -> bool:
        return bool(self.evidence.windows)

    def at(self, now: datetime, fresh_for: timedelta = DEFAULT_FRESH_FOR) -> RunHealth:
        """The run's health at ``now`` (the rules in table order, the first that holds)."""
        e = self.evidence

        def verdict(state: HealthState, detail: str) -> RunHealth:
            return RunHealth(self.run_id, state, f"rule {state.rule}: {detail}")

        if e.conflict is not None:
            return verdict(HealthState.SCOPE_CONFLICT, e.conflict)
        if e.at_risk:
            return verdict(HealthState.SOURCE_AT_RISK, first_of(list(e.at_risk)))
        missing = list(e.undeclared)
        missing += [(w.key, w.closed_detail()) for w in e.windows if w.until <= now]
        if missing:
            return verdict(HealthState.PROMOTION_MISSING, first_of(missing))
        if e.middle is not None:
            return verdict(_BY_RULE[e.middle[0]], e.middle[1])
        newest = e.newest
        if now - newest.at_utc > fresh_for:
            return verdict(HealthState.STALE_EVIDENCE,
                           f"the newest receipt, {newest.label()} at {format_utc(newest.at_utc)}, is older than "
                           f"{format_duration(fresh_for)} before {format_utc(now)}")
        if e.windows:
            return verdict(HealthState.WAITING, first_of([(w.key, w.open_detail()) for w in e.windows]))
        return verdict(HealthState.HEALTHY, f"none of rules 1-8 hold ({e.count} receipts, newest "
                                            f"{newest.label()} at {format_utc(newest.at_utc)})")


def assess(receipts: Sequence[Receipt]) -> RunAssessment:
    """Read one run (non-empty, one ``runId``) for judging at any time."""
    if not receipts:
        raise ValueError("a run needs at least one receipt")
    run_id = receipts[0].run_id
    if any(r.run_id != run_id for r in receipts):
        raise ValueError("a run's receipts must share one runId; use classify() for several runs")
    return RunAssessment(run_id, gather(receipts))


def as_of(receipts: Iterable[Receipt], now: datetime) -> list[Receipt]:
    """The receipts an operator could have seen at ``now``: those with ``atUtc`` ≤ ``now``."""
    return [r for r in receipts if r.at_utc <= now]


def classify(
    receipts: Iterable[Receipt], *, now: datetime, fresh_for: timedelta = DEFAULT_FRESH_FOR
) -> list[RunHealth]:
    """Classify every run as of ``now`` (only receipts with ``atUtc`` ≤ ``now`` count; a run
    without one is left out); the result is sorted by ``runId``."""
    check_clock(now, fresh_for)
    with gc_paused():
        runs = group_by_run(as_of(receipts, now))
        return [RunAssessment(run_id, gather(runs[run_id])).at(now, fresh_for) for run_id in sorted(runs)]


def classify_run(
    receipts: Sequence[Receipt], *, now: datetime, fresh_for: timedelta = DEFAULT_FRESH_FOR
) -> RunHealth:
    """Classify one run as of ``now``: ``receipts`` must share one ``runId`` and at least one
    must be dated at or before ``now`` (ValueError otherwise)."""
    check_clock(now, fresh_for)
    if not receipts:
        raise ValueError("a run needs at least one receipt")
    run_id = receipts[0].run_id
    if any(r.run_id != run_id for r in receipts):
        raise ValueError("classify_run got receipts of more than one run; use classify()")
    seen = as_of(receipts, now)
    if not seen:
        raise ValueError(f"run {run_id} has no receipt at or before {format_utc(now)}")
    return RunAssessment(run_id, gather(seen)).at(now, fresh_for)


def check_clock(now: datetime, fresh_for: timedelta) -> None:
    """Refuse a naive ``now`` or a freshness window that is not positive (ValueError)."""
    if now.utcoffset() is None:
        raise ValueError("now must be a timezone-aware datetime")
    if fresh_for <= timedelta(0):
        raise ValueError("the freshness window must be positive")


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
