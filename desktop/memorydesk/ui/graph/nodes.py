"""Nodes and the discs behind them, drawn from numpy arrays.

``NodeLayer`` is the one graphics item for every node. Each node has a position and a
style (a row of its style table, ``style.NodeStyle``: symbol, size, colours); a paint takes the nodes in view,
maps them to device pixels in one step and draws each style's nodes with one
``drawPixmapFragments`` call from a sprite rendered once. Setting 20,000 nodes is a
few numpy assignments (pyqtgraph's ScatterPlotItem works out a style per point in
Python: half a second for 20,000 with colours of their own). Styles that ``grow``
follow the zoom: a fact is a couple of pixels in the overview and a full dot when
its topic fills the view.

``DiscLayer`` draws the domains' and topics' discs (in layout units): a tinted disc per
domain, a ring per topic, only those in view and big enough on screen to be seen.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.ScatterPlotItem import renderSymbol
from pyqtgraph.Qt.internals import PrimitiveArray
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPixmap

from memorydesk.ui.graph.style import NodeStyle


def _colour(text: str, alpha: int = 255) -> QColor:
    c = QColor(text)
    c.setAlpha(alpha)
    return c


def _view_rect(item: pg.GraphicsObject, fallback: QRectF) -> tuple[QRectF, float]:
    view = item.getViewBox()
    if view is None:
        return fallback, 1.0
    return view.viewRect(), 1.0 / max(view.viewPixelSize()[0], 1e-12)


class NodeLayer(pg.GraphicsObject):
    def __init__(self) -> None:
        super().__init__()
        self.setZValue(0)
        self.pos = np.zeros((0, 2))
        self.style = np.zeros(0, np.int16)
        self.visible = np.zeros(0, bool)
        self.styles: list[NodeStyle] = []
        self._bounds = QRectF()
        self._sprites: dict[tuple[NodeStyle, float, float], QPixmap] = {}
        self._frags = PrimitiveArray(QPainter.PixmapFragment, 10)
        self.drawn = 0  # nodes drawn by the last paint
        self.px_per_unit = 1.0  # the zoom of the last paint

    def set_nodes(self, pos: np.ndarray, style: np.ndarray, styles: list[NodeStyle],
                  visible: np.ndarray | None = None) -> None:
        self.prepareGeometryChange()
        self.pos = np.asarray(pos, np.float64).reshape(-1, 2)
        self.style = np.asarray(style, np.int16)
        self.styles = styles
        self.visible = np.ones(len(self.pos), bool) if visible is None else np.asarray(visible, bool)
        if len(self.pos):
            lo, hi = self.pos.min(0), self.pos.max(0)
            self._bounds = QRectF(float(lo[0]) - 1, float(lo[1]) - 1, float(hi[0] - lo[0]) + 2,
                                  float(hi[1] - lo[1]) + 2)
        else:
            self._bounds = QRectF()
        self.update()

    def set_visible(self, visible: np.ndarray) -> None:
        self.visible = np.asarray(visible, bool)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def sizes(self, px_per_unit: float | None = None) -> np.ndarray:
        """Each node's size in pixels at a zoom (that of the last paint by default)."""
        zoom = self.px_per_unit if px_per_unit is None else px_per_unit
        table = np.array([s.px(zoom) for s in self.styles] or [0.0])
        return table[self.style] if len(self.style) else np.zeros(0)

    def _sprite(self, style: NodeStyle, size: float, dpr: float) -> QPixmap:
        key = (style, size, dpr)
        found = self._sprites.get(key)
        if found is None:
            pen = QPen(_colour(style.line)) if style.line else QPen(QColor(0, 0, 0, 0))
            pen.setWidthF(style.line_width if style.line else 0.0)
            pen.setCosmetic(True)  # the symbol is drawn scaled to its size; the outline is not
            brush = QBrush(_colour(style.fill, style.alpha)) if style.fill else QBrush()
            found = self._sprites[key] = QPixmap.fromImage(renderSymbol(style.symbol, size, pen, brush, dpr=dpr))
        return found

    def paint(self, p: QPainter, *_args) -> None:
        self.drawn = 0
        if not len(self.pos):
            return
        rect, zoom = _view_rect(self, self._bounds)
        self.px_per_unit = zoom
        margin = 12.0 / zoom
        x, y = self.pos[:, 0], self.pos[:, 1]
        idx = np.flatnonzero(self.visible & (x >= rect.left() - margin) & (x <= rect.right() + margin)
                             & (y >= rect.top() - margin) & (y <= rect.bottom() + margin))
        if not len(idx):
            return
        t = p.transform()
        dx = t.m11() * x[idx] + t.m21() * y[idx] + t.dx()
        dy = t.m12() * x[idx] + t.m22() * y[idx] + t.dy()
        codes = self.style[idx]
        dpr = p.device().devicePixelRatioF() if p.device() is not None else 1.0
        order = sorted(set(codes.tolist()), key=lambda c: (self.styles[c].z, c))
        p.save()
        p.resetTransform()
        for code in order:
            style = self.styles[code]
            size = style.px(zoom)
            if size <= 0:
                continue
            sprite = self._sprite(style, size, dpr)
            mine = np.flatnonzero(codes == code)
            self._frags.resize(len(mine))
            frags = self._frags.ndarray()
            frags[:, 0], frags[:, 1] = dx[mine], dy[mine]
            frags[:, 2:4] = 0.0
            frags[:, 4], frags[:, 5] = sprite.width(), sprite.height()
            frags[:, 6:10] = (1.0 / dpr, 1.0 / dpr, 0.0, 1.0)
            p.drawPixmapFragments(*self._frags.drawargs(), sprite)
            self.drawn += len(mine)
        p.restore()

    def node_at(self, x: float, y: float, px_per_unit: float, reach_px: float) -> int | None:
        """The row of the visible node nearest (x, y) in layout units, within its own
        radius plus ``reach_px`` pixels; None when there is none."""
        if not len(self.pos):
            return None
        rows = np.flatnonzero(self.visible)
        if not len(rows):
            return None
        dist = np.hypot(self.pos[rows, 0] - x, self.pos[rows, 1] - y) * px_per_unit
        gap = dist - self.sizes(px_per_unit)[rows] / 2
        best = int(np.argmin(gap))
        return int(rows[best]) if gap[best] <= reach_px else None


class DiscLayer(pg.GraphicsObject):
    """Discs in layout units: ``level`` 0 a domain (tinted, with a rim), 1 a topic (a ring)."""

    MIN_PX = (2.0, 6.0)  # a disc smaller than this (radius, pixels) on screen is not drawn
    LIMIT = 2500  # at most this many topic rings a paint (the largest)
    SMOOTH_MAX = 200  # antialiased up to this many discs of a level
    FILL_MAX_PX = 500  # a disc wider than this (radius, pixels) is not tinted: it fills the view

    def __init__(self) -> None:
        super().__init__()
        self.setZValue(-20)
        self.centre = np.zeros((0, 2))
        self.radius = np.zeros(0)
        self.colour: list[str] = []
        self.level = np.zeros(0, np.int8)
        self.visible = np.zeros(0, bool)
        self._bounds = QRectF()
        self._tools: dict[tuple[str, int], tuple[QPen, QBrush]] = {}
        self.drawn = 0

    def _tool(self, colour: str, level: int) -> tuple[QPen, QBrush]:
        found = self._tools.get((colour, level))
        if found is None:
            pen = QPen(_colour(colour, 150 if level == 0 else 110))
            pen.setCosmetic(True)
            pen.setWidthF(1.0)  # one pixel: a wider smooth rim costs several times as much to draw
            fill = QBrush(_colour(colour, 34)) if level == 0 else QBrush()  # a topic: a ring (an unfilled one is cheap)
            found = self._tools[(colour, level)] = (pen, fill)
        return found

    def set_discs(self, centre: np.ndarray, radius: np.ndarray, colour: list[str], level: np.ndarray,
                  visible: np.ndarray | None = None) -> None:
        self.prepareGeometryChange()
        self.centre = np.asarray(centre, np.float64).reshape(-1, 2)
        self.radius = np.asarray(radius, np.float64)
        self.colour = list(colour)
        self.level = np.asarray(level, np.int8)
        self.visible = np.ones(len(self.radius), bool) if visible is None else np.asarray(visible, bool)
        if len(self.radius):
            lo = (self.centre - self.radius[:, None]).min(0)
            hi = (self.centre + self.radius[:, None]).max(0)
            self._bounds = QRectF(float(lo[0]), float(lo[1]), float(hi[0] - lo[0]), float(hi[1] - lo[1]))
        else:
            self._bounds = QRectF()
        self.update()

    def set_visible(self, visible: np.ndarray) -> None:
        self.visible = np.asarray(visible, bool)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, p: QPainter, *_args) -> None:
        self.drawn = 0
        if not len(self.radius):
            return
        rect, zoom = _view_rect(self, self._bounds)
        c, r = self.centre, self.radius
        seen = (self.visible & (c[:, 0] + r >= rect.left()) & (c[:, 0] - r <= rect.right())
                & (c[:, 1] + r >= rect.top()) & (c[:, 1] - r <= rect.bottom()))
        for level in (0, 1):
            idx = np.flatnonzero(seen & (self.level == level) & (r * zoom >= self.MIN_PX[level]))
            if level == 1 and len(idx) > self.LIMIT:
                idx = idx[np.argsort(-r[idx], kind="stable")[:self.LIMIT]]
            p.setRenderHint(QPainter.RenderHint.Antialiasing, len(idx) <= self.SMOOTH_MAX)
            for i in idx.tolist():
                pen, brush = self._tool(self.colour[i], level)
                p.setPen(pen)
                p.setBrush(brush if r[i] * zoom < self.FILL_MAX_PX else QBrush())  # zoomed into it: the rim only
                p.drawEllipse(QPointF(float(c[i, 0]), float(c[i, 1])), float(r[i]), float(r[i]))
            self.drawn += len(idx)
