"""The selected run explained: state, rule and the classifier's reason; its versions across the
tiers as a small swimlane with the missing step marked; its receipts in time order
(content-free fields only); and, for an at-risk run, what to reconcile."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memorydesk.core.health.table import Color
from memorydesk.core.receipts import NO_DEADLINE, TIERS, Receipt, format_utc
from memorydesk.lineage.run_detail import MARKS, RunDetail
from memorydesk.ui.lineage import colors
from memorydesk.ui.widgets.rows_model import RowsModel

COLUMNS = (("at", "time (local)"), ("tier", "tier"), ("status", "status"), ("version", "version"),
           ("source_version", "sourceVersion"), ("source_present", "sourcePresent"),
           ("waiting_until", "waitingUntil (local)"), ("expected_version", "expectedVersion"),
           ("depends_on_version", "dependsOnVersion"), ("outcome_receipt", "outcomeReceipt"),
           ("receipt_id", "receiptId"), ("canary", "canary"), ("line", "line"))
#: swimlane marks: colour and the word in the cell
MARK_LOOK = {"lost": (Color.AT_RISK, "lost"), "missing": (Color.AT_RISK, "missing"),
             "pending": (Color.WAITING, "waiting"), "no-stm": (Color.UNCERTAIN, "no receipt"),
             "stale": (Color.STALE, "stale"), "not-returned": (Color.AT_RISK, "not returned"),
             "unproven": (Color.UNCERTAIN, "unproven")}


def local_time(moment) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def waiting_text(until) -> str:
    """A waiting window's end in local time; "no deadline" for the contract's no-deadline value."""
    if until is None:
        return ""
    return "no deadline" if until >= NO_DEADLINE else local_time(until)


class ReceiptModel(RowsModel[Receipt]):
    """One run's receipts, read-only, in time order."""

    COLUMNS = COLUMNS

    def cell(self, r: Receipt, name: str, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "at":
                return local_time(r.at_utc)
            if name == "waiting_until":
                return waiting_text(r.waiting_until)
            value = getattr(r, name)
            if value is None:
                return ""
            return ("true" if value else "false") if isinstance(value, bool) else str(value)
        if role == Qt.ItemDataRole.ToolTipRole and name in ("at", "waiting_until"):
            value = r.at_utc if name == "at" else r.waiting_until
            if value is not None and value >= NO_DEADLINE:
                return f"no deadline declared (the receipt says {format_utc(value)})"
            return f"{format_utc(value)} (UTC)" if value else None
        return None


class Swimlane(QWidget):
    """Versions (rows) across stm → mtm → lpm → retrieval → generation (columns)."""

    CELL_W, CELL_H, HEAD = 92, 22, 18
    LABEL_MAX = 170  # a longer version is elided in the middle (the tooltip and the receipts name it whole)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lineage-swimlane")
        self.detail: RunDetail | None = None

    def set_detail(self, detail: RunDetail | None) -> None:
        self.detail = detail
        self.updateGeometry()
        self.update()
        self.setToolTip(self.describe())

    def describe(self) -> str:
        """What the cells say, as text (also the tooltip)."""
        if self.detail is None:
            return ""
        lines = []
        for lane in self.detail.versions:
            cells = [f"{s.tier}: {MARK_LOOK[s.mark][1] if s.mark else (s.status or '—')}" for s in lane.steps]
            lines.append(f"{lane.version}: " + " → ".join(cells))
        marks = {s.mark for lane in self.detail.versions for s in lane.steps if s.mark}
        lines += [f"{MARK_LOOK[m][1]}: {MARKS[m]}" for m in sorted(marks)]
        return "\n".join(lines)

    def label_width(self) -> int:
        """Room for the versions' names (whole, up to a limit; longer ones are elided in the middle)."""
        names = [lane.version for lane in self.detail.versions] if self.detail else []
        widest = max((self.fontMetrics().horizontalAdvance(n) for n in names), default=0)
        return int(min(max(widest + 10, 64), self.LABEL_MAX))

    def sizeHint(self) -> QSize:
        rows = len(self.detail.versions) if self.detail else 0
        return QSize(self.CELL_W * len(TIERS) + self.label_width() + 6, self.HEAD + self.CELL_H * max(rows, 1) + 4)

    def minimumSizeHint(self) -> QSize:
        """The tiers in full; the versions' names get what is left (elided in the middle)."""
        rows = len(self.detail.versions) if self.detail else 0
        return QSize(self.CELL_W * len(TIERS) + 70, self.HEAD + self.CELL_H * max(rows, 1) + 4)

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.detail is None:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = QApplication.palette()
        text = pal.text().color()
        left = max(64, min(self.label_width(), self.width() - self.CELL_W * len(TIERS) - 6))
        metrics = self.fontMetrics()
        for c, tier in enumerate(TIERS):
            p.setPen(text)
            p.drawText(QRectF(left + c * self.CELL_W, 0, self.CELL_W, self.HEAD), Qt.AlignmentFlag.AlignCenter, tier)
        for r, lane in enumerate(self.detail.versions):
            y = self.HEAD + r * self.CELL_H
            p.setPen(text)
            p.drawText(QRectF(0, y, left - 6, self.CELL_H), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                       metrics.elidedText(lane.version, Qt.TextElideMode.ElideMiddle, left - 8))
            for c, step in enumerate(lane.steps):
                box = QRectF(left + c * self.CELL_W + 4, y + 2, self.CELL_W - 16, self.CELL_H - 4)
                self._cell(p, box, step.status, step.mark, text)
                if c < len(TIERS) - 1:
                    p.setPen(QPen(pal.placeholderText().color(), 1))
                    p.drawLine(box.right() + 1, box.center().y(), box.right() + 11, box.center().y())
        p.end()

    def _cell(self, p: QPainter, box: QRectF, status: str | None, mark: str | None, text: QColor) -> None:
        if mark is not None:
            color, word = MARK_LOOK[mark]
            q = colors.qcolor(color)
            p.setPen(QPen(q, 1.5, Qt.PenStyle.DashLine))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(box, 4, 4)
            p.setPen(q)
            p.drawText(box, Qt.AlignmentFlag.AlignCenter, word)
            return
        if status is None:
            return
        if status in ("committed", "verified"):
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(colors.qcolor(Color.HEALTHY))
            p.drawRoundedRect(box, 4, 4)
            p.setPen(QColor("white"))
        elif status == "failed":
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(colors.qcolor(Color.AT_RISK))
            p.drawRoundedRect(box, 4, 4)
            p.setPen(QColor("white"))
        else:
            p.setPen(QPen(text, 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(box, 4, 4)
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, status)


class RunDetailPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.detail: RunDetail | None = None
        self.header = QLabel("Click a run, or press N on the timeline for the next at-risk run, to see why it has "
                             "its colour.")
        self.header.setObjectName("lineage-run-header")
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reason = QLabel("")
        self.reason.setObjectName("lineage-run-reason")
        self.reason.setWordWrap(True)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.swimlane = Swimlane()
        self.reconcile = QLabel("")
        self.reconcile.setObjectName("lineage-reconcile")
        self.reconcile.setWordWrap(True)
        self.reconcile.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy = QPushButton("Copy run and versions")
        self.copy.setObjectName("lineage-copy-reconcile")
        self.copy.setToolTip("Copy the run id and version of each promotion to reconcile (tab-separated)")
        self.copy.clicked.connect(self.copy_reconcile)
        self.model = ReceiptModel(self)
        self.table = QTableView()
        self.table.setObjectName("lineage-receipts")
        self.table.setModel(self.model)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setAlternatingRowColors(True)
        left = QVBoxLayout()
        left.setContentsMargins(0, 0, 0, 0)
        left.addWidget(self.header)
        left.addWidget(self.reason)
        left.addWidget(self.swimlane)
        fix = QHBoxLayout()
        fix.setContentsMargins(0, 0, 0, 0)
        fix.addWidget(self.reconcile, 1)
        fix.addWidget(self.copy, 0, Qt.AlignmentFlag.AlignTop)
        left.addLayout(fix)
        left.addStretch(1)
        top = QWidget()
        top.setLayout(left)
        area = QScrollArea()
        area.setObjectName("lineage-run-scroll")
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.NoFrame)
        area.setWidget(top)
        area.setMinimumWidth(Swimlane.CELL_W * len(TIERS) + 90)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 0, 0)
        layout.addWidget(area, 1)
        layout.addWidget(self.table, 1)
        self.show_detail(None)

    def show_pending(self, text: str) -> None:
        """At once on a click (the receipts follow from the worker)."""
        self.header.setText(text)

    def show_detail(self, detail: RunDetail | None, summary: str = "") -> None:
        self.detail = detail
        self.swimlane.set_detail(detail)
        self.model.set_rows(detail.receipts if detail else [])
        if detail is None:
            if summary:
                self.header.setText(summary)
            self.reason.setText("")
            self.reconcile.setText("")
            self.reconcile.setVisible(False)
            self.copy.setVisible(False)
            return
        h = detail.health
        first, last = detail.receipts[0].at_utc, detail.receipts[-1].at_utc
        users, assistants = detail.scopes
        parts = [f"<b>{html.escape(detail.run_id)}</b>", f"{colors.swatch(h.color)} <b>{html.escape(str(h.color))}</b>",
                 f"{html.escape(str(h.state))} (rule {h.state.rule})",
                 f"lane {html.escape(users[0])} / {html.escape(assistants[0])}",
                 f"{local_time(first)} → {local_time(last)} local ({format_utc(first)} → {format_utc(last)})",
                 f"{len(detail.receipts)} receipts"]
        if detail.source_versions:
            parts.append("sourceVersion " + html.escape(", ".join(detail.source_versions)))
        if detail.canary:
            parts.append("<b>canary</b>")
        self.header.setText(" · ".join(parts))
        self.reason.setText(html.escape(h.reason))
        at_risk = h.color == Color.AT_RISK
        self.reconcile.setVisible(at_risk)
        self.copy.setVisible(at_risk and bool(detail.reconcile))
        if at_risk:
            pairs = "".join(f"<li><code>{html.escape(run)}</code> · version <code>{html.escape(v)}</code></li>"
                            for run, v in detail.reconcile)
            self.reconcile.setText(f"<b>To reconcile</b><ul style='margin:0'>{pairs}</ul>{html.escape(detail.advice)}")

    def copy_reconcile(self) -> None:
        if self.detail is not None:
            QGuiApplication.clipboard().setText("".join(f"{r}\t{v}\n" for r, v in self.detail.reconcile))

