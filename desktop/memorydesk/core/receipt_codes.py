"""A receipt as small numbers: how the store keeps receipts (``store.receipt_blocks``) and how
the health rules read many of them at once (``core.health.vector``). Part of the receipts
contract (``core.receipts``), not of any reader of it.

- Tiers and statuses are their position in the contract's lists (``TIER_CODES``,
  ``STATUS_CODES``).
- Times are integer microseconds since the Unix epoch (``to_us``, ``from_us``: exact);
  ``NEVER`` stands for a time that is not stated (no ``waitingUntil``).
- The small fields of one receipt fit one integer (``packed_of``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Final

import numpy as np

from memorydesk.core.receipts import STATUSES, TIERS, Receipt

TIER_CODES: Final = {tier: code for code, tier in enumerate(TIERS)}
STATUS_CODES: Final = {status: code for code, status in enumerate(STATUSES)}
STM, MTM, LPM, RETRIEVAL, GENERATION = (TIER_CODES[t] for t in ("stm", "mtm", "lpm", "retrieval", "generation"))
COMMITTED, VERIFIED, FAILED = (STATUS_CODES[s] for s in ("committed", "verified", "failed"))

EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
NEVER: Final = int(np.iinfo(np.int64).max)
_US: Final = timedelta(microseconds=1)

#: bit 13 of ``packed_of``: the receipt states ``canary`` (true or false)
CANARY_STATED: Final = 1 << 13
_TIER_STATUS: Final = {(t, s): tc | sc << 3 for t, tc in TIER_CODES.items() for s, sc in STATUS_CODES.items()}


def to_us(moment: datetime) -> int:
    """Microseconds since the Unix epoch (exact)."""
    return (moment - EPOCH) // _US


def from_us(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=int(us))


def packed_of(r: Receipt) -> int:
    """tier | status << 3 | (sourcePresent + 1) << 6 | (expectedVersion: 0 none, 1 same, 2 other) << 8
    | outcomeReceipt << 10 | sourceVersion missing << 11 | canary << 12 | canary stated << 13."""
    expected = 0 if r.expected_version is None else 1 + (r.expected_version != r.version)
    present, canary = r.source_present, r.canary
    return (_TIER_STATUS[r.tier, r.status] | (0 if present is None else 1 + present) << 6 | expected << 8
            | (r.outcome_receipt is not None) << 10 | (r.source_version is None) << 11 | bool(canary) << 12
            | (canary is not None) << 13)
