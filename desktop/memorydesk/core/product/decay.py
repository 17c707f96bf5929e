"""Per-type Weibull decay of a memory's relevance: ``exp(-(age_hours / eta) ** k)``.

Age runs from ``created_at``. The product measures it as a whole number of
microseconds between two timestamps divided by the microseconds in an hour; a
timestamp in the future counts as brand new (1.0).
"""

from __future__ import annotations

import math
from typing import Final

from memorydesk.core.product.vocab import WEIBULL_PARAMS, MemoryType, parse_memory_type

__all__ = [
    "MICROSECONDS_PER_HOUR",
    "age_hours",
    "half_life_hours",
    "weibull",
    "weibull_at",
]

MICROSECONDS_PER_HOUR: Final = 3_600_000_000


def _params(memory_type: MemoryType | str | None) -> tuple[float, float]:
    try:
        return _known[memory_type]
    except (KeyError, TypeError):  # not seen yet, or not something a dictionary can hold
        pass
    k, eta = WEIBULL_PARAMS[parse_memory_type(memory_type)]
    if isinstance(memory_type, str | None) and len(_known) < 4096:
        _known[memory_type] = (k, eta)
    return k, eta


#: What ``_params`` found for each stored ``memory_type`` text (a handful; bounded all the same).
_known: dict[str | None, tuple[float, float]] = {}


def weibull(memory_type: MemoryType | str | None, age_hours: float) -> float:
    """Decay factor in (0, 1] of a memory of ``memory_type`` that is ``age_hours`` old.

    Unknown type strings read as ``fact``; a negative age gives 1.0.
    """
    if age_hours < 0:
        return 1.0
    k, eta = _params(memory_type)
    return math.exp(-math.pow(age_hours / eta, k))


def age_hours(created_at: float, now: float) -> float:
    """Hours from ``created_at`` to ``now`` (both unix seconds), at microsecond grain."""
    micros = round(now * 1_000_000) - round(created_at * 1_000_000)
    return micros / MICROSECONDS_PER_HOUR


def weibull_at(
    memory_type: MemoryType | str | None, created_at: float | None, now: float
) -> float:
    """Decay of a memory created at ``created_at`` seen at ``now`` (unix seconds).

    A missing ``created_at`` gives 0.0, as in the product.
    """
    if created_at is None:
        return 0.0
    return weibull(memory_type, age_hours(created_at, now))


def half_life_hours(memory_type: MemoryType | str | None) -> float:
    """The age at which the decay factor is 0.5: ``eta · (ln 2)^(1/k)``."""
    k, eta = _params(memory_type)
    return eta * math.pow(math.log(2.0), 1.0 / k)
