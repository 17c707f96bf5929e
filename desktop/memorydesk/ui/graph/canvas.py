"""The network canvas: pyqtgraph's ViewBox with one scatter item for every node, one
``EdgeLayer`` for every edge and a ``LabelLayer``; hit-testing is ours (numpy).

The canvas draws what it is handed (``show``): node numbers, positions, sizes, brushes,
symbols, and the edges' end positions, kinds and weights. It knows nothing of the
workspace; the tab decides what is shown (the overview with its filters, or a focus).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QPen
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from memorydesk.ui.graph.layers import EdgeLayer, LabelLayer

HIT_PX = 9.0


@dataclass
class Picture:
    """What the canvas shows: ``nodes`` are graph node numbers, row by row with the rest."""

    nodes: np.ndarray
    pos: np.ndarray  # (k, 2)
    size: np.ndarray  # pixels
    brush: list
    pen: list
    symbol: list
    edge_a: np.ndarray  # (m, 2)
    edge_b: np.ndarray
    edge_kind: np.ndarray
    edge_weight: np.ndarray
    fold: tuple | None = None
    edge_alpha: int = 150


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
        self.edges = EdgeLayer()
        self.nodes = pg.ScatterPlotItem(pxMode=True, hoverable=False)
        self.nodes.setZValue(0)
        self.ring = pg.ScatterPlotItem(pxMode=True, symbol="o", brush=None,
                                       pen=pg.mkPen("#f39c12", width=3), size=22)
        self.ring.setZValue(10)
        self.labels = LabelLayer()
        for item in (self.edges, self.nodes, self.ring, self.labels):
            self.box.addItem(item)
        self.note = QLabel("", self.view_widget)
        self.note.setObjectName("graph-note")
        self.note.setStyleSheet("background: rgba(255,255,255,220); color: #1b2631; padding: 3px 6px; "
                                "border: 1px solid #d5d8dc; border-radius: 3px;")
        self.note.move(8, 8)
        self.picture: Picture | None = None
        self.row_of: dict[int, int] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view_widget)
        self.view_widget.scene().sigMouseClicked.connect(self._clicked)

    # --- showing --------------------------------------------------------------------------

    def show_picture(self, picture: Picture, *, fit: bool = True) -> None:
        self.picture = picture
        self.row_of = {int(n): i for i, n in enumerate(picture.nodes)}
        self.nodes.setData(pos=picture.pos, size=picture.size, brush=picture.brush, pen=picture.pen,
                           symbol=picture.symbol)
        self.edges.set_edges(picture.edge_a, picture.edge_b, picture.edge_kind, picture.edge_weight,
                             picture.fold, picture.edge_alpha)
        self.ring.setData([], [])
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

    def resizeEvent(self, event) -> None:  # noqa: ANN001 - Qt's signature
        super().resizeEvent(event)
        self._place_note()

    def fit(self) -> None:
        if self.picture is not None and len(self.picture.pos):
            lo, hi = self.picture.pos.min(0).astype(float).tolist(), self.picture.pos.max(0).astype(float).tolist()
            pad = max(max(hi[0] - lo[0], hi[1] - lo[1]) * 0.04, 2.0)
            self.box.setRange(xRange=(lo[0] - pad, hi[0] + pad), yRange=(lo[1] - pad, hi[1] + pad), padding=0)

    def center_on(self, node: int, span: float | None = None) -> None:
        row = self.row_of.get(node)
        if row is None or self.picture is None:
            return
        x, y = (float(v) for v in self.picture.pos[row])
        if span is None:
            (x0, x1), (y0, y1) = self.box.viewRange()
            span = float(max(x1 - x0, y1 - y0))
        self.box.setRange(xRange=(x - span / 2, x + span / 2), yRange=(y - span / 2, y + span / 2), padding=0)

    def mark(self, node: int | None) -> None:
        row = self.row_of.get(node) if node is not None else None
        if row is None or self.picture is None:
            self.ring.setData([], [])
            return
        self.ring.setData(pos=self.picture.pos[row:row + 1])

    # --- hit-testing ----------------------------------------------------------------------

    def node_at(self, scene_pos: QPointF) -> int | None:
        """The node under a scene point (within a few pixels of its centre), or None."""
        if self.picture is None or not len(self.picture.pos):
            return None
        point = self.box.mapSceneToView(scene_pos)
        px = self.box.viewPixelSize()
        dx = (self.picture.pos[:, 0] - point.x()) / px[0]
        dy = (self.picture.pos[:, 1] - point.y()) / px[1]
        dist = np.hypot(dx, dy) - self.picture.size / 2
        row = int(np.argmin(dist))
        return int(self.picture.nodes[row]) if dist[row] <= HIT_PX else None

    def _clicked(self, event) -> None:
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


def pens_for(colours: list[QColor] | None, n: int) -> list:
    if colours is None:
        return [None] * n
    return [QPen(c) if c is not None else None for c in colours]
