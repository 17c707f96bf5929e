"""One run explained: its health, its receipts in time order, its versions across the tiers
(a small swimlane stm → mtm → lpm → retrieval → generation with the missing step marked),
and, for an at-risk run, what to reconcile (run id and version) before anything else.

Qt-free; the Lineage tab reads a run's receipts on the worker and shows this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final

from memorydesk.core.health.scalar import RunHealth, as_of, classify_run
from memorydesk.core.health.table import Color, HealthState
from memorydesk.core.receipts import DONE_STATUSES, TIERS, Receipt
from memorydesk.lineage import receipt_store
from memorydesk.store import Workspace

#: what a swimlane cell can be marked with, besides the status of its latest receipt
MARKS: Final = {
    "lost": "the source left STM and no MTM or LPM commit of this version is recorded",
    "missing": "no MTM or LPM commit of this version, and its waiting window has closed or was never declared",
    "pending": "not promoted yet; its waiting window is still open",
    "no-stm": "the run has no STM receipt",
    "stale": "returned a version other than the one expected",
    "not-returned": "a generation depends on this version, but no retrieval of the run returned it",
    "unproven": "lacks dependsOnVersion or outcomeReceipt",
}


@dataclass(frozen=True)
class Step:
    tier: str
    status: str | None  # the status of the latest receipt of this tier and version (None: no receipt)
    mark: str | None = None  # a key of MARKS

    @property
    def done(self) -> bool:
        return self.status in DONE_STATUSES


@dataclass(frozen=True)
class VersionLane:
    version: str
    steps: tuple[Step, ...]  # one per tier, in TIERS order


@dataclass
class RunDetail:
    run_id: str
    health: RunHealth
    receipts: list[Receipt]  # in time order
    versions: list[VersionLane]
    reconcile: list[tuple[str, str]] = field(default_factory=list)  # (run id, version) at risk
    advice: str = ""  # for an at-risk run: what to do, in one paragraph
    scopes: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # userScopes, assistantScopes named

    @property
    def canary(self) -> bool:
        return any(r.canary for r in self.receipts)

    @property
    def source_versions(self) -> list[str]:
        return sorted({r.source_version for r in self.receipts if r.source_version is not None})


def _key(r: Receipt) -> tuple[datetime, int, int]:
    return (r.at_utc, r.line or 0, r.status == "failed")


def explain(receipts: list[Receipt], now: datetime, fresh_for: timedelta) -> RunDetail:
    """The detail of one run as of ``now`` (its receipts: one runId, at least one at or before
    ``now``; later ones are not evidence yet and are left out)."""
    receipts = as_of(receipts, now)
    health = classify_run(receipts, now=now, fresh_for=fresh_for)
    ordered = sorted(receipts, key=_key)
    versions: list[str] = list(dict.fromkeys(r.version for r in ordered))
    latest: dict[tuple[str, str], Receipt] = {}
    for r in ordered:
        latest[(r.tier, r.version)] = r
    marks: dict[tuple[str, str], str] = {}
    durable = {r.version for r in receipts if r.tier in ("mtm", "lpm") and r.status in DONE_STATUSES}
    has_stm = any(r.tier == "stm" for r in receipts)
    at_risk: list[str] = []
    for version in versions:
        stm = [r for r in receipts if r.tier == "stm" and r.version == version]
        if not stm or version in durable:
            continue
        windows = [r.waiting_until for r in stm if r.waiting_until is not None]
        if any(r.source_present is False for r in stm):
            marks[("mtm", version)] = "lost"
            at_risk.append(version)
        elif not windows or max(windows) <= now:
            marks[("mtm", version)] = "missing"
            at_risk.append(version)
        else:
            marks[("mtm", version)] = "pending"
    if not has_stm:
        for version in versions:
            marks[("stm", version)] = "no-stm"
    returned = {r.version for r in receipts if r.tier == "retrieval" and r.status in DONE_STATUSES}
    for r in receipts:
        if r.tier == "retrieval" and (
                r.status in DONE_STATUSES and r.expected_version not in (None, r.version)
                or health.state == HealthState.STALE_RETRIEVAL and r.label() in health.reason):
            marks[("retrieval", r.version)] = "stale"
        if r.tier == "generation" and r.status not in ("started", "waiting"):
            if r.depends_on_version is None or r.outcome_receipt is None:
                marks[("generation", r.version)] = "unproven"
            elif r.depends_on_version not in returned:
                if r.depends_on_version not in versions:
                    versions.append(r.depends_on_version)
                marks[("retrieval", r.depends_on_version)] = "not-returned"
    lanes = [VersionLane(v, tuple(Step(tier, latest[(tier, v)].status if (tier, v) in latest else None,
                                       marks.get((tier, v))) for tier in TIERS)) for v in versions]
    users = tuple(dict.fromkeys(r.user_scope for r in ordered))
    assistants = tuple(dict.fromkeys(r.assistant_scope for r in ordered))
    detail = RunDetail(health.run_id, health, ordered, lanes, scopes=(users, assistants))
    if health.color == Color.AT_RISK:
        if health.state == HealthState.SCOPE_CONFLICT:
            at_risk = versions
        detail.reconcile = [(health.run_id, v) for v in at_risk]
        detail.advice = _advice(detail)
    return detail


def _advice(d: RunDetail) -> str:
    pairs = ", ".join(f"{run} · {version}" for run, version in d.reconcile) or d.run_id
    state = d.health.state
    if state == HealthState.SCOPE_CONFLICT:
        users, assistants = d.scopes
        named = "; ".join(part for part in (
            f"userScopes {', '.join(users)}" if len(users) > 1 else "",
            f"assistantScopes {', '.join(assistants)}" if len(assistants) > 1 else "") if part)
        return (f"Reconcile {pairs} first: the run's receipts name {named}. Find which lane the memory "
                "belongs to and check that no version of it was written to or read from the other lane. "
                "Run nothing again for this run until it is reconciled.")
    if state == HealthState.SOURCE_AT_RISK:
        return (f"Reconcile {pairs} first: the short-term source is gone and no MTM or LPM commit of it is "
                "recorded. Look for that version in MTM and LPM of the lane (a commit whose receipt was lost); "
                "if it is in neither, the memory is lost and has to be restored from a backup or the agent's "
                "record. Do not run the promotion again until it is reconciled.")
    return (f"Reconcile {pairs} first: the version is still in STM (or its promotion was never recorded) and its "
            "waiting window has closed. Check whether MTM or LPM already holds it before the tier engine "
            "promotes it; a second promotion of an unreconciled version can duplicate it.")


def read_detail(ws: Workspace, run_id: str, now: datetime, fresh_for: timedelta) -> RunDetail | None:
    """One run's detail from the workspace as of ``now`` (None when the run has no receipt at or
    before ``now``: none any more, or none yet)."""
    receipts = as_of(receipt_store.load(ws, run_id), now)
    return explain(receipts, now, fresh_for) if receipts else None
