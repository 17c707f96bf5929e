"""The health rules' decision written out again for the tests, from docs/receipts.md's table,
over what ``core.health.reasons.gather`` finds in one run's receipts (receipt objects, one run
at a time) — an independent reading to hold the desk's one implementation (over columns:
``core.health.vector`` and ``core.health.arrays.states_at``) to, run by run and time by time.

``numbers(evidence)`` is what the columns keep per run (fixed state, when the first declared
window closes, the first of rules 4-6, the newest receipt's time, whether a window was
declared); ``state_at(evidence, now, fresh_for)`` is the rules in table order.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from memorydesk.core.health.reasons import Evidence
from memorydesk.core.receipt_codes import NEVER, to_us


def numbers(e: Evidence) -> tuple[int, int, int, int, bool]:
    fixed = 1 if e.conflict is not None else 2 if e.at_risk else 3 if e.undeclared else 0
    closes = min((to_us(w.until) for w in e.windows), default=NEVER)
    middle = 0 if e.middle is None else e.middle[0]
    return fixed, closes, middle, to_us(e.newest.at_utc), bool(e.windows)


def state_at(e: Evidence, now: datetime, fresh_for: timedelta) -> int:
    """The rule number that decides the run at ``now`` (the first of the table's rules that holds)."""
    if e.conflict is not None:
        return 1
    if e.at_risk:
        return 2
    if e.undeclared or any(w.until <= now for w in e.windows):
        return 3
    if e.middle is not None:
        return e.middle[0]
    if now - e.newest.at_utc > fresh_for:
        return 7
    if e.windows:
        return 8
    return 9
