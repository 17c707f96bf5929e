"""Names on the canvas, at a fixed pixel size, never on top of each other.

Each paint takes the names whose node is in view (and, for those with a ``zoom``, only
once the view is zoomed in that far), most important first (``rank``), and puts each
at the first of a few spots around its node where it overlaps no name already placed
and no reserved rectangle (the note in the corner); a name with no free spot is left
out until the view has room for it.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QTransform

CELL = 64.0  # pixels: the grid that finds the names a box could overlap
LONGEST = 34  # characters of a name shown (the rest is elided)


def elide(text: str, longest: int = LONGEST) -> str:
    return text if len(text) <= longest else text[:longest - 1].rstrip() + "…"


class LabelLayer(pg.GraphicsObject):
    def __init__(self, limit: int = 160) -> None:
        super().__init__()
        self.setZValue(20)
        self.limit = limit
        self.pos = np.zeros((0, 2))
        self.text: list[str] = []
        self.rank = np.zeros(0)
        self.big = np.zeros(0, bool)
        self.zoom = np.zeros(0)  # px per layout unit a name needs before it is shown (0: always)
        self.visible = np.zeros(0, bool)
        self.reserved: list[QRectF] = []  # device rectangles no name may cover
        self._bounds = QRectF()
        self.placed: list[tuple[str, QRectF]] = []  # what the last paint drew
        self.drawn = 0
        self._serial = 0  # counts set_labels calls: a placement is kept while the names and the view stay
        self._key: tuple | None = None
        self._spots_taken: list[tuple[int, QRectF]] = []
        self._widths: dict[tuple[str, bool], float] = {}

    def set_labels(self, pos: np.ndarray, text: list[str], rank: np.ndarray | None = None,
                   big: np.ndarray | None = None, zoom: np.ndarray | None = None,
                   visible: np.ndarray | None = None) -> None:
        """Names (elided already: see ``elide``) at ``pos``, in layout units."""
        self.prepareGeometryChange()
        self._serial += 1
        if len(self._widths) > 50_000:
            self._widths.clear()
        self.pos = np.asarray(pos, np.float64).reshape(-1, 2)
        n = len(self.pos)
        self.text = text
        self.visible = np.ones(n, bool) if visible is None else np.asarray(visible, bool)
        self.rank = np.zeros(n) if rank is None else np.asarray(rank, np.float64)
        self.big = np.zeros(n, bool) if big is None else np.asarray(big, bool)
        self.zoom = np.zeros(n) if zoom is None else np.asarray(zoom, np.float64)
        if n:
            lo, hi = self.pos.min(0), self.pos.max(0)
            self._bounds = QRectF(lo[0], lo[1], max(hi[0] - lo[0], 1.0), max(hi[1] - lo[1], 1.0))
        else:
            self._bounds = QRectF()
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def _candidates(self, rect: QRectF, zoom: float) -> np.ndarray:
        if not len(self.pos):
            return np.zeros(0, np.int64)
        x, y = self.pos[:, 0], self.pos[:, 1]
        idx = np.flatnonzero(self.visible & (x >= rect.left()) & (x <= rect.right()) & (y >= rect.top())
                             & (y <= rect.bottom()) & (self.zoom <= zoom))
        return idx[np.argsort(-self.rank[idx], kind="stable")][: self.limit * 3]

    def _fonts(self, p: QPainter) -> dict[bool, tuple[QFont, QFontMetricsF]]:
        base = QFont(p.font())
        base.setPointSizeF(max(base.pointSizeF(), 9.0))
        bold = QFont(base)
        bold.setBold(True)
        bold.setPointSizeF(base.pointSizeF() * 1.1)
        return {False: (base, QFontMetricsF(base)), True: (bold, QFontMetricsF(bold))}

    def _place(self, view: pg.ViewBox, transform: QTransform, fonts: dict) -> list[tuple[int, QRectF]]:
        """Where each name goes (by rank; see the module docstring)."""
        zoom = 1.0 / max(view.viewPixelSize()[0], 1e-12)
        idx = self._candidates(view.viewRect(), zoom)
        inside = transform.mapRect(view.viewRect())  # the view, in device pixels
        grid: dict[tuple[int, int], list[QRectF]] = defaultdict(list)
        for box in self.reserved:
            self._file(grid, box)
        placed: list[tuple[int, QRectF]] = []
        for i in idx.tolist():
            big = bool(self.big[i])
            metrics = fonts[big][1]
            text = self.text[i]
            width = self._widths.get((text, big))
            if width is None:
                width = self._widths[(text, big)] = metrics.horizontalAdvance(text) + 8
            at = transform.map(QPointF(self.pos[i, 0], self.pos[i, 1]))
            for box in self._spots(at, width, metrics.height() + 2, big):
                box = self._within(box, inside)
                if self._free(grid, box):
                    self._file(grid, box)
                    placed.append((i, box))
                    break
            if len(placed) >= self.limit:
                break
        return placed

    def paint(self, p: QPainter, *_args) -> None:
        view = self.getViewBox()
        if view is None or not len(self.pos):
            self.placed, self.drawn = [], 0
            return
        transform = p.transform()
        fonts = self._fonts(p)
        rect = view.viewRect()
        key = (transform.m11(), transform.m12(), transform.m21(), transform.m22(), transform.dx(), transform.dy(),
               rect.x(), rect.y(), rect.width(), rect.height(), self._serial,
               tuple((r.x(), r.y(), r.width(), r.height()) for r in self.reserved))
        if key != self._key:  # the view or the names changed: place them again (else as they were)
            self._key, self._spots_taken = key, self._place(view, transform, fonts)
        p.save()
        p.resetTransform()
        self.placed = []
        for i, box in self._spots_taken:
            big = bool(self.big[i])
            p.setFont(fonts[big][0])
            p.fillRect(box, QColor(255, 255, 255, 215 if big else 190))
            p.setPen(QColor("#1b2631") if big else QColor("#34495e"))
            p.drawText(box, Qt.AlignmentFlag.AlignCenter, self.text[i])
            self.placed.append((self.text[i], box))
        self.drawn = len(self.placed)
        p.restore()

    @staticmethod
    def _spots(at: QPointF, w: float, h: float, big: bool) -> list[QRectF]:
        x, y = at.x(), at.y()
        above = QRectF(x - w / 2, y - h - 5, w, h)
        below = QRectF(x - w / 2, y + 6, w, h)
        right = QRectF(x + 7, y - h / 2, w, h)
        left = QRectF(x - w - 7, y - h / 2, w, h)
        if big:  # a domain's (the focus's) name just above it, else below, else across it
            return [above, below, QRectF(x - w / 2, y - h / 2, w, h)]
        return [above, below, right, left]

    @staticmethod
    def _within(box: QRectF, inside: QRectF) -> QRectF:
        """``box`` moved sideways (and up or down) so that it is not cut by the view's edge."""
        dx = max(inside.left() + 2 - box.left(), 0.0) + min(inside.right() - 2 - box.right(), 0.0)
        dy = max(inside.top() + 2 - box.top(), 0.0) + min(inside.bottom() - 2 - box.bottom(), 0.0)
        return box.translated(dx, dy) if dx or dy else box

    @staticmethod
    def _cells(box: QRectF) -> list[tuple[int, int]]:
        x0, x1 = int(box.left() // CELL), int(box.right() // CELL)
        y0, y1 = int(box.top() // CELL), int(box.bottom() // CELL)
        return [(cx, cy) for cx in range(x0, x1 + 1) for cy in range(y0, y1 + 1)]

    def _free(self, grid: dict[tuple[int, int], list[QRectF]], box: QRectF) -> bool:
        return not any(box.intersects(other) for cell in self._cells(box) for other in grid.get(cell, ()))

    def _file(self, grid: dict[tuple[int, int], list[QRectF]], box: QRectF) -> None:
        for cell in self._cells(box):
            grid[cell].append(box)
