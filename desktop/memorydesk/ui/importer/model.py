"""The anomaly report of an import as a table: the rows ``--json`` prints."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from memorydesk.lineage.memoryos import Anomaly
from memorydesk.ui.widgets.rows_model import RowsModel


class AnomalyModel(RowsModel[Anomaly]):
    COLUMNS = (("kind", "Kind"), ("user", "User"), ("file", "File"), ("path", "Path"), ("detail", "Detail"))

    def cell(self, a: Anomaly, name: str, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return (a.user or "— (assistant file)") if name == "user" else getattr(a, name)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{a.file} {a.path}\n{a.detail}"
        return None
