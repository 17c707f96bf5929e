"""The findings list: worst first (severity, then reach), one row per finding."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import QApplication

from memorydesk.core.review.finding import Finding
from memorydesk.core.review.kinds import ReviewKind
from memorydesk.ui.widgets.rows_model import RowsModel
from memorydesk.ui.widgets.text import one_line

SEVERITY_COLOURS = {"critical": "#b03a2e", "high": "#d35400", "medium": "#b7950b", "low": "#5d6d7e"}
ITEM_WORDS = {"fact": "fact", "policy": "policy", "note": "agent note", "working_item": "working item"}
#: the list's columns: a word each, whole at 1280 px (the kind list and the dialogs say it in full; a kind
#: without a short word here shows its title, ``ReviewKind.words``)
ITEM_SHORT = {"fact": "fact", "policy": "policy", "note": "note", "working_item": "item"}
KIND_SHORT = {"secret": "Secret", "personal_data": "Personal data", "injection": "Injection",
              "duplicate": "Duplicate", "losing_correction": "Correction", "unreachable": "Unreachable",
              "fading": "Fading"}


class FindingsModel(RowsModel[Finding]):
    COLUMNS = (("severity", "Severity"), ("kind", "Kind"), ("item", "Item"), ("domain", "Domain"),
               ("title", "Finding"), ("state", "State"))

    def finding(self, row: int) -> Finding | None:
        return self.row_at(row)

    def row_of(self, key: str) -> int | None:
        return next((i for i, f in enumerate(self.rows) if f.key == key), None)

    def cell(self, row: Finding, name: str, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "kind":
                return KIND_SHORT.get(row.kind) or ReviewKind(row.kind).words
            if name == "item":
                return f"{ITEM_SHORT[row.item_kind]} {row.item_id[:8]}"
            if name == "title":
                return one_line(row.title)
            return str(getattr(row, name))
        if role == Qt.ItemDataRole.ForegroundRole:
            if name == "severity":
                return QBrush(QColor(SEVERITY_COLOURS[row.severity]))
            if row.state != "open":
                return QBrush(QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        if role == Qt.ItemDataRole.ToolTipRole and name in ("title", "item"):
            return f"{row.item_kind} {row.item_id}\n{row.title}"
        if role == Qt.ItemDataRole.ToolTipRole and name in ("domain", "kind", "state"):
            return str(getattr(row, name) if name != "kind" else ReviewKind(row.kind).words)  # whole, where cut
        if role == Qt.ItemDataRole.UserRole:
            return row.key
        return None
