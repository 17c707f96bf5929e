"""Small read-only tables and words the audit window's pages share."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem


def pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def when(at: float) -> str:
    """Local time, to the minute."""
    return dt.datetime.fromtimestamp(at).astimezone().strftime("%Y-%m-%d %H:%M")


def table(name: str, headers: list[str], stretch: int = 0) -> QTableWidget:
    out = QTableWidget(0, len(headers))
    out.setObjectName(name)
    out.setHorizontalHeaderLabels(headers)
    out.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    out.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    out.verticalHeader().setVisible(False)
    header = out.horizontalHeader()
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    out.setAlternatingRowColors(True)
    out.setWordWrap(False)
    return out


def fill(widget: QTableWidget, rows: list[list[str]], ids: list[str] | None = None) -> None:
    widget.setRowCount(len(rows))
    for r, values in enumerate(rows):
        for c, value in enumerate(values):
            item = QTableWidgetItem(value)
            item.setToolTip(value)
            if ids is not None:
                item.setData(Qt.ItemDataRole.UserRole, ids[r])
            widget.setItem(r, c, item)
    if rows:
        widget.resizeColumnsToContents()
        widget.horizontalHeader().setStretchLastSection(True)
