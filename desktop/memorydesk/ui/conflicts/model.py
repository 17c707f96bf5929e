"""Table models of the Conflicts tab: the lazy list of conflict lines, and the bursts.

``ConflictListModel`` holds the keys of every line (an array of ints, read on the
worker) and a cache of windows of lines, read on the worker when a window comes into
view; a window that could not be read draws as "unavailable". ``BurstModel`` holds the
bursts (a workspace has hundreds, not millions).
"""

from __future__ import annotations

import array
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QStyle

from memorydesk.browse.conflicts.bursts import BurstRow
from memorydesk.browse.conflicts.listing import ConflictLine, FactBrief
from memorydesk.browse.conflicts.rows import DECISION_WORDS
from memorydesk.ui.runner import Latest
from memorydesk.ui.widgets.delegates import PARTS_ROLE
from memorydesk.ui.widgets.rows_model import RowsModel
from memorydesk.ui.widgets.text import one_line, when
from memorydesk.ui.widgets.windowed import Windowed

Index = QModelIndex | QPersistentModelIndex
COLUMNS = (("type", "Type"), ("state", "State"), ("topic", "Domain / topic"), ("a", "Fact A"), ("b", "Fact B"),
           ("agents", "Agents"), ("when", "When"), ("count", "×"))
NAMES = [name for name, _label in COLUMNS]
DANGLING = QColor(192, 57, 43)
#: fetch(keys, deliver): read these lines on the worker, then call deliver(lines or None)
Fetcher = Callable[[Sequence[int], Callable[[list[ConflictLine | None] | None], None]], None]


def column(name: str) -> int:
    return NAMES.index(name)


def state_text(line: ConflictLine) -> str:
    """The product's state, then what a person decided (if anything): ``ConflictLine.state_text``."""
    return line.state_text


def fact_text(f: FactBrief) -> str:
    if not f.exists:
        return f"missing fact {f.id[:8]}…"
    return f.head or "(empty)"


def agent_text(f: FactBrief) -> str:
    if not f.exists:
        return "?"
    return f.agent_name or (f.agent_id[:8] if f.agent_id else "—")


class ConflictListModel(Windowed, QAbstractTableModel):
    window_loaded = Signal(int, int)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._keys = array.array("q")
        self._windows: dict[int, Any] = {}
        self._resets = Latest()  # windows asked for before a reset are dropped when they arrive
        self.fetch: Fetcher | None = None

    # --- state --------------------------------------------------------------------------

    def set_keys(self, keys: array.array, windows: dict[int, list[ConflictLine | None]] | None = None) -> None:
        self.beginResetModel()
        self._stale_windows()
        self._keys = keys
        self._windows = dict(windows or {})
        self.endResetModel()

    def set_first(self, lines: Sequence[ConflictLine]) -> None:
        """The first window while the whole list is read (its keys are the list's head)."""
        self.set_keys(array.array("q", [line.key for line in lines]), {0: list(lines)})

    def extend_keys(self, keys: array.array) -> None:
        """The whole list, whose head is what is shown: the rest is appended (the selection stays)."""
        head = len(self._keys)
        if len(keys) > head:
            self.beginInsertRows(QModelIndex(), head, len(keys) - 1)
            self._keys = keys
            self.endInsertRows()
        else:
            self._keys = keys

    def forget_windows(self) -> None:
        """Read every window again when next shown (the facts or decisions changed)."""
        self._stale_windows()
        self._windows = {}
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, len(COLUMNS) - 1))

    def key_at(self, row: int) -> int | None:
        return self._keys[row] if 0 <= row < len(self._keys) else None

    def row_of_key(self, key: int) -> int | None:
        try:
            return self._keys.index(key)
        except ValueError:
            return None

    def line(self, row: int) -> ConflictLine | None:
        return self.row_item(row)  # type: ignore[no-any-return]

    # --- Qt model -----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._keys)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][1]
        if role == Qt.ItemDataRole.ToolTipRole:
            return {"a": "A: the loser of a contradiction (the first fact of an open pair)",
                    "b": "B: the winner of a contradiction (the second fact of an open pair); bold = recorded winner",
                    "count": "How many rows the product wrote for this pair (one per harmonize pass)"}.get(
                COLUMNS[section][0])
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if self.line(index.row()) is None and not self.row_loading(index.row()):
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.column() < len(COLUMNS):
            return None
        line = self.line(index.row())
        name = NAMES[index.column()]
        if line is None:
            if role == Qt.ItemDataRole.DisplayRole and name == "topic":
                return "loading…" if self.row_loading(index.row()) else "unavailable"
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(line, name)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(line, name)
        if role == Qt.ItemDataRole.UserRole:
            return line.id
        if role == PARTS_ROLE and name == "topic" and (line.a.exists or line.b.exists):
            return (line.domain, one_line(line.topic, 200))
        side = line.a if name == "a" else line.b if name == "b" else None
        if side is not None and not side.exists:
            if role == Qt.ItemDataRole.ForegroundRole:
                return QBrush(DANGLING)
            if role == Qt.ItemDataRole.DecorationRole:
                return QApplication.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        if role == Qt.ItemDataRole.FontRole and side is not None and line.recorded_winner == side.id:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and side is not None and side.state not in ("active", "expired"):
            return QBrush(QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        if role == Qt.ItemDataRole.BackgroundRole and name == "state":
            if line.dangling:
                return QBrush(QColor(192, 57, 43, 40))
            if line.state == "open":
                return QBrush(QColor(230, 160, 40, 60))
        if role == Qt.ItemDataRole.TextAlignmentRole and name == "count":
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    @staticmethod
    def _display(line: ConflictLine, name: str) -> str:
        if name == "type":
            return "cross-agent" if line.type == "cross_agent" else line.type
        if name == "state":
            return state_text(line)
        if name == "topic":
            return one_line(f"{line.domain} / {line.topic}" if (line.a.exists or line.b.exists) else "?", 200)
        if name in ("a", "b"):
            return one_line(fact_text(line.a if name == "a" else line.b), 200)
        if name == "agents":
            arrow = " ↔ " if line.recorded_winner is None else " → "
            return agent_text(line.a) + arrow + agent_text(line.b)
        if name == "when":
            return when(line.last_at)
        return f"×{line.count}" if line.count > 1 else "1"

    @staticmethod
    def _tooltip(line: ConflictLine, name: str) -> str | None:
        if name in ("a", "b"):
            f = line.a if name == "a" else line.b
            if not f.exists:
                return f"Fact {f.id} no longer exists; the product kept this row (a dangling conflict)."
            role = "the recorded winner" if line.recorded_winner == f.id else (
                "the loser" if line.recorded_winner else "one side of an open disagreement")
            return f"{f.id} — {role}, now {f.state}\n{f.head}"
        if name == "topic" and (line.a.exists or line.b.exists):
            return f"{line.domain} / {line.topic}"
        if name in ("when", "count"):
            if line.count > 1:
                return f"Flagged {line.count} times, first {when(line.first_at)}, last {when(line.last_at)}"
            return f"Recorded {when(line.last_at)}"
        if name == "state" and line.review:
            r = line.review
            return f"{DECISION_WORDS.get(r['decision'], r['decision'])} by {r['actor']} on {when(r['at'])}" + (
                f": “{r['reason']}”" if r.get("reason") else "")
        return None


BURST_COLUMNS = (("topic", "Winner"), ("count", "Displaced"), ("topics", "Topics"), ("when", "When"),
                 ("why", "Why a burst"), ("reviewed", "Reviewed"))


class BurstModel(RowsModel[BurstRow]):
    COLUMNS = BURST_COLUMNS

    def burst(self, row: int) -> BurstRow | None:
        return self.row_at(row)

    def row_of(self, key: str) -> int | None:
        return next((i for i, b in enumerate(self.rows) if b.key == key), None)

    def cell(self, b: BurstRow, name: str, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "topic":
                where = f"{b.winner_domain} / {b.winner_topic}" if b.winner_topic is not None else b.winner[:8] + "…"
                return one_line(where, 200)
            if name == "count":
                return str(b.count)
            if name == "topics":
                return str(b.topics)
            if name == "when":
                return when(b.last_at)
            if name == "why":
                return b.reason
            return f"{b.reviewed} of {b.count}" if b.reviewed else "—"
        if role == Qt.ItemDataRole.ToolTipRole and name == "topic":
            return f"Winner {b.winner} ({b.winner_state})"
        if role == Qt.ItemDataRole.TextAlignmentRole and name in ("count", "topics"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return b.key
        return None
