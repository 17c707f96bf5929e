"""The clock step of the health rules for many runs at once (numpy): the one place rules 3, 7
and 8 and the rules' order are decided.

What a run's receipts say whatever the time (rules 1, 2, 4, 5, 6, and when each declared
waiting window closes) comes from ``core.health.vector`` as :class:`ClockColumns`, times as
integer microseconds since the Unix epoch (``core.receipt_codes``), so the comparisons are
exact; :func:`states_at` judges every run at a given *now* and freshness window in a few
vector operations, which is what lets the desk scrub "evaluate at" across 100,000 runs. States
are coded by their rule number (1-9, ``core.health.table``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memorydesk.core.health.table import HealthState
from memorydesk.core.receipt_codes import NEVER


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
    def empty(cls, n: int) -> ClockColumns:
        return cls(np.zeros(n, np.int8), np.full(n, NEVER, np.int64), np.zeros(n, np.int8),
                   np.zeros(n, np.int64), np.zeros(n, bool))

    def take(self, order: np.ndarray) -> ClockColumns:
        return ClockColumns(self.fixed[order], self.closes[order], self.middle[order], self.newest[order],
                            self.waits[order])


def states_at(cols: ClockColumns, now_us: int, fresh_us: int) -> np.ndarray:
    """Every run's state (rule number, int8) at ``now_us`` with a ``fresh_us`` window.

    The rules' order (docs/receipts.md): fixed (1, 2, 3); a window closed at or before now (3);
    rules 4-6; newest receipt older than the window (7); an open window (8); healthy (9).
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
