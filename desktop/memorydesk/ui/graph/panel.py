"""The side panel: what the selected node is (at once, from the graph in memory), its
edges with weights and how each was made, and for a fact the Facts tab's own detail
(read on the worker). Deleting an edge is an action on the edge list; facts are edited
and deleted with the Facts tab's actions."""

from __future__ import annotations

import html

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.detail import FactRecord
from memorydesk.browse.graph.data import (
    BELIEF,
    DOMAIN,
    EDGE_KINDS,
    FACT,
    MISSING,
    NODE_KINDS,
    POLICY,
    STATES,
    TOPIC,
    GraphData,
)
from memorydesk.browse.graph.index import GraphIndex
from memorydesk.memory.history.record import HistoryEntry
from memorydesk.ui.facts.detail import FactDetail
from memorydesk.ui.graph.style import EDGE_COLOURS, EDGE_LABELS, EDGE_ORIGINS
from memorydesk.ui.widgets.splitter import splitter
from memorydesk.ui.widgets.text import when

EDGE_COLUMNS = ("Kind", "Other end", "Weight", "How it was made")


class SidePanel(QWidget):
    open_node = Signal(int)  # a node named in the panel was double-clicked
    edge_selected = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graph-panel")
        self.g: GraphData | None = None
        self.ix: GraphIndex | None = None
        self.node: int | None = None
        self.edges = np.zeros(0, np.int64)
        self.header = QLabel("Select a node: a fact, a topic, a domain, a policy, a belief or a missing fact.")
        self.header.setObjectName("graph-node-info")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = FactDetail()
        self.detail.stack()  # text above its pages (fields, chain, recall, decay), not three columns
        self.detail.placeholder.hide()
        self.detail.hide()
        self.table = QTableWidget(0, len(EDGE_COLUMNS))
        self.table.setObjectName("graph-edges")
        self.table.setHorizontalHeaderLabels(list(EDGE_COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setWordWrap(True)  # How it was made and a long other end wrap in their rows, never cut
        header = self.table.horizontalHeader()
        for col, width in enumerate((120, 130, 50)):
            header.resizeSection(col, width)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        header.sectionResized.connect(lambda *_a: self.table.resizeRowsToContents())
        self.table.itemSelectionChanged.connect(self.edge_selected.emit)
        self.table.itemDoubleClicked.connect(self._follow)
        self.toolbar = QToolBar()
        self.toolbar.setObjectName("graph-edge-toolbar")
        self.edges_title = QLabel("<b>Edges</b>")
        edges_box = QWidget()
        el = QVBoxLayout(edges_box)
        el.setContentsMargins(0, 0, 0, 0)
        el.addWidget(self.edges_title)
        el.addWidget(self.toolbar)
        el.addWidget(self.table, 1)
        self.origin = QLabel("")  # how the selected edge was made, whole (the column is left out when narrow)
        self.origin.setObjectName("graph-edge-origin")
        self.origin.setWordWrap(True)
        self.origin.setTextFormat(Qt.TextFormat.PlainText)
        el.addWidget(self.origin)
        self.table.itemSelectionChanged.connect(self._show_origin)
        self.table.installEventFilter(self)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.header)
        tl.addWidget(self.detail, 1)
        tl.addStretch()  # without a fact's detail, the room stays below the header (not a band above its text)
        split = splitter(Qt.Orientation.Vertical, top, edges_box, name="graph-panel-split", stretch=(3, 2),
                         sizes=(600, 400), collapsible=False)  # in proportion: the detail three fifths, the edges two
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 0, 0)
        layout.addWidget(split)

    def set_graph(self, g: GraphData, index: GraphIndex) -> None:
        self.g, self.ix = g, index
        if self.node is not None and self.node >= g.n:
            self.node = None
        self.show_node(self.node)

    # --- showing a node (from memory: no database) ------------------------------------------

    def show_node(self, node: int | None) -> None:
        self.node = node
        g = self.g
        if g is None or node is None or node >= g.n:
            self.header.setText("Select a node: a fact, a topic, a domain, a policy, a belief or a missing fact.")
            self.detail.hide()
            self.table.setRowCount(0)
            self.edges = np.zeros(0, np.int64)
            self.edges_title.setText("<b>Edges</b>")
            self.origin.setText("")
            return
        self.header.setText(self._describe(node))
        if int(g.kind[node]) != FACT or self.detail.fact_id != g.ids[node]:
            self.detail.hide()
        self.edges = self.ix.edges_of(node) if self.ix is not None else np.zeros(0, np.int64)
        self._fill_edges(node)

    def show_fact_detail(self, fact_id: str, d: FactRecord | None, history: list[HistoryEntry] | None) -> None:
        g, node = self.g, self.node
        if g is None or node is None or g.ids[node] != fact_id:
            return
        self.detail.show_fact(d, history)
        self.detail.placeholder.hide()
        self.detail.setVisible(d is not None)

    def _describe(self, node: int) -> str:
        g = self.g
        assert g is not None
        kind = int(g.kind[node])
        name = html.escape(g.labels[node] or "—")
        what = NODE_KINDS[kind]
        ix = self.ix
        assert ix is not None
        if kind == DOMAIN:
            return (f"<b>Domain {name}</b><br>{int(ix.facts[node]):,} facts ({int(ix.active[node]):,} "
                    f"not superseded or deleted) in {int(ix.topics[node]):,} topics")
        if kind == TOPIC:
            return (f"<b>Topic {name}</b> in {html.escape(g.labels[g.domain[node]])}<br>{int(ix.facts[node]):,} "
                    f"facts ({int(ix.active[node]):,} not superseded or deleted)")
        if kind == FACT:
            state = STATES[int(g.state[node])]
            agent = g.agents[g.agent[node]] if g.agent[node] >= 0 else ""
            by = html.escape(g.agent_names.get(agent, agent[:8])) if agent else "no agent"
            faded = ("" if state in ("active", "expired")
                     else " — <i>never recalled; the graph voice walks through it</i>")
            return (f"<b>{name}</b><br>fact in {html.escape(g.labels[g.domain[node]])} · {state}{faded} · "
                    f"{html.escape(g.memory_types[g.mtype[node]]) if g.mtype[node] >= 0 else ''} · "
                    f"confidence {float(g.confidence[node]):.2f} · by {by} · {when(int(g.created[node]) or None)}"
                    f"<br><span style='color:#7f8c8d'>{html.escape(g.ids[node])}</span>")
        if kind == POLICY:
            state = "active" if g.state[node] == 0 else "inactive"
            return (f"<b>Policy</b> ({state}) in {html.escape(g.labels[g.domain[node]])}<br>{name}"
                    f"<br><span style='color:#7f8c8d'>{html.escape(g.ids[node])}</span>")
        if kind == BELIEF:
            return f"<b>Belief</b> on {name}<br><span style='color:#7f8c8d'>{html.escape(g.ids[node])}</span>"
        if kind == MISSING:
            return (f"<b style='color:#c0392b'>Missing fact</b> {html.escape(g.ids[node])}<br>No fact has this id "
                    f"(deleted for good, or never written), yet {len(ix.edges_of(node))} "
                    "reference(s) name it. Edges to it can be removed below.")
        return f"<b>{what}</b> {name}"

    def _fill_edges(self, node: int) -> None:
        g = self.g
        assert g is not None
        self.table.setRowCount(0)
        self.table.setRowCount(len(self.edges))
        ends = [int(g.dst[int(e)]) if int(g.src[int(e)]) == node else int(g.src[int(e)]) for e in self.edges]
        names = [g.labels[o] for o in ends]
        for row, e in enumerate(self.edges):
            e = int(e)
            code = int(g.ekind[e])
            kind = EDGE_KINDS[code]
            other = int(g.dst[e]) if int(g.src[e]) == node else int(g.src[e])
            arrow = "→" if int(g.src[e]) == node else "←"
            label = EDGE_LABELS[kind] if kind != "other" else g.edge_types.get(e, "other")
            other_name = g.labels[other] if int(g.kind[other]) != MISSING else f"missing {g.ids[other][:13]}…"
            if names.count(g.labels[other]) > 1 and int(g.kind[other]) != MISSING:  # two ends named alike
                other_name = f"{other_name} · {g.ids[other][:8]}"
            cells = (f"{arrow} {label}", other_name, f"{float(g.weight[e]):.2f}" if code <= 3 else "—",
                     EDGE_ORIGINS[kind])
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, e)
                if col == 0:
                    item.setForeground(QBrush(QColor(EDGE_COLOURS[kind])))
                if col == 1 and int(g.kind[other]) == MISSING:
                    item.setForeground(QBrush(QColor("#c0392b")))
                item.setToolTip(text if col != 1 else (g.ids[other] or g.labels[other]))
                self.table.setItem(row, col, item)
        self.table.resizeRowsToContents()
        self._show_origin()
        episodic = int((g.ekind[self.edges] <= 3).sum()) if len(self.edges) else 0
        self.edges_title.setText(f"<b>Edges</b> ({len(self.edges)}; {episodic} episodic, heaviest first)")

    NARROW = 520  # below this the How it was made column is left out; the line under the table says it

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.table and event.type() == QEvent.Type.Resize:
            narrow = self.table.width() < self.NARROW
            self.table.setColumnHidden(3, narrow)
            self.origin.setVisible(narrow)
            self.table.horizontalHeader().setSectionResizeMode(
                1, QHeaderView.ResizeMode.Stretch if narrow else QHeaderView.ResizeMode.Interactive)
            self.table.resizeRowsToContents()
        return super().eventFilter(watched, event)

    def _show_origin(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        row = rows[0] if rows else (0 if self.table.rowCount() else None)
        item = self.table.item(row, 3) if row is not None else None
        self.origin.setText(f"How it was made ({'this edge' if rows else 'the first edge'}): {item.text()}"
                            if item is not None else "")

    def selected_edges(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return [int(self.edges[r]) for r in rows if r < len(self.edges)]

    def _follow(self, item: QTableWidgetItem) -> None:
        g, node = self.g, self.node
        if g is None or node is None:
            return
        e = int(item.data(Qt.ItemDataRole.UserRole))
        self.open_node.emit(int(g.dst[e]) if int(g.src[e]) == node else int(g.src[e]))
