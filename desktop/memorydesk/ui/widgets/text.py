"""Text helpers shared by the views: bidi direction, one-line elision, times, sizes."""

from __future__ import annotations

import datetime as dt
import unicodedata

from PySide6.QtCore import Qt


def is_rtl(text: str | None) -> bool:
    """Whether the first strongly directional character is right-to-left (Hebrew, Arabic …)."""
    for ch in text or "":
        kind = unicodedata.bidirectional(ch)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return False


def direction(text: str | None) -> Qt.LayoutDirection:
    return Qt.LayoutDirection.RightToLeft if is_rtl(text) else Qt.LayoutDirection.LeftToRight


def one_line(text: str | None, limit: int = 300) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def when(ts: int | None) -> str:
    if ts is None:
        return "—"
    try:
        return dt.datetime.fromtimestamp(int(ts)).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return str(ts)


def tokens(chars: int) -> int:
    """The rough token estimate the desk uses everywhere: characters / 4."""
    return (chars + 3) // 4
