"""The canvas's own graphics items: edges drawn only where the view is, at the level of
detail the screen can show, and labels in screen space.

``EdgeLayer`` keeps every edge as numpy arrays; each paint picks the edges whose
bounding box meets the view (vectorised), and draws them grouped by kind and weight
with one ``drawLines`` call per group over a line array backed by numpy memory. When
more than ``LOD_LIMIT`` would be visible, it draws the folded picture instead: one line
per pair of topics, coloured by the kind most of its edges have, its width by how many
there are. ``LabelLayer`` paints names in device pixels (a fixed size at any zoom),
only for the nodes in view and only as many as fit.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from pyqtgraph.Qt.internals import PrimitiveArray

from memorydesk.browse.graph_data import EDGE_KINDS
from memorydesk.ui.graph.style import edge_colour

LOD_LIMIT = 15_000
WIDTHS = (1.0, 1.8, 2.8)  # pixels, by weight: < .5, < .75, ≥ .75


class EdgeLayer(pg.GraphicsObject):
    def __init__(self) -> None:
        super().__init__()
        self.setZValue(-10)
        self._bounds = QRectF()
        self.x1 = self.y1 = self.x2 = self.y2 = np.zeros(0)
        self.group = np.zeros(0, np.int16)
        self.mask = np.zeros(0, bool)
        self.fold = None  # (x1, y1, x2, y2, group) of the folded lines
        self.alpha = 150
        self.drawn = 0  # edges (or folded lines) drawn by the last paint
        self.folded = False  # the last paint drew the folded picture
        self._lines = PrimitiveArray(QLineF, 4)
        self._pens: dict[tuple[int, int], QPen] = {}

    def _pen(self, group: int) -> QPen:
        key = (group, self.alpha)
        pen = self._pens.get(key)
        if pen is None:
            pen = QPen(edge_colour(group // 3, self.alpha))
            pen.setWidthF(WIDTHS[group % 3])
            pen.setCosmetic(True)
            self._pens[key] = pen
        return pen

    def set_edges(self, a: np.ndarray, b: np.ndarray, kind: np.ndarray, weight: np.ndarray,
                  fold: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None, alpha: int = 150) -> None:
        """``a``/``b``: (m, 2) end positions; ``fold``: (a, b, kind, count) of the folded lines."""
        self.prepareGeometryChange()
        self.x1, self.y1, self.x2, self.y2 = (np.ascontiguousarray(v, np.float64)
                                              for v in (a[:, 0], a[:, 1], b[:, 0], b[:, 1]))
        bucket = np.where(weight >= 0.75, 2, np.where(weight >= 0.5, 1, 0))
        self.group = (kind.astype(np.int16) * 3 + bucket).astype(np.int16)
        self.mask = np.ones(len(kind), bool)
        self.fold = fold
        self.alpha = alpha
        if len(kind):
            lo = np.minimum(a.min(0), b.min(0))
            hi = np.maximum(a.max(0), b.max(0))
            self._bounds = QRectF(float(lo[0]), float(lo[1]), float(hi[0] - lo[0]) or 1.0, float(hi[1] - lo[1]) or 1.0)
        else:
            self._bounds = QRectF()
        self.update()

    def set_mask(self, mask: np.ndarray, fold=None) -> None:
        self.mask = mask
        self.fold = fold
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def in_view(self, rect: QRectF, x1, y1, x2, y2) -> np.ndarray:
        return ((np.minimum(x1, x2) <= rect.right()) & (np.maximum(x1, x2) >= rect.left())
                & (np.minimum(y1, y2) <= rect.bottom()) & (np.maximum(y1, y2) >= rect.top()))

    def visible(self) -> np.ndarray:
        view = self.getViewBox()
        rect = view.viewRect() if view is not None else self._bounds
        return np.flatnonzero(self.mask & self.in_view(rect, self.x1, self.y1, self.x2, self.y2))

    def paint(self, p: QPainter, *_args) -> None:
        idx = self.visible()
        self.folded = len(idx) > LOD_LIMIT and self.fold is not None
        if self.folded:
            fx1, fy1, fx2, fy2, group = self.fold
            view = self.getViewBox()
            rect = view.viewRect() if view is not None else self._bounds
            idx = np.flatnonzero(self.in_view(rect, fx1, fy1, fx2, fy2))
            self._draw(p, idx, fx1, fy1, fx2, fy2, group)
        else:
            self._draw(p, idx, self.x1, self.y1, self.x2, self.y2, self.group)
        self.drawn = len(idx)

    def _draw(self, p: QPainter, idx: np.ndarray, x1, y1, x2, y2, group) -> None:
        if not len(idx):
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, len(idx) < 3000)
        g = group[idx]
        order = np.argsort(g, kind="stable")
        idx, g = idx[order], g[order]
        cuts = np.flatnonzero(np.diff(g)) + 1
        for part in np.split(np.arange(len(idx)), cuts):
            chosen = idx[part]
            self._lines.resize(len(chosen))
            mem = self._lines.ndarray()
            mem[:, 0], mem[:, 1], mem[:, 2], mem[:, 3] = x1[chosen], y1[chosen], x2[chosen], y2[chosen]
            p.setPen(self._pen(int(g[part[0]])))
            p.drawLines(*self._lines.drawargs())


def fold_edges(pos: np.ndarray, owner: np.ndarray, src: np.ndarray, dst: np.ndarray, kind: np.ndarray,
               mask: np.ndarray) -> tuple[np.ndarray, ...]:
    """One line per pair of owners (topics) for the edges in ``mask``: from owner to owner,
    the kind most of its edges have, the width by how many there are."""
    s, d = owner[src[mask]], owner[dst[mask]]
    k = kind[mask].astype(np.int64)
    ok = (s >= 0) & (d >= 0) & (s != d)
    s, d, k = s[ok], d[ok], k[ok]
    a, b = np.minimum(s, d), np.maximum(s, d)
    if not len(a):
        empty = np.zeros(0)
        return empty, empty, empty, empty, np.zeros(0, np.int16)
    pair_kind = np.stack([a, b, k], axis=1)
    keys, counts = np.unique(pair_kind, axis=0, return_counts=True)
    # keep, for each pair, the kind with most edges
    order = np.lexsort((-counts, keys[:, 1], keys[:, 0]))
    keys, counts = keys[order], counts[order]
    first = np.ones(len(keys), bool)
    first[1:] = (keys[1:, 0] != keys[:-1, 0]) | (keys[1:, 1] != keys[:-1, 1])
    pair_total = np.add.reduceat(counts, np.flatnonzero(first))
    keys = keys[first]
    bucket = np.where(pair_total >= 8, 2, np.where(pair_total >= 3, 1, 0))
    group = (keys[:, 2] * 3 + bucket).astype(np.int16)
    pa, pb = pos[keys[:, 0]], pos[keys[:, 1]]
    return (pa[:, 0].astype(np.float64), pa[:, 1].astype(np.float64), pb[:, 0].astype(np.float64),
            pb[:, 1].astype(np.float64), group)


class LabelLayer(pg.GraphicsObject):
    """Names drawn at a fixed pixel size: ``big`` ones always (domains), ``small`` ones when
    they are in view and few enough (at most ``limit``)."""

    def __init__(self, limit: int = 120) -> None:
        super().__init__()
        self.setZValue(20)
        self.limit = limit
        self.big_pos = np.zeros((0, 2))
        self.big_text: list[str] = []
        self.small_pos = np.zeros((0, 2))
        self.small_text: list[str] = []
        self.small_min_px = 0.0  # show small labels only when the view is zoomed in this far (data units per px)
        self._bounds = QRectF()
        self.drawn = 0

    def set_labels(self, big_pos, big_text, small_pos, small_text, small_max_px: float) -> None:
        self.prepareGeometryChange()
        self.big_pos, self.big_text = np.asarray(big_pos, np.float64).reshape(-1, 2), list(big_text)
        self.small_pos, self.small_text = np.asarray(small_pos, np.float64).reshape(-1, 2), list(small_text)
        self.small_min_px = small_max_px
        both = np.concatenate([self.big_pos, self.small_pos]) if len(self.big_pos) + len(self.small_pos) else None
        if both is not None and len(both):
            lo, hi = both.min(0), both.max(0)
            self._bounds = QRectF(lo[0], lo[1], max(hi[0] - lo[0], 1.0), max(hi[1] - lo[1], 1.0))
        else:
            self._bounds = QRectF()
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, p: QPainter, *_args) -> None:
        view = self.getViewBox()
        if view is None:
            return
        rect = view.viewRect()
        px = view.viewPixelSize()[0]
        transform = p.transform()  # item → device, as the painter has it now
        p.save()
        p.resetTransform()
        self.drawn = 0
        font = QFont(p.font())
        font.setPointSizeF(max(font.pointSizeF(), 9.0))
        items: list[tuple[np.ndarray, list[str], bool]] = []
        small = self._in(rect, self.small_pos)
        if px <= self.small_min_px and 0 < len(small) <= self.limit:
            items.append((small, self.small_text, False))
        items.append((self._in(rect, self.big_pos), self.big_text, True))
        for idx, texts, big in items:
            f = QFont(font)
            f.setBold(big)
            if big:
                f.setPointSizeF(font.pointSizeF() * 1.15)
            p.setFont(f)
            metrics = QFontMetricsF(f)
            pos = self.big_pos if big else self.small_pos
            for i in idx:
                text = texts[i][:40]
                at = transform.map(QPointF(pos[i, 0], pos[i, 1]))
                w = metrics.horizontalAdvance(text)
                box = QRectF(at.x() - w / 2 - 3, at.y() - metrics.height() - 4, w + 6, metrics.height() + 2)
                p.fillRect(box, QColor(255, 255, 255, 200 if big else 170))
                p.setPen(QColor("#1b2631") if big else QColor("#34495e"))
                p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
                self.drawn += 1
        p.restore()

    @staticmethod
    def _in(rect: QRectF, pos: np.ndarray) -> np.ndarray:
        if not len(pos):
            return np.zeros(0, np.int64)
        return np.flatnonzero((pos[:, 0] >= rect.left()) & (pos[:, 0] <= rect.right())
                              & (pos[:, 1] >= rect.top()) & (pos[:, 1] <= rect.bottom()))


__all__ = ["EDGE_KINDS", "LOD_LIMIT", "EdgeLayer", "LabelLayer", "fold_edges"]
