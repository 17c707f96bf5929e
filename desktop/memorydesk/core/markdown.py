"""Markdown tables as the desk writes them (the history's and the conflicts' exports): one way
to put a value into a cell.

A cell holds any text safely: a backslash is written ``\\\\`` and a pipe ``\\|`` (so neither a
pipe nor a backslash before one can end the cell early: ``C:\\tmp\\|x`` stays one cell), a line
break is ``<br>`` (a carriage return a space), and an empty value is ``—``.
"""

from __future__ import annotations

from typing import Any

EMPTY = "—"


def cell(value: Any) -> str:
    """``value`` as the text of one Markdown table cell (see the module)."""
    if value is None or value == "":
        return EMPTY
    text = str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", "<br>")
