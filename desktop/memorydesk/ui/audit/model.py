"""The audited facts as a table: each fact, the query asked (its topic), the stage where the
agent's recall lost it, and the numbers behind it. Read-only; rows are the report's."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from memorydesk.search.loss import STAGE_WORDS
from memorydesk.ui.widgets.rows_model import RowsModel
from memorydesk.ui.widgets.text import one_line

COLUMNS = (("lost_at", "Where"), ("rank", "Rank"), ("query", "Query (its topic)"), ("domain", "Domain"),
           ("memory_type", "Type"), ("age_days", "Age (days)"), ("score_rank", "By score"),
           ("undecayed_rank", "Undecayed"), ("id", "Fact id"))
NUMERIC = {"rank", "age_days", "score_rank", "undecayed_rank"}


class AuditFactsModel(RowsModel[dict[str, Any]]):
    COLUMNS = COLUMNS

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._all: list[dict[str, Any]] = []
        self._stage: str | None = None

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self._all = list(rows)
        super().set_rows([r for r in self._all if self._stage is None or r["lost_at"] == self._stage])

    def set_stage(self, stage: str | None) -> None:
        self._stage = stage
        self.set_rows(self._all)

    def cell(self, entry: dict[str, Any], name: str, role: int) -> Any:
        value = entry.get(name)
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "lost_at":
                return STAGE_WORDS.get(str(value), str(value))
            if value is None:
                return "—"
            return one_line(str(value), 200)
        if role == Qt.ItemDataRole.TextAlignmentRole and name in NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return entry["id"]
        return None
