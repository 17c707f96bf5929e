"""A change of the desk in one line, from what its history row stores (pure: no reads).

The History tab's detail pane lists a change field by field (``browse.history.changes``);
the command line's ``history`` text, the status bar after an undo and Edit ▸ Undo say the
same in one line: “9 cells of security from write to none”. Grant edits store every cell
they changed (``{"edits": [{"domain", "before", "after"}]}``, rows as ``[rowid, role,
permission]``; the older one-row format ``{"role", "domain", "before", "after"}`` too).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

NO_ROW = "no row"

__all__ = ["NO_ROW", "grant_cells", "grant_words", "move_words"]


def grant_cells(detail: dict[str, Any]) -> list[tuple[str, str, str | None, str | None]]:
    """Each cell a grant edit changed: (domain, role as stored, permission before, after; None: no row)."""
    edits = detail.get("edits")
    if not isinstance(edits, list):
        if "role" not in detail:
            return []
        edits = [{"domain": detail.get("domain", "?"),
                  "before": [[None, detail["role"], detail["before"]]] if detail.get("before") is not None else [],
                  "after": [[None, detail["role"], detail["after"]]] if detail.get("after") is not None else []}]
    out = []
    for edit in edits:
        if not isinstance(edit, dict):
            continue
        domain = str(edit.get("domain", "?"))
        before = {str(r[1]): str(r[2]) for r in edit.get("before") or [] if isinstance(r, list) and len(r) >= 3}
        after = {str(r[1]): str(r[2]) for r in edit.get("after") or [] if isinstance(r, list) and len(r) >= 3}
        for role in sorted(before.keys() | after.keys()):
            if before.get(role) != after.get(role):
                out.append((domain, role, before.get(role), after.get(role)))
    return out


def grant_words(detail: dict[str, Any], *, back: bool = False, cells_word: str = "cells") -> str:
    """“9 cells of security from write to none”, “designer on security from write to no row”;
    ``back``: as an undo puts them (after → before); ``cells_word``: “grant cells” where the
    sentence does not say grants."""
    cells = [(d, r, a, b) if back else (d, r, b, a) for d, r, b, a in grant_cells(detail)]
    if not cells:
        return "no cell changed"
    if len(cells) == 1:
        domain, role, b, a = cells[0]
        return f"{role} on {domain} from {b or NO_ROW} to {a or NO_ROW}"
    domains = list(dict.fromkeys(d for d, _r, _b, _a in cells))
    where = f"of {domains[0]}" if len(domains) == 1 else f"in {len(domains)} domains ({', '.join(domains[:3])}" + (
        ", …)" if len(domains) > 3 else ")")
    steps = Counter((b or NO_ROW, a or NO_ROW) for _d, _r, b, a in cells)
    if len(steps) == 1:
        (b, a), _n = steps.most_common(1)[0]
        return f"{len(cells)} {cells_word} {where} from {b} to {a}"
    return f"{len(cells)} {cells_word} {where}: " + ", ".join(
        f"{n} from {b} to {a}" for (b, a), n in steps.most_common())


def _pointer(value: str | None) -> str:
    if value is None:
        return "active"
    return value if ":" in value else f"superseded by {value[:8]}"


def move_words(moves: Any, most: int = 3) -> str:
    """The supersessions a change made (its ``moves``: ``[fact, before, after]``), in one line:
    “3478f1e7 superseded by 2d7b6ecb → active”."""
    steps = [m for m in moves or [] if isinstance(m, list) and len(m) == 3]
    words = [f"{str(f)[:8]} {_pointer(b)} → {_pointer(a)}" for f, b, a in steps[:most]]
    more = f" and {len(steps) - most:,} more" if len(steps) > most else ""
    return "; ".join(words) + more
