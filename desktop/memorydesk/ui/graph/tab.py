"""The Knowledge Graph tab: the outline (domain → topic → fact) beside the network, a
side panel, filters and a legend; focus = what the graph voice walks from a fact.

Targets (``navigate``): ``{"fact": id}`` focuses that fact (the Facts tab's "Show in
graph"); ``{"overview": True}`` goes back to the whole graph.

Reads happen on the worker (the graph as arrays, cached per file version; a focus; a
fact's detail); layouts run on a thread of their own with progress and Cancel; the UI
thread only draws. Repairs: delete an edge (or every edge naming a missing fact), and
the Facts tab's own edit / delete / restore / purge on a selected fact. Nothing here
creates a node or an edge.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QToolBar, QTreeView, QVBoxLayout, QWidget

from memorydesk.browse import detail as browse_detail
from memorydesk.browse import facts as browse
from memorydesk.browse.graph.data import DOMAIN, FACT, MISSING, TOPIC, GraphData
from memorydesk.browse.graph.focus import Focus, focus
from memorydesk.browse.graph.index import GraphIndex, read_indexed_graph
from memorydesk.core.changes import Kind, Shown
from memorydesk.core.graph.layout import ClusterLayout, cluster_layout, focus_layout
from memorydesk.memory.history import record as history
from memorydesk.ui.actions import WriteActions
from memorydesk.ui.facts import recall
from memorydesk.ui.facts.actions import FactActions
from memorydesk.ui.graph import pictures
from memorydesk.ui.graph.canvas import GraphCanvas
from memorydesk.ui.graph.dialogs import EdgeDeleteDialog, FactPicker, fact_choices, facts_matching
from memorydesk.ui.graph.filters import GraphFilters
from memorydesk.ui.graph.layouting import cached_layout, keep_layout
from memorydesk.ui.graph.outline import NODE_ROLE, OutlineModel
from memorydesk.ui.graph.panel import SidePanel
from memorydesk.ui.operations import dialog_result
from memorydesk.ui.runner import Token
from memorydesk.ui.session import Change, DeskSession
from memorydesk.ui.tab import DeskTab
from memorydesk.ui.widgets.splitter import splitter

GRAPH_KINDS = frozenset({Kind.FACT, Kind.EDGE, Kind.POLICY, Kind.BELIEF, Kind.CONFLICT})


class GraphTab(DeskTab):
    name, title = "graph", "Knowledge Graph"
    kinds = GRAPH_KINDS

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.g: GraphData | None = None
        self.ix: GraphIndex | None = None
        self.layout_result: ClusterLayout | None = None
        self.ov: pictures.Overview | None = None
        self.mode = "overview"
        self.found: Focus | None = None
        self.selected: int | None = None
        self.fact_rows: list[browse.FactRow] = []
        self.dialog: Any = None
        self.timings: dict[str, float] = {}
        self._focus_pos: dict[str, tuple[float, float]] = {}  # where the shown focus put each fact (by id)
        self._keep_view = False  # the next focus picture keeps the view (a refresh, not a new focus)

        self.filters = GraphFilters()
        self.filters.changed.connect(self._filters_changed)
        self.filters.search.connect(self.find)
        self.outline = OutlineModel(self)
        self.tree = QTreeView()
        self.tree.setObjectName("graph-outline")
        self.tree.setModel(self.outline)
        self.tree.setUniformRowHeights(True)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.selectionModel().currentChanged.connect(self._outline_current)
        self.canvas = GraphCanvas()
        self.canvas.node_clicked.connect(lambda node: self.select_node(node, source="canvas"))
        self.canvas.background_clicked.connect(lambda: self.select_node(None, source="canvas"))
        self.panel = SidePanel()
        self.panel.open_node.connect(lambda node: self.select_node(node, source="panel"))
        self.panel.edge_selected.connect(self._update_actions)
        self.panel.edge_selected.connect(self._mark_edges)
        self.panel.detail.recall.asked.connect(self._ask_recall)

        self.left = QWidget()
        self.left.setObjectName("graph-left")
        self.fact_acts = FactActions(self.left, self._selected_facts, self._domain_names)
        self.edge_acts = WriteActions(self.panel.table, "edge")
        self.act_delete_edge = self.edge_acts.add("Delete Edge…", self.delete_selected_edges, name="delete",
                                                  key=QKeySequence.StandardKey.Delete)
        self.act_remove_dangling = self.edge_acts.add("Remove Edges to This Missing Fact…", self.remove_dangling,
                                                      name="remove-dangling")
        for action in self.edge_acts.all:
            self.panel.toolbar.addAction(action)
        self.act_overview = QAction("Overview", self)
        self.act_overview.setObjectName("graph-overview")
        self.act_overview.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        self.act_overview.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.act_overview.setToolTip("Back to the whole graph (Esc)")
        self.act_overview.triggered.connect(self.show_overview)
        self.addAction(self.act_overview)
        self.act_focus = QAction("Focus", self)
        self.act_focus.setObjectName("graph-focus")
        self.act_focus.setShortcut(QKeySequence(Qt.Key.Key_Return))
        self.act_focus.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.act_focus.setToolTip("Focus the selected fact: what the graph voice walks from it (Enter)")
        self.act_focus.triggered.connect(lambda: self.focus_on(self.selected) if self.selected is not None else None)
        self.left.addAction(self.act_focus)
        bar = QToolBar()
        bar.setObjectName("graph-toolbar")
        bar.addAction(self.act_overview)
        bar.addAction(self.act_focus)
        bar.addSeparator()
        for action in self.fact_acts.all:
            bar.addAction(action)
        bar.addAction(self.fact_acts.conflicts)  # the Conflicts tab, filtered to the selected fact
        inner = splitter(Qt.Orientation.Horizontal, self.tree, self.canvas, name="graph-tree-split", stretch=(1, 2),
                         sizes=(300, 600))  # the network: 2/3
        ll = QVBoxLayout(self.left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(bar)
        ll.addWidget(inner, 1)
        split = splitter(Qt.Orientation.Horizontal, self.left, self.panel, name="graph-split", stretch=(3, 1),
                         sizes=(900, 380))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filters)
        layout.addWidget(split, 1)
        self.canvas.set_note("Reading the graph…")
        self._update_actions()

    # --- the tab contract --------------------------------------------------------------------

    def open(self, session: DeskSession) -> None:
        super().open(session)
        self.fact_acts.bind(session)
        self.edge_acts.bind(session)
        self._update_actions()
        self.mark_loading()  # a fact to show waits for the graph and its layout
        self.reload()

    def showing(self, kind: Kind) -> Shown:
        """The facts of the graph read last (all of them until it is read)."""
        if kind is Kind.FACT and self.g is not None:
            return self.g.index
        return None

    def refresh(self, change: Change) -> None:
        self.reload()

    def show_target(self, target: dict[str, Any]) -> None:
        if target.get("fact"):
            self.find(str(target["fact"]))
        elif target.get("overview"):
            self.show_overview()

    def busy(self) -> bool:
        """Something is still on its way (a layout, or a held target): for ``shot``."""
        return self.computing or (self.holding is not None and self.layout_result is None)

    def wants_keyboard(self) -> QWidget | None:
        return self.tree

    # --- reading and laying out -----------------------------------------------------------------

    def reload(self) -> None:
        self.timings["read_started"] = time.perf_counter()
        self.run(read_indexed_graph, self._graph_read, label="reading the graph")

    def _graph_read(self, result: tuple[GraphData, GraphIndex]) -> None:
        g, ix = result
        self.timings["read"] = time.perf_counter() - self.timings.get("read_started", time.perf_counter())
        if self.g is not None and g.version is not None and g.version == self.g.version and self.layout_result:
            return
        previous = self.layout_result
        self.g, self.ix = g, ix
        self.outline.set_graph(g, ix)
        self.filters.set_graph(g)
        self.panel.set_graph(g, ix)
        if self.selected is not None and self.selected >= g.n:
            self.selected = None
        ws = self.session.ws if self.session else None
        known = cached_layout(ws, g.version)
        if known is not None:
            self._laid_out(g, known)
            return
        self.canvas.set_note(f"Laying out {ix.summary['fact']:,} facts…")
        before = previous.topic_pos if previous is not None else None

        def work(job: Any) -> Any:
            def check() -> None:
                if job is not None:
                    job.check()

            def progress(done: int, text: str) -> None:
                if job is not None:
                    job.report(done, 100, text)

            keys = [f"{g.labels[g.domain[t]]}\x1f{g.labels[t]}" for t in g.of_kind(TOPIC).tolist()]
            layout = cluster_layout(g.kind, g.domain, g.topic, g.src, g.dst, keys, previous=before,
                                    check=check, progress=progress)
            progress(95, "preparing the picture")
            ov = pictures.overview(g, ix, layout)
            pictures.overview_fold(g, ov, self._default_edges(g), self.filters.DEFAULT_KEY)
            return layout, ov

        self.timings["layout_started"] = time.perf_counter()
        self.compute(work, lambda result: self._laid_out(g, result), title="Laying out the knowledge graph")

    @staticmethod
    def _default_edges(g: GraphData) -> np.ndarray:
        """The edges the filters let through as they start (every kind; no superseded fact)."""
        hidden = (g.kind == FACT) & (g.state >= 2)
        return ~hidden[g.src] & ~hidden[g.dst]

    def _laid_out(self, g: GraphData, result: tuple[ClusterLayout, pictures.Overview]) -> None:
        if g is not self.g or self.closed:
            return
        self.timings["layout"] = time.perf_counter() - self.timings.get("layout_started", time.perf_counter())
        self.layout_result, self.ov = result
        keep_layout(self.session.ws if self.session else None, g.version, result)
        if self.holding is not None:
            self.draw_overview()
            self.mark_ready()  # the fact asked for is focused now
            return
        self.mark_ready()
        if self.mode == "focus" and self.found is not None:
            self.draw_overview(fit=False)
            self.focus_on(self.g.index.get(self.found.focus), keep_view=True)
            return
        self.draw_overview()

    # --- drawing -----------------------------------------------------------------------------

    def draw_overview(self, fit: bool = True) -> None:
        """Show the overview as the filters have it: masks over arrays made on the layout
        thread (the folded edges of each filter are kept, so going back costs nothing)."""
        g, ix, ov = self.g, self.ix, self.ov
        if g is None or ix is None or ov is None or self.mode != "overview":
            return
        t = time.perf_counter()
        show = self.filters.node_mask(g)
        as_of = getattr(self, "as_of", None)
        if as_of is not None:  # the window's "as of": facts written after it are not drawn
            show &= (g.kind != FACT) | (g.created <= as_of)
        key = self.filters.key() if as_of is None else (*self.filters.key(), as_of)  # now: folded beforehand
        self.canvas.show_picture(pictures.overview_picture(g, ov, show, self.filters.kind_mask(), key), fit=fit)
        self.canvas.mark(self.selected)
        c = ix.summary
        filt = self.filters.active_text()
        self.canvas.set_note(f"{c['domain']} domains · {c['topic']:,} topics · {c['fact']:,} facts · "
                             f"{c['edges']:,} edges ({c['dangling']} name a missing fact)"
                             + (f" · {filt}" if filt else "") + " · click a fact to focus it")
        self.timings["overview_built"] = time.perf_counter() - t

    def _filters_changed(self) -> None:
        if self.mode == "overview":
            self.draw_overview(fit=False)

    def show_overview(self) -> None:
        self.mode = "overview"
        self.found = None
        self.latest.take("focus")  # a focus on its way is not shown
        self.draw_overview(fit=True)
        self._update_actions()

    # --- selection and focus --------------------------------------------------------------------

    def select_node(self, node: int | None, *, source: str = "") -> None:
        g = self.g
        self.timings["select_started"] = time.perf_counter()
        self.selected = node
        self.panel.show_node(node)
        self.timings["details"] = time.perf_counter() - self.timings["select_started"]
        self.canvas.mark(node)
        self.fact_rows = []
        if source != "outline" and node is not None:
            index = self.outline.index_of(node)
            if index.isValid():
                self.tree.selectionModel().blockSignals(True)
                self.tree.setCurrentIndex(index)
                self.tree.selectionModel().select(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
                self.tree.selectionModel().blockSignals(False)
                self.tree.scrollTo(index)
        self._update_actions()
        if g is None or node is None:
            return
        kind = int(g.kind[node])
        if kind == FACT:
            self.focus_on(node)  # first: the walk is what the person waits for
            self._read_fact(g.ids[node])
        elif kind == MISSING and source != "panel":
            self.focus_on(node)
        elif kind in (DOMAIN, TOPIC) and self.mode == "overview" and self.layout_result is not None:
            radius = float(self.layout_result.radius[node]) or 10.0
            self.canvas.center_on(node, span=radius * 2.6)

    def _outline_current(self, current: Any, _previous: Any) -> None:
        node = current.data(NODE_ROLE) if current.isValid() else None
        if node is not None:
            self.select_node(int(node), source="outline")

    def _read_fact(self, fact_id: str) -> None:
        def work(ws: Any) -> Any:
            rows = browse.rows_for_ids(ws, [fact_id])
            d = browse_detail.fact_detail(ws, fact_id)
            entries = [] if ws.desk_schema == 0 else history.history_entries(ws, entity="fact", entity_id=fact_id)
            return rows, d, entries

        def show(result: Any) -> None:
            rows, d, entries = result
            g, node = self.g, self.selected
            if g is None or node is None or g.ids[node] != fact_id:
                return
            self.fact_rows = rows
            self.panel.show_fact_detail(fact_id, d, entries)
            self._update_actions()

        self.run(work, show, label="reading the fact")

    def _ask_recall(self, fact_id: str, query: str) -> None:
        """The detail's "Agent recall" page, answered as in the Facts tab."""
        self.run(lambda ws: recall.ask(ws, fact_id, query), self.panel.detail.recall.show_answer,
                 label="asking the agent's recall")

    def focus_on(self, node: int | None, keep_view: bool = False) -> None:
        """Walk from the fact; ``keep_view``: the same focus read again (after a change), so the
        view and every node still in it stay where they were."""
        g = self.g
        if g is None or node is None:
            return
        fact_id = g.ids[node]
        self._keep_view = keep_view
        token = self.latest.take("focus")
        self.timings["focus_started"] = time.perf_counter()
        self.run(lambda ws: focus(ws, fact_id, allow_missing=True), lambda found: self._focused(token, found),
                 label="walking from the fact", token=token)

    def _focused(self, token: Token, found: Focus) -> None:
        g = self.g
        if g is None:
            return
        nodes, hops, more = pictures.focus_nodes(g, found)
        same = self.mode == "focus" and self.found is not None and self.found.focus == found.focus
        kept = dict(self._focus_pos) if same else {}

        def work() -> Any:
            edges = pictures.focus_edges(g, found, nodes)
            walked = [(a, b, w) for a, b, w, k in edges if k <= pictures.EPISODIC_MAX]
            pos = focus_layout(len(nodes), walked, hops)
            for i, node in enumerate(nodes):  # the same focus again: what was shown stays put
                if g.ids[node] in kept:
                    pos[i] = kept[g.ids[node]]
            return pictures.focus_picture(g, found, nodes, hops, pos, edges)

        self.compute(work, lambda picture: self._show_focus(found, nodes, more, picture), label="drawing the focus",
                     token=token)

    def _show_focus(self, found: Focus, nodes: list[int], more: int, picture: pictures.Picture) -> None:
        g = self.g
        if g is None:
            return
        keep = self._keep_view and self.mode == "focus" and self.found is not None \
            and self.found.focus == found.focus
        self.mode = "focus"
        self.found = found
        self.canvas.show_picture(picture, fit=not keep)
        self._focus_pos = {g.ids[n]: (float(p[0]), float(p[1])) for n, p in zip(picture.nodes, picture.pos)}
        self.canvas.mark(self.selected)
        self._mark_edges()
        one, two = found.hop_counts()
        recalled = sum(1 for n in found.nodes if n.hop and n.active)
        walked = sum(1 for n in found.nodes if n.hop and not n.active)
        tail = f" · showing the first {len(nodes)}, {more:,} more" if more else ""
        self.canvas.set_note(f"Focus: {g.labels[nodes[0]] if nodes else found.focus} — {one} at hop 1 (dark), "
                             f"{two} at hop 2 (light); the graph voice recalls {recalled}, walks through {walked} "
                             f"(hollow: superseded, ✕ missing){tail} · Esc: overview")
        self.timings["focus"] = time.perf_counter() - self.timings.get("focus_started", time.perf_counter())
        self._update_actions()

    def find(self, text: str) -> None:
        """Focus a fact by id, or the fact whose topic contains the words; when several do,
        the person picks which (active facts first)."""
        g = self.g
        if g is None or not text:
            return
        node = g.index.get(text)
        if node is None:
            hits = facts_matching(g, text)
            if self.session is not None:
                self.session.status.emit(f"{len(hits)} fact(s) match “{text}”" if hits else f"No fact matches “{text}”")
            if len(hits) > 1:
                if self.session is not None:
                    self.session.ops.start(self._pick(text, hits), owner=self)
                return
            node = hits[0] if hits else None
        if node is not None:
            self.select_node(int(node), source="search")

    async def _pick(self, text: str, hits: list[int]) -> None:
        g = self.g
        if g is None:
            return
        dialog = FactPicker(text, fact_choices(g, hits), self)
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        chosen = dialog.chosen
        dialog.deleteLater()
        self.dialog = None
        if accepted and chosen is not None and self.g is g:
            self.select_node(chosen, source="search")

    def _mark_edges(self) -> None:
        """The edges selected in the panel's list, highlighted on the canvas."""
        g = self.g
        if g is None:
            self.canvas.mark_edges([])
            return
        self.canvas.mark_edges([(int(g.src[e]), int(g.dst[e])) for e in self.panel.selected_edges()])

    # --- actions ---------------------------------------------------------------------------------

    def _selected_facts(self) -> list[browse.FactRow]:
        return list(self.fact_rows)

    def _domain_names(self) -> list[str]:
        g = self.g
        return sorted(g.labels[d] for d in g.of_kind(DOMAIN)) if g is not None else []

    def _update_actions(self) -> None:
        self.fact_acts.update()
        g, node = self.g, self.selected
        edges = [e for e in self.panel.selected_edges() if g is not None and g.ekind[e] <= 3]
        dangling = g is not None and node is not None and int(g.kind[node]) == MISSING
        self.edge_acts.update({
            self.act_delete_edge: (bool(edges), "select an episodic edge in the list"),
            self.act_remove_dangling: (dangling and any(g.ekind[e] <= 3 for e in self.panel.edges),
                                       "select a missing fact that episodic edges name"),
        })
        self.act_overview.setEnabled(self.mode == "focus")
        self.act_focus.setEnabled(node is not None and g is not None and int(g.kind[node]) in (FACT, MISSING))

    async def delete_selected_edges(self) -> None:
        g = self.g
        edges = [e for e in self.panel.selected_edges() if g is not None and g.ekind[e] <= 3]
        if not self.edge_acts.allowed(self.act_delete_edge) or not edges or g is None:
            return
        await self._delete(g, edges)

    async def remove_dangling(self) -> None:
        g = self.g
        if not self.edge_acts.allowed(self.act_remove_dangling) or g is None:
            return
        await self._delete(g, [int(e) for e in self.panel.edges if g.ekind[e] <= 3])

    async def _delete(self, g: GraphData, edges: list[int]) -> None:
        ids = [g.edge_ids[e] for e in edges]
        names = [f"{g.labels[g.src[e]] or g.ids[g.src[e]][:8]} — {g.labels[g.dst[e]] or g.ids[g.dst[e]][:8]}"
                 for e in edges[:3]]
        text = (f"Delete {'this edge' if len(ids) == 1 else f'{len(ids)} edges'}: "
                + "; ".join(names) + (" …" if len(edges) > 3 else "") + "?")
        dialog = EdgeDeleteDialog(text, self)
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        reason = dialog.reason.text().strip()
        dialog.deleteLater()
        self.dialog = None
        if accepted and self.session is not None:
            from memorydesk.memory.reviewer import Reviewer  # loaded by the first write

            await self.session.write("deleting edges", Reviewer.delete_edges, ids, reason=reason)

    def show_as_of(self, at: int | None) -> None:
        """The window's *as of* (``ui.shell.as_of``): the overview without the facts written after it."""
        self.as_of = at
        self.draw_overview(fit=False)

    def prepare_shot(self) -> None:
        if self.mode == "overview":
            self.canvas.fit()
