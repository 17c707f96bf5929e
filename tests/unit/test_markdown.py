"""One way to write a Markdown table cell (``core.markdown.cell``), used by the history's and the
conflicts' exports: any text stays in its own cell and reads back as it was."""

from __future__ import annotations

import pytest

from memorydesk.browse.conflicts import export as conflicts_export
from memorydesk.browse.history import export as history_export
from memorydesk.browse.history.entries import HistoryQuery
from memorydesk.browse.history.event import Event
from memorydesk.core.markdown import cell


def cells(row: str) -> list[str]:
    """A table row split as GitHub Flavored Markdown splits it (a backslash escapes the next
    character; an unescaped pipe ends a cell), each cell unescaped and trimmed."""
    row = row.strip()
    assert row.startswith("|") and row.endswith("|")
    out, text, escaped = [], "", False
    for ch in row[1:]:
        if escaped:
            text, escaped = text + ch, False
        elif ch == "\\":
            escaped = True
        elif ch == "|":
            out.append(text.strip())
            text = ""
        else:
            text += ch
    assert text.strip() == "" and not escaped  # the row ends with a pipe of its own
    return out


@pytest.mark.parametrize("text", ["C:\\tmp\\|x", "a|b", "ends with \\", "\\\\|", "plain", "a\\nb", "||"])
def test_any_text_is_one_cell_and_reads_back(text: str) -> None:
    assert cells(f"| {cell(text)} | next |") == [text, "next"]


def test_line_breaks_and_empty_values() -> None:
    assert cell("one\ntwo") == "one<br>two" and cell("a\r\nb") == "a <br>b"
    assert cell("") == cell(None) == "—"


def test_the_history_export_keeps_a_path_with_a_pipe_in_its_cell() -> None:
    event = Event(at=1_700_000_000, actor="ana", actor_kind="reviewer", kind="fact", action="edit", ids=("f-1",),
                  summary="moved to C:\\tmp\\|x", reason="C:\\tmp\\|x")
    lines = "".join(history_export.export_markdown([event], "team.db", HistoryQuery())).splitlines()
    header = next(line for line in lines if line.startswith("| time"))
    row = next(line for line in lines if line.startswith("| 2023"))
    named = dict(zip(cells(header), cells(row), strict=True))  # as many cells as the header names
    assert named["summary"] == "moved to C:\\tmp\\|x" and named["why"] == "C:\\tmp\\|x"


def test_both_exports_write_cells_the_one_way() -> None:
    assert history_export.cell is cell and conflicts_export.cell is cell
