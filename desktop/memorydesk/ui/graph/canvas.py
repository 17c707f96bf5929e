"""The network canvas: pyqtgraph's ViewBox with one item for every node (``NodeLayer``),
one for every edge (``EdgeLayer``), the domains' and topics' discs (``DiscLayer``) and
the names (``LabelLayer``); hit-testing is ours (numpy).

The canvas draws the ``Picture`` it is handed; it knows nothing of the workspace. The
tab decides what is shown (the overview with its filters, or a focus).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from memorydesk.ui.graph.labels import LabelLayer
from memorydesk.ui.graph.layers import EdgeLayer
from memorydesk.ui.graph.nodes import DiscLayer, NodeLayer
from memorydesk.ui.graph.pictures import Picture

HIT_PX = 6.0


class GraphCanvas(QWidget):
    node_clicked = Signal(int)  # a graph node number
    node_activated = Signal(int)  # double click
    background_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graph-canvas")
        self.view_widget = pg.GraphicsView(background="w")
        self.view_widget.setObjectName("graph-view")
        self.view_widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.box = pg.ViewBox(lockAspect=True, enableMenu=False)
        self.view_widget.setCentralItem(self.box)
        self.discs = DiscLayer()
        self.edges = EdgeLayer()
        self.nodes = NodeLayer()
        self.ring = pg.ScatterPlotItem(pxMode=True, symbol="o", brush=None,
                                       pen=pg.mkPen("#f39c12", width=3), size=22)
        self.ring.setZValue(10)
        self.edge_mark = pg.PlotCurveItem(pen=pg.mkPen("#f39c12", width=4), connect="pairs")
        self.marked_edges: list[tuple[int, int]] = []  # (node, node) of the edges drawn marked
        self.labels = LabelLayer()
        for item in (self.discs, self.edges, self.edge_mark, self.nodes, self.ring, self.labels):
            self.box.addItem(item)
        self.note = QLabel("", self.view_widget)
        self.note.setObjectName("graph-note")
        self.note.setStyleSheet("background: rgba(255,255,255,225); color: #1b2631; padding: 3px 6px; "
                                "border: 1px solid #d5d8dc; border-radius: 3px;")
        self.note.move(8, 8)
        self.picture: Picture | None = None
        self.rows = np.zeros(0, np.int64)  # graph node -> row of the picture (-1: not in it)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view_widget)
        self.view_widget.scene().sigMouseClicked.connect(self._clicked)
        self._seen: tuple[tuple[float, float], tuple[float, float], tuple[float, float]] | None = None
        self.box.sigRangeChanged.connect(self._remember_view)
        self.box.sigResized.connect(self._keep_view)

    # --- showing --------------------------------------------------------------------------

    def show_picture(self, picture: Picture, *, fit: bool = True) -> None:
        self.picture = picture
        nodes = np.asarray(picture.nodes, np.int64)
        self.rows = np.full(int(nodes.max()) + 1 if len(nodes) else 0, -1, np.int64)
        self.rows[nodes] = np.arange(len(nodes))
        self.nodes.set_nodes(picture.pos, picture.style, picture.styles, picture.visible)
        x1, y1, x2, y2, group = picture.lines
        self.edges.set_lines(x1, y1, x2, y2, group, mask=picture.edge_mask, fold=picture.fold,
                             alpha=picture.edge_alpha)
        if picture.discs is not None:
            self.discs.set_discs(*picture.discs)
        else:
            self.discs.set_discs(np.zeros((0, 2)), np.zeros(0), [], np.zeros(0, np.int8))
        names = picture.labels
        if names is not None:
            shown = picture.visible[names.rows] if picture.visible is not None else None
            self.labels.set_labels(names.pos, names.text, names.rank, names.big, names.zoom, shown)
        else:
            self.labels.set_labels(np.zeros((0, 2)), [])
        self.ring.setData([], [])
        self.mark_edges([])
        if fit:
            self.fit()

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setWordWrap(True)
        self._place_note()
        self.note.setVisible(bool(text))

    def _place_note(self) -> None:
        width = max(self.view_widget.width() - 16, 120)
        self.note.setFixedWidth(min(self.note.fontMetrics().horizontalAdvance(self.note.text()) + 16, width))
        self.note.setFixedHeight(max(self.note.heightForWidth(self.note.width()), self.note.fontMetrics().height() + 8))
        self.labels.reserved = [QRectF(self.note.geometry()).adjusted(-3, -3, 3, 3)]

    def resizeEvent(self, event) -> None:  # noqa: ANN001 - Qt's signature
        super().resizeEvent(event)
        self._place_note()

    def _remember_view(self, *_) -> None:  # noqa: ANN002 - pyqtgraph's signal arguments
        (x0, x1), (y0, y1) = self.box.viewRange()
        size = self.box.size()
        if self._seen is not None and self._seen[2] != (size.width(), size.height()):
            return  # the range a resize made, before ``_keep_view`` puts back the scale
        if size.width() > 0 and size.height() > 0:
            self._seen = (((x0 + x1) / 2, (y0 + y1) / 2), ((x1 - x0) / size.width(), (y1 - y0) / size.height()),
                          (size.width(), size.height()))

    def _keep_view(self, *_) -> None:  # noqa: ANN002 - pyqtgraph's signal arguments
        """When the canvas changes size (the window, a bar above the tabs), what is shown keeps its
        place and its scale: more or less of the picture shows, nothing moves or shrinks."""
        size = self.box.size()
        if self._seen is None or size.width() <= 0 or size.height() <= 0:
            return
        (cx, cy), (ux, uy), old = self._seen
        if old == (size.width(), size.height()):
            return
        self._seen = ((cx, cy), (ux, uy), (size.width(), size.height()))
        half_w, half_h = ux * size.width() / 2, uy * size.height() / 2
        self.box.setRange(xRange=(cx - half_w, cx + half_w), yRange=(cy - half_h, cy + half_h), padding=0)

    def fit(self) -> None:
        """The whole picture in view, below the note in the corner."""
        picture = self.picture
        if picture is None or not len(picture.pos):
            return
        pos = picture.pos if picture.visible is None else picture.pos[picture.visible]
        if not len(pos):
            return
        lo, hi = pos.min(0).astype(float).tolist(), pos.max(0).astype(float).tolist()
        span = max(hi[0] - lo[0], hi[1] - lo[1])
        pad = max(span * 0.04, 2.0)
        height = max(self.view_widget.height(), 1)
        top = (self.note.height() + 12) / height * (span + 2 * pad) if self.note.isVisible() else 0.0
        self.box.setRange(xRange=(lo[0] - pad, hi[0] + pad), yRange=(lo[1] - pad, hi[1] + pad + top), padding=0)

    def center_on(self, node: int, span: float | None = None) -> None:
        row = self.row(node)
        if row is None or self.picture is None:
            return
        x, y = (float(v) for v in self.picture.pos[row])
        if span is None:
            (x0, x1), (y0, y1) = self.box.viewRange()
            span = float(max(x1 - x0, y1 - y0))
        self.box.setRange(xRange=(x - span / 2, x + span / 2), yRange=(y - span / 2, y + span / 2), padding=0)

    def row(self, node: int | None) -> int | None:
        if node is None or not (0 <= node < len(self.rows)) or self.rows[node] < 0:
            return None
        return int(self.rows[node])

    def mark(self, node: int | None) -> None:
        row = self.row(node)
        if row is None or self.picture is None:
            self.ring.setData([], [])
            return
        self.ring.setData(pos=self.picture.pos[row:row + 1])

    def mark_edges(self, pairs: list[tuple[int, int]]) -> None:
        """Draw these edges (pairs of graph nodes) highlighted; those with an end not shown are left out."""
        shown = [(a, b) for a, b in pairs if self.row(a) is not None and self.row(b) is not None]
        self.marked_edges = shown
        if not shown or self.picture is None:
            self.edge_mark.setData([], [])
            return
        pts = np.array([self.picture.pos[self.row(n)] for pair in shown for n in pair], np.float64)
        self.edge_mark.setData(pts[:, 0], pts[:, 1])

    # --- hit-testing ----------------------------------------------------------------------

    def node_at(self, scene_pos: QPointF) -> int | None:
        """The node under a scene point (within a few pixels of its edge), or None."""
        if self.picture is None:
            return None
        point = self.box.mapSceneToView(scene_pos)
        zoom = 1.0 / max(self.box.viewPixelSize()[0], 1e-12)
        row = self.nodes.node_at(point.x(), point.y(), zoom, HIT_PX)
        return int(self.picture.nodes[row]) if row is not None else None

    def _clicked(self, event) -> None:  # noqa: ANN001 - pyqtgraph's mouse event
        if event.button() != Qt.MouseButton.LeftButton:
            return
        node = self.node_at(event.scenePos())
        if node is None:
            self.background_clicked.emit()
            return
        event.accept()
        (self.node_activated if event.double() else self.node_clicked).emit(node)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        step = {Qt.Key.Key_Plus: 0.8, Qt.Key.Key_Equal: 0.8, Qt.Key.Key_Minus: 1.25}.get(Qt.Key(event.key()))
        if step is not None:
            self.box.scaleBy((step, step))
            return
        if event.key() == Qt.Key.Key_0:
            self.fit()
            return
        super().keyPressEvent(event)
