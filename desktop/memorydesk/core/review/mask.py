"""Showing what was found without showing it whole: secrets masked, hidden characters made visible."""

from __future__ import annotations

import unicodedata

SHOWN = 4  # characters kept at each end of a masked secret


def mask(secret: str) -> str:
    """``sk_l…p7dc`` (first and last four characters, the length in between); short ones all stars."""
    if len(secret) <= 2 * SHOWN + 2:
        return secret[:1] + "•" * max(len(secret) - 1, 3)
    return f"{secret[:SHOWN]}…{secret[-SHOWN:]} ({len(secret)} chars)"


def visible(ch: str) -> str:
    return f"⟨U+{ord(ch):04X}⟩"


def name_of(ch: str) -> str:
    return unicodedata.name(ch, f"U+{ord(ch):04X}")


def excerpt(text: str, start: int, end: int, *, around: int = 40, replace: tuple[int, int, str] | None = None) -> str:
    """The text around ``start:end`` on one line, with every invisible or control character
    made visible; ``replace`` = (start, end, shown) puts ``shown`` in place of that span (a masked secret)."""
    lo, hi = max(0, start - around), min(len(text), end + around)
    out = []
    i = lo
    while i < hi:
        if replace is not None and i == replace[0]:
            out.append(replace[2])
            i = max(replace[1], i + 1)
            continue
        ch = text[i]
        out.append(" " if ch in "\n\r\t" else visible(ch) if _invisible(ch) else ch)
        i += 1
    return ("…" if lo else "") + "".join(out) + ("…" if hi < len(text) else "")


def _invisible(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat in ("Cf", "Cc", "Co", "Cn", "Zl", "Zp") or (cat == "Zs" and ch != " ")
