"""The run list beside the timeline, as trace viewers have one: every run the timeline shows (the
same filters: colour, rule, scope, time range, sourceVersion, canary, and the run id typed
above the list), one row each, sortable by any column; Enter or a double click opens the run
(selects it on the timeline and explains it below).

The model reads the :class:`~memorydesk.lineage.timeline.Timeline`'s arrays: a row's text is
made when the view asks for it, and sorting is one numpy ``argsort`` — 100,000 runs sort and
scroll without holding a Python object per run.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QLabel, QLineEdit, QTableView, QVBoxLayout, QWidget

from memorydesk.core.receipts import format_utc
from memorydesk.lineage.timeline import STATES, Timeline
from memorydesk.ui.lineage import colors
from memorydesk.ui.widgets.columns import ColumnFitter

Index = QModelIndex | QPersistentModelIndex
_NO_PARENT = QModelIndex()
COLUMNS = (("state", "State"), ("run", "Run"), ("first", "First receipt"), ("last", "Last receipt"),
           ("lane", "Lane"), ("receipts", "Receipts"))
US = 1_000_000


def _local(us: int) -> str:
    return datetime.fromtimestamp(us / US, UTC).astimezone().strftime("%Y-%m-%d %H:%M:%S")


class RunListModel(QAbstractTableModel):
    """The timeline's shown runs; ``run_at(row)`` is a run index of ``tl.table``."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.tl: Timeline | None = None
        self.order = np.zeros(0, np.int64)  # row -> run index of tl.table
        self.sort_column, self.sort_order = 0, Qt.SortOrder.DescendingOrder  # worst first

    def set_timeline(self, tl: Timeline) -> None:
        self.beginResetModel()
        self.tl = tl
        self.order = self._sorted(tl, self.sort_column, self.sort_order)
        self.endResetModel()

    def run_at(self, row: int) -> int | None:
        return int(self.order[row]) if 0 <= row < len(self.order) else None

    def row_of(self, run: int) -> int | None:
        found = np.flatnonzero(self.order == run)
        return int(found[0]) if len(found) else None

    def _sorted(self, tl: Timeline, column: int, order: Qt.SortOrder) -> np.ndarray:
        runs = np.asarray(tl.idx, np.int64)
        t = tl.table
        key = COLUMNS[column][0]
        if key == "state":
            values = tl.severity[runs].astype(np.int64) * 16 + (15 - tl.state[runs])  # worst colour, first rule
        elif key == "run":
            values = np.asarray([t.run_ids[i] for i in runs.tolist()], dtype=object)
        elif key == "lane":
            values = np.asarray([t.lane_name(int(t.lane[i])) for i in runs.tolist()], dtype=object)
        elif key == "first":
            values = t.start[runs]
        elif key == "last":
            values = t.end[runs]
        else:
            values = t.count[runs]
        # ties keep the start time order; descending reverses the whole order
        by = np.lexsort((t.start[runs], values)) if values.dtype != object else np.argsort(values, kind="stable")
        ordered = runs[by]
        return ordered[::-1].copy() if order == Qt.SortOrder.DescendingOrder else ordered

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        self.sort_column, self.sort_order = column, order
        if self.tl is None:
            return
        self.layoutAboutToBeChanged.emit()
        self.order = self._sorted(self.tl, column, order)
        self.layoutChanged.emit()

    def rowCount(self, parent: Index = _NO_PARENT) -> int:
        return 0 if parent.isValid() else len(self.order)

    def columnCount(self, parent: Index = _NO_PARENT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal \
                and 0 <= section < len(COLUMNS):
            return COLUMNS[section][1]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        tl = self.tl
        if tl is None or not index.isValid() or not 0 <= index.row() < len(self.order) \
                or not 0 <= index.column() < len(COLUMNS):
            return None
        run, key, t = int(self.order[index.row()]), COLUMNS[index.column()][0], tl.table
        state = STATES[int(tl.state[run]) - 1]
        if role == Qt.ItemDataRole.DisplayRole:
            return {"state": str(state), "run": t.run_ids[run],
                    "lane": t.lane_name(int(t.lane[run])), "first": _local(int(t.start[run])),
                    "last": _local(int(t.end[run])), "receipts": f"{int(t.count[run]):,}"}[key]
        if role == Qt.ItemDataRole.DecorationRole and key == "state":
            return colors.qcolor(state.color)
        if role == Qt.ItemDataRole.ToolTipRole:
            if key in ("first", "last"):
                us = int(t.start[run] if key == "first" else t.end[run])
                return f"{format_utc(datetime.fromtimestamp(us / US, UTC))} (UTC)"
            if key == "state":
                return f"{state.color}: {state} (rule {state.rule})" + (" · canary run" if t.canary[run] else "")
            if key == "run":  # the whole row, for the columns a narrow list leaves out
                return (f"{t.run_ids[run]}\n{state.color}: {state} (rule {state.rule})\n"
                        f"lane {t.lane_name(int(t.lane[run]))}\nfirst {_local(int(t.start[run]))}, "
                        f"last {_local(int(t.end[run]))}\n{int(t.count[run]):,} receipts")
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and key == "receipts":
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class RunTableView(QTableView):
    """Enter (or Return) opens the current run."""

    opened = Signal(int)  # a run index of the timeline's table

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            run = self.model().run_at(self.currentIndex().row()) if self.currentIndex().isValid() else None
            if run is not None:
                self.opened.emit(run)
                event.accept()
                return
        super().keyPressEvent(event)


class RunList(QWidget):
    """The run id filter, the count and the list."""

    opened = Signal(int)

    def __init__(self, find: QLineEdit, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.find = find
        self.count = QLabel("")
        self.count.setObjectName("lineage-run-count")
        self.count.setWordWrap(True)
        self.model = RunListModel(self)
        self.view = RunTableView()
        self.view.setObjectName("lineage-run-list")
        self.view.setModel(self.model)
        self.view.setSortingEnabled(True)
        self.view.horizontalHeader().setSortIndicator(0, Qt.SortOrder.DescendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.view.setAlternatingRowColors(True)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a run id keeps its distinct end in view
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # columns fit, or step out
        text = self.fontMetrics().horizontalAdvance
        when = text("2026-11-13 21:40:00") + 14
        # the run id takes what the others leave; the lane, the count, the last receipt, the first step out
        # when the list is too narrow (the run's tooltip says them all), never a horizontal scroll
        self.fitter = ColumnFitter(
            self.view, [key for key, _title in COLUMNS],
            {"state": text("promotion_missing") + 34, "first": when, "last": when,
             "receipts": text("Receipts") + 16, "run": text("m" * 24), "lane": text("user:sam / agent:farah") + 14},
            {"run": (text("m" * 13), 3.0), "lane": (text("m" * 9), 1.0)},
            optional=("lane", "receipts", "last", "first"))
        self.view.opened.connect(self.opened)
        self.view.doubleClicked.connect(lambda index: self._open_row(index.row()))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.find)
        layout.addWidget(self.count)
        layout.addWidget(self.view, 1)

    def _open_row(self, row: int) -> None:
        run = self.model.run_at(row)
        if run is not None:
            self.opened.emit(run)

    def set_timeline(self, tl: Timeline, selected: int | None) -> None:
        self.model.set_timeline(tl)
        shown, total = tl.runs_shown, len(tl.table)
        self.count.setText(f"{shown:,} run{'' if shown == 1 else 's'}" + (f" of {total:,} (filtered as the timeline)"
                                                                           if shown != total else ""))
        # the run column wants the longest id shown (up to 24 wide letters, ~35 of a run id's) whole: the
        # other columns step out before an id is cut (a person's own width for it stays)
        text = self.fontMetrics().horizontalAdvance
        ids = tl.table.run_ids
        shown = tl.idx if len(tl.idx) <= 200_000 else tl.idx[:: len(tl.idx) // 200_000]
        longest = text(max((ids[i] for i in shown.tolist()), key=len, default="m" * 6)) + 16
        wanted = (min(longest, text("m" * 24)), 3.0)
        if wanted != self.fitter.flexible["run"]:
            self.fitter.flexible["run"] = wanted
            self.fitter.fit()
        self.show_selected(selected)

    def show_selected(self, run: int | None) -> None:
        """Mark the run selected on the timeline (when the list shows it)."""
        row = self.model.row_of(run) if run is not None else None
        if row is None:
            self.view.clearSelection()
            return
        index = self.model.index(row, 0)
        self.view.setCurrentIndex(index)
        self.view.scrollTo(index)
