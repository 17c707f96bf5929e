"""The outline: domain → topic → fact, with counts, plus policies, beliefs and missing facts.

A read-only tree over the graph's arrays: the children of every row were worked out on
the worker (``browse.graph.index``), so a row is made only when the view asks for it (a
domain of 5,000 topics costs nothing until it is expanded) and nothing is computed on
the UI thread. Each index carries its graph node number (``NODE_ROLE``); the tooltip
gives the whole name with its counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from memorydesk.browse.graph.data import DOMAIN, FACT, MISSING, POLICY, STATES, TOPIC, GraphData
from memorydesk.browse.graph.index import GraphIndex

NODE_ROLE = Qt.ItemDataRole.UserRole + 1
Index = QModelIndex | QPersistentModelIndex


class OutlineModel(QAbstractItemModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.g: GraphData | None = None
        self.ix: GraphIndex | None = None

    def set_graph(self, g: GraphData, index: GraphIndex) -> None:
        """Show a graph whose tree was worked out on the worker (nothing is computed here)."""
        self.beginResetModel()
        self.g, self.ix = g, index
        self.endResetModel()

    @property
    def kids(self) -> dict[int, np.ndarray]:
        return self.ix.kids if self.ix is not None else {}

    # --- the model ------------------------------------------------------------------------

    def _id(self, index: Index) -> int:
        return int(index.internalId()) if index.isValid() else 0

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self.kids.get(self._id(parent), ()))

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 1

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:
        return self.rowCount(parent) > 0

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        kids = self.kids.get(self._id(parent))
        if kids is None or not (0 <= row < len(kids)) or column != 0:
            return QModelIndex()
        return self.createIndex(row, 0, int(kids[row]))

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        assert self.ix is not None
        pid = int(self.ix.parent_of[self._id(index)])
        if pid == 0:
            return QModelIndex()
        return self.createIndex(int(self.ix.row_in[pid]), 0, pid)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal and section == 0:
            return "Domain → topic → fact"
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def node_of(self, index: Index) -> int | None:
        i = self._id(index)
        return i - 1 if 0 < i <= (self.g.n if self.g else 0) else None

    def index_of(self, node: int) -> QModelIndex:
        if self.g is None or self.ix is None or not (0 <= node < self.g.n):
            return QModelIndex()
        return self.createIndex(int(self.ix.row_in[node + 1]), 0, node + 1)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.g is None or self.ix is None:
            return None
        i = self._id(index)
        g, ix = self.g, self.ix
        if i > g.n:  # a group
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                return f"{ix.group_names.get(i, '')} ({len(self.kids.get(i, ()))})"
            return None
        node = i - 1
        kind = int(g.kind[node])
        if role == NODE_ROLE:
            return node
        if role == Qt.ItemDataRole.DisplayRole:
            label = g.labels[node] or "—"
            if kind == DOMAIN:
                return f"{label} ({int(ix.facts[node]):,} facts)"  # its topics: in the tooltip
            if kind == TOPIC:
                return f"{label} ({int(ix.facts[node]):,})"
            if kind == FACT:
                state = STATES[int(g.state[node])]
                return label if state == "active" else f"{label} — {state}"
            if kind == MISSING:
                return f"{g.ids[node]} (named {int(ix.refs[node])}×)"
            return label
        if role == Qt.ItemDataRole.ForegroundRole and kind in (FACT, POLICY) and g.state[node] >= 2:
            return QColor("#8a8f94")
        if role == Qt.ItemDataRole.ForegroundRole and kind == MISSING:
            return QColor("#c0392b")
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tip(node, kind)
        return None

    def _tip(self, node: int, kind: int) -> str:
        """The whole name and counts (the column may cut them), and the id."""
        g, ix = self.g, self.ix
        assert g is not None and ix is not None
        label = g.labels[node] or "—"
        if kind == DOMAIN:
            return (f"Domain {label}: {int(ix.facts[node]):,} facts "
                    f"({int(ix.active[node]):,} not superseded or deleted) in {int(ix.topics[node]):,} topics")
        if kind == TOPIC:
            return (f"Topic {label} in {g.labels[g.domain[node]]}: {int(ix.facts[node]):,} facts "
                    f"({int(ix.active[node]):,} not superseded or deleted)")
        if kind == MISSING:
            return f"Missing fact {g.ids[node]}: no fact has this id, yet {int(ix.refs[node])} references name it"
        return f"{label}\n{g.ids[node]}" if g.ids[node] else label
