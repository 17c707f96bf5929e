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

from memorydesk.core.health.table import RULES
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

    The rules' order and when each holds are the table's (``core.health.table.RULES``): each rule,
    from the last to the first, sets the runs it holds for, so the first that holds decides.
    """
    holds = {
        "closed": cols.closes <= now_us,
        "old": (now_us - cols.newest) > fresh_us,
        "open": cols.waits,
    }
    state = np.full(cols.fixed.shape, RULES[-1].number, np.int8)
    for rule in reversed(RULES[:-1]):
        mask = np.zeros(cols.fixed.shape, bool)
        for finding in rule.when:
            mask |= (getattr(cols, finding) == rule.number) if finding in ("fixed", "middle") else holds[finding]
        state[mask] = rule.number
    return state
