"""recall@10 over the kept runs (pyqtgraph): overall, or one group on demand; each point a run,
clicked to open it (``opened`` carries the run id). Stopped runs are drawn hollow."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from memorydesk.browse.audit.runs import GROUPS, Run

OVERALL = ("", "")


def scaled_range(ys: list[float]) -> tuple[float, float]:
    """The y-axis for these values: their span with a margin (at least one percentage point),
    kept within 0–1, so a change of 7.0 % to 6.9 % shows as a change, not a flat line at the bottom."""
    lo, hi = min(ys), max(ys)
    margin = max((hi - lo) * 0.25, 0.01)
    return max(0.0, lo - margin), min(1.02, hi + margin)


class TrendPlot(QWidget):
    opened = Signal(str)  # a run id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        pal = QApplication.palette()
        self.runs: list[Run] = []
        self.shown: list[Run] = []  # the runs drawn, in x order (those with a value for the group)
        self.group = QComboBox()
        self.group.setObjectName("audit-trend-group")
        self.group.setToolTip("recall@10 of every run, or of one group's facts in each run")
        self.group.currentIndexChanged.connect(lambda _i: self._draw())
        self.plot = pg.PlotWidget(background=pal.color(QPalette.ColorRole.Base),
                                  axisItems={"bottom": pg.DateAxisItem(orientation="bottom")})
        self.plot.setObjectName("audit-trend")
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setLabel("left", "recall@10")
        self.y_range = (0.0, 1.02)
        self.plot.setYRange(*self.y_range, padding=0)
        self.plot.setMinimumHeight(160)
        color = pal.color(QPalette.ColorRole.Highlight)
        self.line = self.plot.plot([], [], pen=pg.mkPen(color, width=2))
        self.points = pg.ScatterPlotItem(size=11, pen=pg.mkPen(color, width=2), brush=pg.mkBrush(color),
                                         hoverable=True, tip=None)
        self.points.sigClicked.connect(self._clicked)
        self.plot.addItem(self.points)
        self.caption = QLabel("No runs kept yet: each audit run in this window is kept in the workspace.")
        self.caption.setObjectName("audit-trend-caption")
        row = QHBoxLayout()
        row.addWidget(QLabel("recall@10 of"))
        row.addWidget(self.group)
        row.addStretch(1)
        row.addWidget(QLabel("<i>Click a point to open that run.</i>"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.caption)

    def set_runs(self, runs: list[Run]) -> None:
        self.runs = [r for r in runs if r.kind == "topics"]
        current = self.group.currentData() or OVERALL
        labels: dict[tuple[str, str], None] = {}
        for run in self.runs:
            for group, _title in GROUPS:
                for label in run.group_recall(group):
                    labels[(group, label)] = None
        self.group.blockSignals(True)
        self.group.clear()
        self.group.addItem("every audited fact", OVERALL)
        for group, title in GROUPS:
            for key in sorted(k for k in labels if k[0] == group):
                self.group.addItem(f"{title}: {key[1]}", key)
        found = self.group.findData(current)
        self.group.setCurrentIndex(max(found, 0))
        self.group.blockSignals(False)
        self._draw()

    def value(self, run: Run) -> float | None:
        group, label = self.group.currentData() or OVERALL
        if not group:
            return run.recall
        return run.group_recall(group).get(label)

    def _draw(self) -> None:
        self.shown = [r for r in self.runs if self.value(r) is not None]
        xs = [r.at for r in self.shown]
        ys = [float(self.value(r) or 0.0) for r in self.shown]
        self.line.setData(xs, ys)
        spots: list[dict[str, Any]] = []
        for run, x, y in zip(self.shown, xs, ys, strict=True):
            spot = {"pos": (x, y), "data": run.id}
            if not run.complete:
                spot["brush"] = pg.mkBrush(None)
            spots.append(spot)
        self.points.setData(spots)
        if xs:
            span = max(xs[-1] - xs[0], 3600.0)
            self.plot.setXRange(xs[0] - span * 0.05, xs[-1] + span * 0.05, padding=0)
            self.y_range = scaled_range(ys)
            self.plot.setYRange(*self.y_range, padding=0)
            lo, hi = self.y_range
            whole = lo <= 0 and hi >= 1
            self.plot.setLabel("left", "recall@10" if whole else
                               f"recall@10 (axis {100 * lo:.1f}–{100 * hi:.1f} %, not from 0)")
            what = self.group.currentText()
            hollow = " Hollow points: runs stopped before the end." if any(not r.complete for r in self.shown) else ""
            self.caption.setText(
                f"{len(self.shown):,} run(s); recall@10 of {what}, latest {100 * ys[-1]:.1f} %.{hollow}")
        elif self.runs:
            self.caption.setText("No kept run has facts in this group.")

    def point_pos(self, run_id: str) -> QPoint:
        """Where a run's point is on the plot widget (for clicks in tests and keyboard-free use)."""
        run = next(r for r in self.shown if r.id == run_id)
        scene = self.plot.plotItem.vb.mapViewToScene(QPointF(run.at, float(self.value(run) or 0.0)))
        return self.plot.mapFromScene(scene)

    def _clicked(self, _item: Any, points: Any, _event: Any = None) -> None:
        if len(points):
            self.opened.emit(str(points[0].data()))
