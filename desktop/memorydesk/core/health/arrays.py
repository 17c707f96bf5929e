"""The clock step of the health rules for many runs at once (numpy).

:class:`~memorydesk.core.health.scalar.RunAssessment` reads a run once; what is left to
decide at a given *now* and freshness window is rules 3, 7 and 8 between the
clock-free findings (see :meth:`RunAssessment.at`, the one-run form of the same step).
:class:`ClockColumns` holds those findings as columns — times as integer microseconds
since the Unix epoch, so the comparisons are exact — and :func:`states_at` judges every
run in a few vector operations, which is what lets the desk scrub "evaluate at"
across 100,000 runs. States are coded by their rule number (1-9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

import numpy as np

from memorydesk.core.health.scalar import Color, HealthState, RunAssessment

EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
NEVER: Final = np.iinfo(np.int64).max
_US: Final = timedelta(microseconds=1)

#: severity of each colour (what wins a pixel): at-risk, stale, uncertain, waiting, healthy
SEVERITY: Final = {Color.AT_RISK: 4, Color.STALE: 3, Color.UNCERTAIN: 2, Color.WAITING: 1, Color.HEALTHY: 0}
#: colours by severity (index 0 healthy … 4 at-risk)
BY_SEVERITY: Final = tuple(sorted(SEVERITY, key=SEVERITY.__getitem__))
#: rule number → severity (index 0 unused)
RULE_SEVERITY: Final = np.array([0] + [SEVERITY[state.color] for state in HealthState], dtype=np.int8)


def to_us(moment: datetime) -> int:
    """Microseconds since the Unix epoch (exact)."""
    return (moment - EPOCH) // _US


def from_us(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=int(us))


@dataclass(frozen=True)
class ClockColumns:
    """Per run: ``fixed`` state or 0, ``closes`` (µs, NEVER when no window), ``middle``
    state or 0, ``newest`` (µs), ``waits``."""

    fixed: np.ndarray  # int8
    closes: np.ndarray  # int64
    middle: np.ndarray  # int8
    newest: np.ndarray  # int64
    waits: np.ndarray  # bool

    @classmethod
    def of(cls, assessments: Sequence[RunAssessment]) -> ClockColumns:
        n = len(assessments)
        cols = cls(np.zeros(n, np.int8), np.full(n, NEVER, np.int64), np.zeros(n, np.int8),
                   np.zeros(n, np.int64), np.zeros(n, bool))
        for i, a in enumerate(assessments):
            cols.set(i, a)
        return cols

    @classmethod
    def empty(cls, n: int) -> ClockColumns:
        return cls(np.zeros(n, np.int8), np.full(n, NEVER, np.int64), np.zeros(n, np.int8),
                   np.zeros(n, np.int64), np.zeros(n, bool))

    def set(self, i: int, a: RunAssessment) -> None:
        self.fixed[i], self.closes[i], self.middle[i], self.newest[i], self.waits[i] = clock_row(a)

    def take(self, order: np.ndarray) -> ClockColumns:
        return ClockColumns(self.fixed[order], self.closes[order], self.middle[order], self.newest[order],
                            self.waits[order])


def clock_row(a: RunAssessment) -> tuple[int, int, int, int, bool]:
    """One run's numbers for :class:`ClockColumns`: fixed, closes, middle, newest, waits."""
    fixed, closes, middle = a.fixed, a.closes_at, a.middle
    return (0 if fixed is None else fixed.rule, NEVER if closes is None else to_us(closes),
            0 if middle is None else middle.rule, to_us(a.newest_at), a.waits)


def states_at(cols: ClockColumns, now_us: int, fresh_us: int) -> np.ndarray:
    """Every run's state (rule number, int8) at ``now_us`` with a ``fresh_us`` window.

    The same precedence as :meth:`RunAssessment.at`: fixed (1, 2, 3); a window closed
    at or before now (3); rules 4-6; newest receipt older than the window (7); an open
    window (8); healthy (9).
    """
    state = np.full(cols.fixed.shape, HealthState.HEALTHY.rule, np.int8)
    state[cols.waits] = HealthState.WAITING.rule
    state[(now_us - cols.newest) > fresh_us] = HealthState.STALE_EVIDENCE.rule
    has_middle = cols.middle > 0
    state[has_middle] = cols.middle[has_middle]
    state[cols.closes <= now_us] = HealthState.PROMOTION_MISSING.rule
    has_fixed = cols.fixed > 0
    state[has_fixed] = cols.fixed[has_fixed]
    return state
