"""A lazy table model over the facts of one filter and sort.

It holds the list's row keys (8 bytes a fact, read off the UI thread) and a cache of
row windows read on demand (``WINDOW`` rows at a time, a couple of milliseconds each,
wherever they are in the list). A window is read on the worker (``fetch``, set by the
tab): until it arrives its rows say "loading…", then ``dataChanged`` repaints them; the
UI thread never waits on the database. A window that cannot be read is drawn as disabled
"unavailable" rows rather than raising. The model is read-only: no editing, no
inserting, no dropping.

A change to a few facts is patched in (``patch``): the rows that left the list are
removed, new ones inserted where they belong, and only the windows around them are
read again — the rest of a 1,000,000-row list, its selection and scroll position stay.

A list arrives in two steps when that is faster: ``set_first`` shows the first window
at once (the model then has just those rows and ``count_known()`` is False), and
``set_keys`` brings the whole list later; when the first rows are still its head the
rest is inserted below them, so the selection and scroll position survive.

In the agent view (``set_hits``) the rows are a search's hits in rank order, and the
columns ``rank``, ``score`` and ``why`` say how each got its place. A keyword search's
list (``set_ranks``) shows each hit's place in the product's order and its score in
``rank`` and ``score``, whatever the list is sorted by.
"""

from __future__ import annotations

import array
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QPointF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QIcon, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QApplication

from memorydesk.browse import facts as browse
from memorydesk.browse.facts import FactRow
from memorydesk.ui.runner import Latest
from memorydesk.ui.widgets.text import is_rtl, one_line, when
from memorydesk.ui.widgets.windowed import FAILED, LOADING, WINDOW, Windowed

# the agent view's columns come last here (column 0 is always shown); the view moves them first
COLUMNS: tuple[tuple[str, str], ...] = (
    ("domain", "Domain"), ("topic", "Topic"), ("content", "Content"), ("memory_type", "Type"),
    ("veracity", "Veracity"), ("confidence", "Confidence"), ("created_at", "Created"),
    ("recall_count", "Recalls"), ("mention_count", "Mentions"), ("state", "State"),
    ("rank", "Rank"), ("score", "Score"), ("mmr", "After MMR"), ("why", "Why this place"),
)
NAMES = tuple(name for name, _label in COLUMNS)
AGENT_ONLY = frozenset({"rank", "score", "mmr", "why"})  # shown in the agent view only
KEYWORD_SHOWN = frozenset({"rank", "score"})  # of those, shown for a keyword search too
#: an agent's keyword search returns this many (the list shows more, greyed past it)
AGENT_KEYWORD = 20
NUMERIC = {"confidence", "recall_count", "mention_count", "rank", "score", "mmr"}
#: data role: True when the agent's keyword search can never return this (active) fact
UNREACHABLE_ROLE = int(Qt.ItemDataRole.UserRole) + 1
UNREACHABLE_TIP = (
    "Keyword search can never return this fact. The product's keyword search keeps only "
    "a–z and 0–9 words of two or more letters that are not stopwords, and this fact's topic "
    "and content have none (Hebrew, another script, or only stopwords). Agents do not get it "
    "from search_memory in keyword mode nor in a dispatch preamble; in hybrid mode only the "
    "vector, temporal and graph voices can bring it."
)
#: fetch(keys, deliver): read the rows of these keys on the worker, then call deliver(rows or None)
Fetcher = Callable[[Sequence[int], Callable[[list[FactRow | None] | None], None]], None]
_icons: dict[str, QIcon] = {}
Index = QModelIndex | QPersistentModelIndex


def column(name: str) -> int:
    return NAMES.index(name)


def unreachable_icon() -> QIcon:
    """A small "no entry" sign (made once, on the UI thread)."""
    icon = _icons.get("unreachable")
    if icon is None:
        pix = QPixmap(16, 16)
        pix.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pix)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor("#8e44ad"), 2))
        painter.drawEllipse(QPointF(8, 8), 6, 6)
        painter.drawLine(QPointF(3.8, 12.2), QPointF(12.2, 3.8))
        painter.end()
        icon = _icons["unreachable"] = QIcon(pix)
    return icon


def is_unreachable(fact: FactRow) -> bool:
    """Active (or merely expired) and still out of reach of every keyword query."""
    return fact.superseded_by is None and not fact.keyword_reachable


def short_why(hit: Any) -> str:
    """The voices that placed a hit, and the factors that moved it, in a few words."""
    voices = " · ".join(f"{name} #{share.rank}" for name, share in hit.voices.items()) or "no voice"
    if hit.decay_factor is None:
        return voices
    text = f"{voices} · decay ×{hit.decay_factor:.2f}"
    if hit.mmr_penalty:
        text += f" · MMR −{hit.mmr_penalty:.2f}"
    return text


class FactTableModel(Windowed, QAbstractTableModel):
    window_loaded = Signal(int, int)  # first row, last row of a window that arrived

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._keys: array.array | None = None
        self._first: list[FactRow] | None = None  # the first window while the whole list is being read
        self._windows: dict[int, Any] = {}
        self._resets = Latest()  # windows asked for before a reset are dropped when they arrive
        self._hits: dict[str, tuple[int, Any]] = {}  # agent view: fact id -> (rank, SearchHit)
        self._ranks: dict[str, tuple[int, float]] = {}  # keyword search: fact id -> (rank, score)
        self.fetch: Fetcher | None = None  # set by the tab
        self.sort_requested = None  # set by the tab: callable(column_name, descending)
        self.as_of: int | None = None  # the window's "as of": states then (``browse.history.as_of``)

    # --- state --------------------------------------------------------------------------

    def _reset_windows(self, windows: dict[int, Any] | None = None) -> None:
        self._stale_windows()
        self._windows = dict(windows or {})

    def set_first(self, rows: Sequence[FactRow]) -> None:
        """Show the first window of a list whose keys are not known yet."""
        self.beginResetModel()
        self._stale_windows()
        self._keys = None
        self._first = list(rows[:WINDOW])
        self._windows = {0: self._first} if self._first else {}
        self._hits = {}
        self._ranks = {}
        self.endResetModel()

    def set_keys(self, keys: array.array, windows: dict[int, list[FactRow | None]] | None = None) -> None:
        """The whole list (and, read with it, the windows about to be shown). Grows the first
        window in place when it is still the list's head."""
        first = self._first
        head = [r.key for r in first] if first is not None else None
        if (first and self._keys is None and len(first) == min(WINDOW, len(keys))
                and list(keys[:len(first)]) == head):
            if len(keys) > len(first):
                self.beginInsertRows(QModelIndex(), len(first), len(keys) - 1)
                self._keys, self._first = keys, None
                self.endInsertRows()
            else:
                self._keys, self._first = keys, None
            return
        self.beginResetModel()
        self._keys = keys
        self._first = None
        self._reset_windows(windows)
        self._hits = {}
        self.endResetModel()

    def set_hits(self, rows: Sequence[FactRow], hits: Sequence[Any]) -> None:
        """The agent view: ``rows`` are the hits' facts in rank order."""
        self.beginResetModel()
        self._keys = array.array("q", [r.key for r in rows])
        self._first = None
        self._reset_windows({w: list(rows[w * WINDOW:(w + 1) * WINDOW])
                             for w in range((len(rows) + WINDOW - 1) // WINDOW)})
        self._hits = {h.id: (i + 1, h) for i, h in enumerate(hits)}
        self._ranks = {}
        self.endResetModel()

    def set_ranks(self, ranks: dict[str, tuple[int, float]]) -> None:
        """A keyword search's (rank, score) of each hit ({}: the list is no search); set before ``set_keys``."""
        self._ranks = dict(ranks)

    @property
    def ranked(self) -> bool:
        """Whether the rows are a keyword search's hits (with their ranks)."""
        return bool(self._ranks) and not self._hits

    def count_known(self) -> bool:
        """Whether the whole list is here (False while only the first window is)."""
        return self._keys is not None

    @property
    def agent_view(self) -> bool:
        return bool(self._hits)

    def hit(self, fact_id: str) -> tuple[int, Any] | None:
        """(rank, SearchHit) of a fact in the agent view, else None."""
        return self._hits.get(fact_id)

    def rows_loaded(self) -> int:
        return sum(len(w) for w in self._windows.values() if w is not FAILED and w is not LOADING)

    def is_row_loaded(self, row: int) -> bool:
        w = self._windows.get(row // WINDOW)
        return w is not None and w is not FAILED and w is not LOADING

    def key_at(self, row: int) -> int | None:
        if self._first is not None:
            return self._first[row].key if 0 <= row < len(self._first) else None
        if self._keys is None or not 0 <= row < len(self._keys):
            return None
        return self._keys[row]

    def row_of_key(self, key: int) -> int | None:
        if self._first is not None:
            return next((i for i, r in enumerate(self._first) if r.key == key), None)
        if self._keys is None:
            return None
        try:
            return self._keys.index(key)
        except ValueError:
            return None

    def fact(self, row: int) -> FactRow | None:
        """The row's fact, or None while its window is loading (or could not be read)."""
        return self.row_item(row)  # type: ignore[no-any-return]

    def patch(self, placed: dict[int, int | None], old_keys: Sequence[int] = ()) -> bool:
        """Apply a change to a few rows: ``placed`` maps row keys to their place in the list
        now (None: no longer listed); ``old_keys`` are keys that left (e.g. a fact replaced).
        Returns False when the list is not one this can patch (read it again instead)."""
        if self._keys is None or self._first is not None or self._hits:
            return False
        keys = self._keys
        changed = set(placed) | set(old_keys)
        rows = sorted((r for r in (self.row_of_key(k) for k in changed) if r is not None), reverse=True)
        single = len(rows) == 1 and len(placed) == 1 and placed.get(keys[rows[0]]) == rows[0]
        if single:  # one row, same place: repaint it
            self._drop_windows(rows[0], rows[0])
            self.dataChanged.emit(self.index(rows[0], 0), self.index(rows[0], len(COLUMNS) - 1))
            return True
        low = min(rows) if rows else None
        for row in rows:
            self.beginRemoveRows(QModelIndex(), row, row)
            del keys[row]
            self.endRemoveRows()
        for place, key in sorted((p, k) for k, p in placed.items() if p is not None):
            place = min(place, len(keys))
            self.beginInsertRows(QModelIndex(), place, place)
            keys.insert(place, key)
            self.endInsertRows()
            low = place if low is None else min(low, place)
        if low is not None:
            self._drop_windows(low, len(keys))
            if len(keys) > low:
                self.dataChanged.emit(self.index(low, 0), self.index(len(keys) - 1, len(COLUMNS) - 1))
        return True

    def _drop_windows(self, first_row: int, last_row: int) -> None:
        """Forget the cached windows from ``first_row`` to ``last_row`` (read again when shown)."""
        for w in range(first_row // WINDOW, last_row // WINDOW + 1):
            self._windows.pop(w, None)

    # --- Qt model -----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.isValid():
            return 0
        if self._first is not None:
            return len(self._first)
        return len(self._keys) if self._keys is not None else 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
                return COLUMNS[section][1]
            if orientation == Qt.Orientation.Vertical:
                return str(section + 1)
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal \
                and 0 <= section < len(COLUMNS) and COLUMNS[section][0] in AGENT_ONLY:
            if COLUMNS[section][0] == "mmr":
                return ("The value MMR compared when it chose this hit: 0.7 × score − 0.3 × its similarity to the "
                        "hits above. Ranks follow this, not the score: the similarity term is far larger.")
            return "How the agent's hybrid search placed this fact (select a row for the whole calculation)"
        return None

    def is_loading(self, row: int) -> bool:
        return self.row_loading(row)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if self.fact(index.row()) is None and not self.is_loading(index.row()):
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.column() < len(COLUMNS):
            return None
        fact = self.fact(index.row())
        name = COLUMNS[index.column()][0]
        if fact is None:
            if role == Qt.ItemDataRole.DisplayRole and name == "content":
                return "loading…" if self.is_loading(index.row()) else "unavailable"
            return None
        if name in AGENT_ONLY:
            if self._ranks and not self._hits:
                return self._rank_data(fact, name, role)
            return self._agent_data(fact, name, role)
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "state" and self.as_of is not None:  # as it stood then, and whether it changed since
                state = fact.state(as_of=self.as_of)
                if state == "unknown":  # set aside by the product's cleanup at a time the file does not hold
                    return "unknown (cleanup)"
                return state + (" · changed since" if fact.changed_since(self.as_of) else "")
            return self._display(fact, name)
        if role == UNREACHABLE_ROLE:
            return is_unreachable(fact)
        if name == "state" and is_unreachable(fact):
            if role == Qt.ItemDataRole.DecorationRole:
                return unreachable_icon()
            if role == Qt.ItemDataRole.ToolTipRole:
                return UNREACHABLE_TIP
            if role == Qt.ItemDataRole.BackgroundRole:
                return QBrush(QColor(142, 68, 173, 45))
        if role == Qt.ItemDataRole.ToolTipRole and name == "state" and self.as_of is not None \
                and fact.state(as_of=self.as_of) == "unknown":
            return ("Active or already archived by the product's cleanup: it sets system:cleanup without recording "
                    "when (it leaves updated_at as it was), and archives only facts more than 30 days old.")
        if role == Qt.ItemDataRole.ToolTipRole and name in ("content", "topic", "domain"):
            return one_line(getattr(fact, name), 1000)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if name in NUMERIC:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        if role == Qt.ItemDataRole.ForegroundRole and fact.state(as_of=self.as_of) in ("superseded", "deleted"):
            return QBrush(QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        if role == Qt.ItemDataRole.BackgroundRole and name == "state" and fact.state(as_of=self.as_of) == "expired":
            return QBrush(QColor(230, 160, 40, 60))
        if role == Qt.ItemDataRole.UserRole:
            return fact.id
        return None

    def _agent_data(self, fact: FactRow, name: str, role: int) -> Any:
        found = self._hits.get(fact.id)
        if found is None:
            return None
        rank, hit = found
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "rank":
                return str(rank)
            if name == "score":
                return f"{hit.score:.5f}"
            if name == "mmr":  # what MMR compared: 0.7·score − 0.3·similarity (why ranks do not follow scores)
                return f"{hit.mmr_value:.5f}" if hit.mmr_value is not None else ""
            return short_why(hit)
        if role == Qt.ItemDataRole.ToolTipRole:
            return hit.explain()
        if role == Qt.ItemDataRole.TextAlignmentRole and name in NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return fact.id
        return None

    def _rank_data(self, fact: FactRow, name: str, role: int) -> Any:
        found = self._ranks.get(fact.id)
        if found is None or name not in KEYWORD_SHOWN:
            return None
        rank, score = found
        if role == Qt.ItemDataRole.DisplayRole:
            return str(rank) if name == "rank" else f"{score:.5f}"
        if role == Qt.ItemDataRole.ToolTipRole:
            gets = "an agent's keyword search returns it" if rank <= AGENT_KEYWORD else \
                f"past the best {AGENT_KEYWORD}: an agent's keyword search does not return it"
            return f"#{rank} in the product's keyword order (score {score:.5f}, i.e. −bm25); {gets}"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and rank > AGENT_KEYWORD:
            return QBrush(QApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        if role == Qt.ItemDataRole.UserRole:
            return fact.id
        return None

    @staticmethod
    def _display(fact: FactRow, name: str) -> str:
        if name == "content":
            return one_line(fact.content)
        if name in ("topic", "domain"):
            return one_line(getattr(fact, name), 200)
        if name == "confidence":
            return f"{fact.confidence:.2f}"
        if name == "created_at":
            return when(fact.created_at)
        if name == "state":
            return fact.state()
        return str(getattr(fact, name))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """A header click. Column -1 (the indicator cleared) is the order facts were written."""
        if column == -1:
            name, descending = browse.NATURAL, True
        elif 0 <= column < len(COLUMNS) and COLUMNS[column][0] not in AGENT_ONLY:
            name, descending = COLUMNS[column][0], order == Qt.SortOrder.DescendingOrder
        elif self.ranked and 0 <= column < len(COLUMNS) and COLUMNS[column][0] in KEYWORD_SHOWN:
            # the rank, or the score (the same order the other way round: rank 1 has the best score)
            descending = order == Qt.SortOrder.DescendingOrder
            name, descending = browse.RANK, descending if COLUMNS[column][0] == "rank" else not descending
        else:
            return
        if self.sort_requested is not None:
            self.sort_requested(name, descending)


__all__ = ["AGENT_ONLY", "COLUMNS", "KEYWORD_SHOWN", "FactTableModel", "NAMES", "UNREACHABLE_ROLE", "WINDOW", "column",
           "is_rtl", "short_why", "unreachable_icon"]
