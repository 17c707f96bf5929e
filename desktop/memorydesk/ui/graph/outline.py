"""The outline: domain → topic → fact, with counts, plus policies, beliefs and missing facts.

A read-only tree over the graph's arrays: children are index ranges computed once per
graph, so a row is made only when the view asks for it (a domain of 5,000 topics costs
nothing until it is expanded). Each index carries its graph node number (``NODE_ROLE``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from memorydesk.browse.graph_data import BELIEF, DOMAIN, FACT, MISSING, POLICY, STATES, TOPIC, GraphData

NODE_ROLE = Qt.ItemDataRole.UserRole + 1
GROUPS = ((POLICY, "Policies"), (BELIEF, "Beliefs"), (MISSING, "Missing facts"))
Index = QModelIndex | QPersistentModelIndex


class OutlineModel(QAbstractItemModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.g: GraphData | None = None
        self.top = np.zeros(0, np.int64)
        self.kids: dict[int, np.ndarray] = {}
        self.parent_of = np.zeros(0, np.int64)
        self.row_in = np.zeros(0, np.int64)
        self.fact_count = np.zeros(0, np.int64)
        self.names: dict[int, str] = {}
        self.refs = np.zeros(0, np.int64)

    # ids: graph node + 1; a group: n + 1 + g; 0 is the root
    def set_graph(self, g: GraphData) -> None:
        self.beginResetModel()
        self.g = g
        n = g.n
        self.kids = {}
        self.parent_of = np.zeros(n + 1 + len(GROUPS), np.int64)
        self.row_in = np.zeros(n + 1 + len(GROUPS), np.int64)
        labels = np.array(g.labels, dtype=object)
        domains = g.of_kind(DOMAIN)
        domains = domains[np.argsort(labels[domains].astype(str), kind="stable")]
        topics = g.of_kind(TOPIC)
        facts = g.of_kind(FACT)
        self.fact_count = np.bincount(g.topic[facts], minlength=n) if len(facts) else np.zeros(n, np.int64)
        self.fact_count[domains] = np.bincount(g.domain[facts], minlength=n)[domains] if len(facts) else 0
        self.refs = np.bincount(np.concatenate([g.src, g.dst]), minlength=n) if len(g.src) else np.zeros(n, np.int64)
        t_sorted = topics[np.lexsort((labels[topics].astype(str), g.domain[topics]))]
        self._group(t_sorted, g.domain[t_sorted])
        f_sorted = facts[np.argsort(g.topic[facts], kind="stable")]
        self._group(f_sorted, g.topic[f_sorted])
        top = [int(d) + 1 for d in domains]
        self.names = {}
        for i, (kind, name) in enumerate(GROUPS):
            members = g.of_kind(kind)
            if len(members):
                gid = n + 1 + i
                self.names[gid] = name
                self._set(gid, members + 1)
                top.append(gid)
        self._set(0, np.asarray(top, np.int64))
        self.endResetModel()

    def _group(self, children: np.ndarray, parents: np.ndarray) -> None:
        if not len(children):
            return
        cuts = np.flatnonzero(np.diff(parents)) + 1
        for part in np.split(np.arange(len(children)), cuts):
            self._set(int(parents[part[0]]) + 1, children[part] + 1)

    def _set(self, pid: int, ids: np.ndarray) -> None:
        self.kids[pid] = ids
        self.parent_of[ids] = pid
        self.row_in[ids] = np.arange(len(ids))

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
        pid = int(self.parent_of[self._id(index)])
        if pid == 0:
            return QModelIndex()
        return self.createIndex(int(self.row_in[pid]), 0, pid)

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
        if self.g is None or not (0 <= node < self.g.n):
            return QModelIndex()
        return self.createIndex(int(self.row_in[node + 1]), 0, node + 1)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.g is None:
            return None
        i = self._id(index)
        g = self.g
        if i > g.n:  # a group
            if role == Qt.ItemDataRole.DisplayRole:
                return f"{self.names.get(i, '')} ({len(self.kids.get(i, ()))})"
            return None
        node = i - 1
        kind = int(g.kind[node])
        if role == NODE_ROLE:
            return node
        if role == Qt.ItemDataRole.DisplayRole:
            label = g.labels[node] or "—"
            if kind == DOMAIN:
                return f"{label} ({int(self.fact_count[node]):,} facts, {len(self.kids.get(i, ())):,} topics)"
            if kind == TOPIC:
                return f"{label} ({int(self.fact_count[node]):,})"
            if kind == FACT:
                state = STATES[int(g.state[node])]
                return label if state == "active" else f"{label} — {state}"
            if kind == MISSING:
                return f"{g.ids[node]} (named {int(self.refs[node])}×)"
            return label
        if role == Qt.ItemDataRole.ForegroundRole and kind in (FACT, POLICY) and g.state[node] >= 2:
            return QColor("#8a8f94")
        if role == Qt.ItemDataRole.ForegroundRole and kind == MISSING:
            return QColor("#c0392b")
        if role == Qt.ItemDataRole.ToolTipRole:
            return g.ids[node] or g.labels[node]
        return None
