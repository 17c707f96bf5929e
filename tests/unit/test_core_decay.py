"""Weibull decay per memory type (DESIGN §3)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memorydesk.core.product.decay import age_hours, half_life_hours, weibull, weibull_at
from memorydesk.core.product.vocab import MemoryType


@pytest.mark.parametrize(
    ("memory_type", "age", "expected"),
    [
        ("fact", 720.0, math.exp(-1.0)),  # age = eta → e^-1 for every k
        ("fact", 24.0, math.exp(-((24 / 720) ** 0.8))),
        ("fact", 2160.0, math.exp(-(3.0**0.8))),
        ("preference", 100.0, math.exp(-((100 / 4380) ** 0.4))),
        ("relationship", 8760.0 * 2, math.exp(-(2.0**0.35))),
        ("request", 36.0, math.exp(-(0.5**1.5))),
        ("request", 720.0, math.exp(-(10.0**1.5))),
        ("event", 168.0 * 3, math.exp(-(3.0**1.2))),
        ("decision", 336.0 / 2, math.exp(-0.5)),
        ("learning", 1440.0 * 4, math.exp(-(4.0**0.7))),
        ("unknown", 84.0, math.exp(-0.5)),
    ],
)
def test_weibull_values(memory_type: str, age: float, expected: float) -> None:
    assert weibull(memory_type, age) == pytest.approx(expected, rel=1e-12)


def test_unknown_type_string_decays_like_fact() -> None:
    assert weibull("memo", 500.0) == weibull(MemoryType.FACT, 500.0)
    assert weibull(None, 500.0) == weibull("fact", 500.0)


def test_new_and_future_memories_are_fresh() -> None:
    assert weibull("request", 0.0) == 1.0
    assert weibull("request", -5.0) == 1.0


def test_months_old_fact_is_cut_hard() -> None:
    # DESIGN: "decay cuts months-old facts to a tenth" — a 6-month fact keeps ~12 %.
    six_months = 182.5 * 24
    assert weibull("fact", six_months) == pytest.approx(
        math.exp(-((six_months / 720) ** 0.8))
    )
    assert weibull("fact", six_months) < 0.13


@pytest.mark.parametrize(
    ("memory_type", "k", "eta"),
    [("fact", 0.8, 720), ("request", 1.5, 72), ("relationship", 0.35, 8760)],
)
def test_half_life(memory_type: str, k: float, eta: float) -> None:
    half = half_life_hours(memory_type)
    assert half == pytest.approx(eta * math.log(2) ** (1 / k))
    assert weibull(memory_type, half) == pytest.approx(0.5)


def test_age_from_unix_seconds() -> None:
    created = 1_700_000_000
    assert age_hours(created, created + 7200) == 2.0
    assert age_hours(created, created - 3600) == -1.0
    assert weibull_at("fact", created, created + 720 * 3600) == pytest.approx(math.exp(-1))
    assert weibull_at("fact", created, created - 10) == 1.0
    assert weibull_at("fact", None, created) == 0.0


@given(
    st.sampled_from(list(MemoryType)),
    st.floats(min_value=0, max_value=1e6),
    st.floats(min_value=0, max_value=1e6),
)
def test_decay_is_monotone_and_bounded(memory_type: MemoryType, a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert 0.0 <= weibull(memory_type, hi) <= weibull(memory_type, lo) <= 1.0
