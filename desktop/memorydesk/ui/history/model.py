"""The History list: events read a page at a time (``fetchMore``), newest first.

``HistoryModel`` holds the events read so far and the cursor of the next page; its tab
sets ``load_more(cursor)``, which reads the next page on the worker and hands it to
``append``. A list of a 1,000,000-fact file shows its first page at once and reads on as
the person scrolls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from memorydesk.browse.history.entries import Event, HistoryPage
from memorydesk.core.moments import utc_text
from memorydesk.ui.widgets.rows_model import RowsModel
from memorydesk.ui.widgets.text import one_line, when

Index = QModelIndex | QPersistentModelIndex
REVIEWER = QColor(41, 128, 185, 40)


class HistoryModel(RowsModel[Event]):
    COLUMNS = (("local", "Time (local)"), ("utc", "UTC"), ("entry", "Entry"), ("who", "Who"), ("what", "What"),
               ("summary", "Summary"), ("why", "Why"))

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.cursor: Any = None
        self.more = False
        self.loading = False
        self.load_more: Callable[[Any], None] | None = None

    def start(self, page: HistoryPage) -> None:
        self.loading = False
        self.cursor, self.more = page.next_cursor, page.next_cursor is not None
        self.set_rows(page.events)

    def append(self, page: HistoryPage) -> None:
        self.loading = False
        self.cursor, self.more = page.next_cursor, page.next_cursor is not None
        if page.events:
            first = len(self.rows)
            self.beginInsertRows(QModelIndex(), first, first + len(page.events) - 1)
            self.rows.extend(page.events)
            self.endInsertRows()

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008 - Qt's signature
        return not parent.isValid() and self.more and not self.loading and self.load_more is not None

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent):
            self.loading = True
            self.load_more(self.cursor)

    def cell(self, e: Event, key: str, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            after = "after " if e.after else ""  # the file does not say when: the earliest it can have been
            if key == "local":
                return after + when(e.at)
            if key == "utc":
                return after + utc_text(e.at)
            if key == "entry":  # the number “undo of entry 43” names (the desk's own changes only)
                return f"#{e.history_id}" if e.history_id is not None else ""
            if key == "who":
                return f"{e.actor} ({e.actor_kind})"
            if key == "what":
                return e.what
            if key == "summary":
                return one_line(e.summary, 200)
            return one_line(e.reason, 120)  # a reason only: what a row says of itself is in the detail pane
        if role == Qt.ItemDataRole.ToolTipRole and key == "summary":
            return one_line(e.summary, 1000) + (f"\n\nDetails: {one_line(e.details, 300)}" if e.details else "")
        if role == Qt.ItemDataRole.ToolTipRole and key == "why":
            return one_line(e.reason, 1000) if e.reason else "No reason: written by an agent or the product"
        if role == Qt.ItemDataRole.BackgroundRole and e.actor_kind == "reviewer":
            return QBrush(REVIEWER)
        return None
