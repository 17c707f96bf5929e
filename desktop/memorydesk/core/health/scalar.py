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

The table (rule numbers, states, colours) is :mod:`memorydesk.core.health.table`. Only rules 3,
7 and 8 read the clock. The rules are decided in one place for every view, over receipt
columns: rules 1-6 and the clock's inputs by :mod:`memorydesk.core.health.vector`, the clock
step and the rules' order by :func:`memorydesk.core.health.arrays.states_at`; :func:`classify`
puts the receipts into columns, decides, and gives each run the sentence naming the receipts
behind its state (:mod:`memorydesk.core.health.reasons`).

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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from memorydesk.core.health.arrays import states_at
from memorydesk.core.health.reasons import reason
from memorydesk.core.health.table import DEFAULT_FRESH_FOR, OK_STATES, Color, HealthState
from memorydesk.core.health.vector import clock_columns, columns_of
from memorydesk.core.receipt_codes import to_us
from memorydesk.core.receipts import Receipt, format_utc, gc_paused

__all__ = ["RunHealth", "as_of", "check_clock", "classify", "classify_run", "group_by_run"]

_US = timedelta(microseconds=1)


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


def as_of(receipts: Iterable[Receipt], now: datetime) -> list[Receipt]:
    """The receipts an operator could have seen at ``now``: those with ``atUtc`` ≤ ``now``."""
    return [r for r in receipts if r.at_utc <= now]


def _judged(runs: list[tuple[str, list[Receipt]]], now: datetime, fresh_for: timedelta) -> list[RunHealth]:
    """Each run's health at ``now``: the state from the columns, the sentence from its receipts."""
    if not runs:
        return []
    columns, _scopes = columns_of([receipts for _run_id, receipts in runs])
    states = states_at(clock_columns(columns), to_us(now), fresh_for // _US).tolist()
    out = []
    for (run_id, receipts), rule in zip(runs, states, strict=True):
        state = HealthState.of_rule(rule)
        out.append(RunHealth(run_id, state, reason(state, receipts, now, fresh_for)))
    return out


def classify(
    receipts: Iterable[Receipt], *, now: datetime, fresh_for: timedelta = DEFAULT_FRESH_FOR
) -> list[RunHealth]:
    """Classify every run as of ``now`` (only receipts with ``atUtc`` ≤ ``now`` count; a run
    without one is left out); the result is sorted by ``runId``."""
    check_clock(now, fresh_for)
    with gc_paused():
        runs = group_by_run(as_of(receipts, now))
        return _judged([(run_id, runs[run_id]) for run_id in sorted(runs)], now, fresh_for)


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
    [health] = _judged([(run_id, seen)], now, fresh_for)
    return health


def check_clock(now: datetime, fresh_for: timedelta) -> None:
    """Refuse a naive ``now`` or a freshness window that is not positive (ValueError)."""
    if now.utcoffset() is None:
        raise ValueError("now must be a timezone-aware datetime")
    if fresh_for <= timedelta(0):
        raise ValueError("the freshness window must be positive")
