"""The health rules' table (docs/receipts.md): one row per rule, in the order they are tried —
its number, the state it gives, the colour that state is drawn in, whether it reads the
clock, and when it holds over a run's findings (:data:`FINDINGS`). Everything else is derived from it:
the clock step and the rules' order, both in numpy (``core.health.arrays.states_at``) and in
ClickHouse (``lineage.fleet.rules``); ``HealthState.rule`` and ``.color``, the colours'
severity (what wins a pixel on the timeline), the rule number → severity column the timeline
paints with, the states that need nothing done.

The rules themselves are decided in one place, over receipt columns
(``core.health.vector`` for rules 1-6, ``core.health.arrays.states_at`` for the clock
step); ``core.health.scalar`` judges runs through them and ``core.health.reasons`` says,
for the state decided, which receipts it rests on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Final

import numpy as np

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
        return RULE_OF[self].number

    @property
    def color(self) -> Color:
        return RULE_OF[self].color

    @classmethod
    def of_rule(cls, number: int) -> HealthState:
        return RULES[number - 1].state


@dataclass(frozen=True, slots=True)
class Rule:
    number: int
    state: HealthState
    color: Color
    clock: bool  # whether the rule reads the time it is judged at
    when: tuple[str, ...]  # the findings any of which makes it hold (FINDINGS); () always holds


#: what a run's findings say (``core.health.arrays.ClockColumns``; "now" the time judged at):
#: ``fixed``/``middle`` — that finding column is the rule's number (rules 1-3 / 4-6, decided over the
#: receipts by ``core.health.vector``); ``closed`` — a declared waiting window closed at or before now;
#: ``old`` — the newest receipt is more than the freshness window before now; ``open`` — a window waits
FINDINGS: Final = frozenset({"fixed", "middle", "closed", "old", "open"})

#: the rules in the order they are tried: the first that holds decides
RULES: Final = (
    Rule(1, HealthState.SCOPE_CONFLICT, Color.AT_RISK, False, ("fixed",)),
    Rule(2, HealthState.SOURCE_AT_RISK, Color.AT_RISK, False, ("fixed",)),
    Rule(3, HealthState.PROMOTION_MISSING, Color.AT_RISK, True, ("fixed", "closed")),
    Rule(4, HealthState.STALE_RETRIEVAL, Color.STALE, False, ("middle",)),
    Rule(5, HealthState.GENERATION_UNVERIFIED, Color.UNCERTAIN, False, ("middle",)),
    Rule(6, HealthState.UNCERTAIN, Color.UNCERTAIN, False, ("middle",)),
    Rule(7, HealthState.STALE_EVIDENCE, Color.STALE, True, ("old",)),
    Rule(8, HealthState.WAITING, Color.WAITING, True, ("open",)),
    Rule(9, HealthState.HEALTHY, Color.HEALTHY, False, ()),
)
RULE_OF: Final = {rule.state: rule for rule in RULES}
assert [r.number for r in RULES] == list(range(1, len(RULES) + 1)) and list(RULE_OF) == list(HealthState)
assert all(set(r.when) <= FINDINGS for r in RULES) and RULES[-1].when == ()

#: healthy or waiting: nothing for an operator to do yet
OK_STATES: Final = frozenset({HealthState.HEALTHY, HealthState.WAITING})
#: severity of each colour (what wins a pixel): at-risk, stale, uncertain, waiting, healthy
SEVERITY: Final = {Color.AT_RISK: 4, Color.STALE: 3, Color.UNCERTAIN: 2, Color.WAITING: 1, Color.HEALTHY: 0}
#: colours by severity (index 0 healthy … 4 at-risk)
BY_SEVERITY: Final = tuple(sorted(SEVERITY, key=SEVERITY.__getitem__))
#: rule number → severity (index 0 unused)
RULE_SEVERITY: Final = np.array([0] + [SEVERITY[rule.color] for rule in RULES], dtype=np.int8)


# --- the freshness window, as written on the command line and in the window ------------------------

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
