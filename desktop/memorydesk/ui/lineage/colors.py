"""The five health colours (docs/receipts.md), as the timeline, legend and detail draw them."""

from __future__ import annotations

from typing import Final

import numpy as np
from PySide6.QtGui import QColor

from memorydesk.core.health.table import BY_SEVERITY, Color

HEX: Final = {
    Color.HEALTHY: "#1a9850",
    Color.WAITING: "#2c7bb6",
    Color.UNCERTAIN: "#9b72cf",
    Color.STALE: "#e6a100",
    Color.AT_RISK: "#d7191c",
}
CANARY: Final = "#222222"


def qcolor(color: Color | str) -> QColor:
    return QColor(HEX[Color(color)])


def lut() -> np.ndarray:
    """Premultiplied ARGB32 for raster values 0 (empty, transparent) and 1-5 (severity + 1)."""
    table = np.zeros(len(BY_SEVERITY) + 1, np.uint32)
    for severity, color in enumerate(BY_SEVERITY):
        table[severity + 1] = qcolor(color).rgba()
    return table


def swatch(color: Color | str, size: int = 10) -> str:
    """A coloured square for rich text."""
    return f'<span style="color:{HEX[Color(color)]}; font-size:{size + 4}px">■</span>'
