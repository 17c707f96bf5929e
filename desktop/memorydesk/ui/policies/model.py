"""A read-only table model of the workspace's policies (a workspace holds tens, not millions)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QPalette
from PySide6.QtWidgets import QApplication

from memorydesk.browse.detail import PolicyRow
from memorydesk.ui.widgets.rows_model import RowsModel
from memorydesk.ui.widgets.text import one_line, when

COLUMNS = (("active", "Status"), ("domain", "Domain"), ("rule", "Rule"),
           ("required_role", "Role (advisory)"), ("updated_at", "Updated"))


class PolicyTableModel(RowsModel[PolicyRow]):
    COLUMNS = COLUMNS

    def policy(self, row: int) -> PolicyRow | None:
        return self.row_at(row)

    def row_of(self, policy_id: str) -> int | None:
        return next((i for i, r in enumerate(self.rows) if r.id == policy_id), None)

    def cell(self, row: PolicyRow, name: str, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "active":
                state = "active" if row.active else "inactive"
                return f"{state} · replaced" if row.replaced_by else state
            if name == "rule":
                return one_line(row.rule)
            if name == "updated_at":
                return when(row.updated_at)
            if name == "required_role":
                return row.required_role or "—"
            return str(row.domain)
        if role == Qt.ItemDataRole.ToolTipRole:
            if name == "active" and row.replaced_by:
                return (f"An older version: an edit replaced it by policy {row.replaced_by}. Activating it would "
                        "send both versions to every agent.")
            if name == "rule":
                return row.rule[:2000]
            if name == "required_role":
                return "Advisory only: the product records the author's role here but never enforces it."
        if role == Qt.ItemDataRole.ForegroundRole and not row.active:
            return QBrush(QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        if role == Qt.ItemDataRole.UserRole:
            return row.id
        return None
