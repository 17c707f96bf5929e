"""The product's Weibull decay, for the detail pane's curve: exp(-(age_h / eta) ** k) per type."""

from __future__ import annotations

import math

# docs/product-format.md, "The product's rules" (memory_type -> (k, eta hours)); unknown strings read as "fact"
WEIBULL: dict[str, tuple[float, float]] = {
    "fact": (0.8, 720), "event": (1.2, 168), "observation": (0.9, 480), "preference": (0.4, 4380),
    "instruction": (0.9, 480), "error": (1.1, 336), "decision": (1.0, 336), "relationship": (0.35, 8760),
    "artifact": (0.75, 2160), "commitment": (1.0, 240), "context": (0.85, 360), "request": (1.5, 72),
    "goal": (0.9, 720), "learning": (0.7, 1440), "unknown": (1.0, 168),
}


def params(memory_type: str | None) -> tuple[str, float, float]:
    """(type as the product reads it, k, eta hours)."""
    name = (memory_type or "").lower()
    if name not in WEIBULL:
        name = "fact"
    k, eta = WEIBULL[name]
    return name, k, float(eta)


def weight(age_hours: float, memory_type: str | None) -> float:
    _name, k, eta = params(memory_type)
    return math.exp(-((max(0.0, age_hours) / eta) ** k))


def half_life_hours(memory_type: str | None) -> float:
    _name, k, eta = params(memory_type)
    return eta * math.log(2) ** (1 / k)


def human_hours(hours: float) -> str:
    if hours < 48:
        return f"{hours:.0f} h"
    if hours < 24 * 120:
        return f"{hours / 24:.0f} days"
    return f"{hours / 24 / 365:.1f} years"
