"""The canvas's edges: drawn only where the view is, at the level of detail the screen can
show.

``EdgeLayer`` keeps every edge as numpy arrays (end points and a pen group: kind and
weight); each paint picks the edges whose bounding box meets the view (vectorised) and
draws them grouped by pen, one ``drawLines`` call per group over a line array backed by
numpy memory. When more than ``LOD_LIMIT`` would be visible, it draws a folded
picture instead (by topic, or by domain when even those lines are too many in view:
``FOLD_LIMIT``): one line per pair of topics (or domains) and kind, in the kind's
colour, fainter and thinner the fewer edges it stands for, the kinds other than
``related_to`` drawn over it so that they stay in sight; of a kind with many lines only
the backbone (each end's strongest few) is drawn, so that the overview is not a hairball.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt.internals import PrimitiveArray
from PySide6.QtCore import QLineF, QRectF
from PySide6.QtGui import QPainter, QPen

from memorydesk.browse.graph.data import EDGE_KINDS
from memorydesk.ui.graph.style import edge_colour

LOD_LIMIT = 15_000  # more edges than this in view: a folded picture instead
FOLD_LIMIT = 2_500  # more folded lines than this in view: the next coarser folded picture
WIDTHS = (1.0, 1.8, 2.8)  # pixels, by weight: < .5, < .75, ≥ .75 (when few lines are drawn)
SHADES = (0.5, 0.75, 1.0)  # the pen's opacity by weight (times the picture's)
FOLD_WIDTHS = (1.0, 1.0, 1.0)  # folded lines are long: one pixel (a wider smooth one costs ten times as much)
FOLD_ALPHA = (50, 105, 170)
SMOOTH_MAX = 1500  # below this many lines: antialiased, wider by weight; above: one-pixel lines (fast)
BACKBONE = 3  # a folded picture keeps each topic's (domain's) strongest lines of a kind…
RARE_LINES = 400  # …unless the kind has no more lines than this (then every one)


class EdgeLayer(pg.GraphicsObject):
    def __init__(self) -> None:
        super().__init__()
        self.setZValue(-10)
        self._bounds = QRectF()
        self.x1 = self.y1 = self.x2 = self.y2 = np.zeros(0)
        self.group = np.zeros(0, np.int16)
        self.mask = np.zeros(0, bool)
        self.fold: list[tuple[np.ndarray, ...]] = []  # folded pictures, finest first: (x1, y1, x2, y2, group)
        self.alpha = 150
        self.drawn = 0  # edges (or folded lines) drawn by the last paint
        self.folded = False  # the last paint drew a folded picture…
        self.level = -1  # …this one (0: the finest)
        self._lines = PrimitiveArray(QLineF, 4)
        self._pens: dict[tuple[int, int, bool], QPen] = {}

    def _pen(self, group: int, folded: bool, fine: bool) -> QPen:
        """The pen of a group: its kind's colour; its weight (or the folded line's count) in
        its opacity and, when few lines are drawn (``fine``), its width."""
        key = (group, self.alpha, folded, fine)
        pen = self._pens.get(key)
        if pen is None:
            bucket = group % 3
            alpha = FOLD_ALPHA[bucket] if folded else int(self.alpha * SHADES[bucket])
            pen = QPen(edge_colour(group // 3, alpha))
            pen.setWidthF((FOLD_WIDTHS if folded else WIDTHS)[bucket] if fine else 1.0)
            pen.setCosmetic(True)
            self._pens[key] = pen
        return pen

    def set_edges(self, a: np.ndarray, b: np.ndarray, kind: np.ndarray, weight: np.ndarray,
                  fold: list[tuple[np.ndarray, ...]] | None = None, alpha: int = 150) -> None:
        """``a``/``b``: (m, 2) end positions; ``fold``: ``fold_edges``' folded pictures, finest first."""
        a, b = np.asarray(a, np.float64).reshape(-1, 2), np.asarray(b, np.float64).reshape(-1, 2)
        self.set_lines(a[:, 0], a[:, 1], b[:, 0], b[:, 1], edge_groups(np.asarray(kind), np.asarray(weight)),
                       fold=fold, alpha=alpha)

    def set_lines(self, x1: np.ndarray, y1: np.ndarray, x2: np.ndarray, y2: np.ndarray, group: np.ndarray, *,
                  mask: np.ndarray | None = None, fold: list[tuple[np.ndarray, ...]] | None = None,
                  alpha: int = 150) -> None:
        """End points and pen groups as they are (arrays kept, not copied)."""
        self.prepareGeometryChange()
        self.x1, self.y1, self.x2, self.y2 = (np.ascontiguousarray(v, np.float64) for v in (x1, y1, x2, y2))
        self.group = np.asarray(group, np.int16)
        self.mask = np.ones(len(self.group), bool) if mask is None else mask
        self.fold = list(fold or [])
        self.alpha = alpha
        if len(self.group):
            lo_x, hi_x = min(self.x1.min(), self.x2.min()), max(self.x1.max(), self.x2.max())
            lo_y, hi_y = min(self.y1.min(), self.y2.min()), max(self.y1.max(), self.y2.max())
            self._bounds = QRectF(float(lo_x), float(lo_y), float(hi_x - lo_x) or 1.0, float(hi_y - lo_y) or 1.0)
        else:
            self._bounds = QRectF()
        self.update()

    def set_mask(self, mask: np.ndarray, fold: list[tuple[np.ndarray, ...]] | None = None) -> None:
        self.mask = mask
        self.fold = list(fold or [])
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    @staticmethod
    def in_view(rect: QRectF, x1: np.ndarray, y1: np.ndarray, x2: np.ndarray, y2: np.ndarray) -> np.ndarray:
        return ((np.minimum(x1, x2) <= rect.right()) & (np.maximum(x1, x2) >= rect.left())
                & (np.minimum(y1, y2) <= rect.bottom()) & (np.maximum(y1, y2) >= rect.top()))

    def _rect(self) -> QRectF:
        view = self.getViewBox()
        return view.viewRect() if view is not None else self._bounds

    def visible(self) -> np.ndarray:
        return np.flatnonzero(self.mask & self.in_view(self._rect(), self.x1, self.y1, self.x2, self.y2))

    def paint(self, p: QPainter, *_args) -> None:
        idx = self.visible()
        self.folded, self.level = len(idx) > LOD_LIMIT and bool(self.fold), -1
        if self.folded:  # the finest folded picture with few enough lines in view (else the coarsest)
            for level, (fx1, fy1, fx2, fy2, group) in enumerate(self.fold):
                idx = np.flatnonzero(self.in_view(self._rect(), fx1, fy1, fx2, fy2))
                if len(idx) <= FOLD_LIMIT or level == len(self.fold) - 1:
                    break
            self.level = level
            self._draw(p, idx, fx1, fy1, fx2, fy2, group, True)
        else:
            self._draw(p, idx, self.x1, self.y1, self.x2, self.y2, self.group, False)
        self.drawn = len(idx)

    def _draw(self, p: QPainter, idx: np.ndarray, x1: np.ndarray, y1: np.ndarray, x2: np.ndarray, y2: np.ndarray,
              group: np.ndarray, folded: bool) -> None:
        if not len(idx):
            return
        fine = len(idx) < SMOOTH_MAX / (4 if folded else 1)  # folded lines are long: fewer smooth ones
        p.setRenderHint(QPainter.RenderHint.Antialiasing, fine)
        g = group[idx]
        order = np.argsort(g, kind="stable")  # kind by kind: related_to first, the rarer kinds over it
        idx, g = idx[order], g[order]
        cuts = np.flatnonzero(np.diff(g)) + 1
        for part in np.split(np.arange(len(idx)), cuts):
            chosen = idx[part]
            self._lines.resize(len(chosen))
            mem = self._lines.ndarray()
            mem[:, 0], mem[:, 1], mem[:, 2], mem[:, 3] = x1[chosen], y1[chosen], x2[chosen], y2[chosen]
            p.setPen(self._pen(int(g[part[0]]), folded, fine))
            p.drawLines(*self._lines.drawargs())


def edge_groups(kind: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Each edge's pen: its kind and its weight (three widths)."""
    bucket = np.where(weight >= 0.75, 2, np.where(weight >= 0.5, 1, 0))
    return (kind.astype(np.int16) * 3 + bucket).astype(np.int16)


def _top(a: np.ndarray, b: np.ndarray, count: np.ndarray, per: int) -> np.ndarray:
    """Whether each line (owner ``a`` – owner ``b``) is among the ``per`` with most edges
    of one of its two ends."""
    owner = np.concatenate([a, b])
    line = np.concatenate([np.arange(len(a)), np.arange(len(a))])
    order = np.lexsort((line, -np.concatenate([count, count]), owner))
    ranked = owner[order]
    first = np.r_[0, np.flatnonzero(np.diff(ranked)) + 1]
    run_start = np.repeat(first, np.diff(np.r_[first, len(ranked)]))
    top = np.zeros(len(a), bool)
    top[line[order][(np.arange(len(ranked)) - run_start) < per]] = True
    return top


def fold_edges(pos: np.ndarray, owner: np.ndarray, src: np.ndarray, dst: np.ndarray, kind: np.ndarray,
               mask: np.ndarray, per: int = BACKBONE) -> tuple[np.ndarray, ...]:
    """One line per pair of owners (topics, or domains) and kind, for the edges in ``mask``
    whose owners differ: from owner to owner, in the kind's colour, its width and
    strength by how many edges it stands for. Of a kind with many lines, only each
    owner's ``per`` strongest are kept (the backbone; the rest show when zoomed in, as
    the edges themselves). Returns (x1, y1, x2, y2, group)."""
    s, d = owner[src[mask]].astype(np.int64), owner[dst[mask]].astype(np.int64)
    k = kind[mask].astype(np.int64)
    ok = (s >= 0) & (d >= 0) & (s != d)
    a, b, k = np.minimum(s[ok], d[ok]), np.maximum(s[ok], d[ok]), k[ok]
    if not len(a):
        empty = np.zeros(0)
        return empty, empty, empty, empty, np.zeros(0, np.int16)
    size = int(max(a.max(), b.max())) + 1
    keys, counts = np.unique((a * size + b) * len(EDGE_KINDS) + k, return_counts=True)
    pair, k = keys // len(EDGE_KINDS), keys % len(EDGE_KINDS)
    a, b = pair // size, pair % size
    bucket = np.zeros(len(counts), np.int64)
    keep = np.ones(len(counts), bool)
    for code in np.unique(k):  # strong: the kind's top tenth (and 3+ edges); medium: its next three tenths
        mine = np.flatnonzero(k == code)
        c = counts[mine]
        strong, medium = max(np.quantile(c, 0.9), 3), max(np.quantile(c, 0.6), 2)
        bucket[mine] = np.where(c >= strong, 2, np.where(c >= medium, 1, 0))
        if per and len(mine) > RARE_LINES:
            keep[mine] = _top(a[mine], b[mine], c, per)
    a, b, k, bucket = a[keep], b[keep], k[keep], bucket[keep]
    group = (k * 3 + bucket).astype(np.int16)
    return (pos[a, 0].astype(np.float64), pos[a, 1].astype(np.float64), pos[b, 0].astype(np.float64),
            pos[b, 1].astype(np.float64), group)


__all__ = ["LOD_LIMIT", "EdgeLayer", "edge_groups", "fold_edges"]
