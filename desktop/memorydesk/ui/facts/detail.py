"""The detail pane: every field of the selected fact, its supersession chain, history,
conflicts, edges, and its decay curve (pyqtgraph); a marker when the agent's keyword
search can never return it; in the agent view, why the agent's search placed it where
it did."""

from __future__ import annotations

import html
import time
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QApplication,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.detail import FactRecord
from memorydesk.memory.history.record import HistoryEntry
from memorydesk.ui.facts import decay
from memorydesk.ui.facts.model import UNREACHABLE_TIP, unreachable_icon
from memorydesk.ui.facts.recall_page import RecallPage
from memorydesk.ui.widgets.splitter import splitter
from memorydesk.ui.widgets.text import direction, when

FIELDS = (
    ("id", "Id"), ("domain", "Domain"), ("state", "State"), ("memory_type", "Type"), ("veracity", "Veracity"),
    ("confidence", "Confidence"), ("created_at", "Created"), ("updated_at", "Updated"),
    ("valid_until", "Valid until"), ("recall_count", "Recalls"), ("last_recalled_at", "Last recalled"),
    ("mention_count", "Mentions"), ("keyword_reachable", "Keyword search"), ("authored_by_agent_id", "Author agent"),
    ("authored_by_role", "Author role"),
    ("superseded_by", "Superseded by"), ("source_observation_ids", "Source observations"),
    ("temporal_tags", "Temporal tags"), ("embedding_bytes", "Embedding"), ("workspace_id", "Workspace"),
)
TIMES = {"created_at", "updated_at", "valid_until", "last_recalled_at"}


def _section(title: str) -> QLabel:
    label = QLabel(f"<b>{html.escape(title)}</b>")
    label.setContentsMargins(0, 8, 0, 0)
    return label


def _link(fid: str, topic: str | None, state: str | None) -> str:
    text = html.escape(topic or fid)
    tail = f" <i>({html.escape(state)})</i>" if state else ""
    return f'<a href="fact:{html.escape(fid)}">{text}</a>{tail}'


class DecayPlot(QWidget):
    """The decay curve of the fact shown. Its plot (pyqtgraph, with numpy behind it) is made
    when the first fact is shown, so the window's first paint never waits for it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot: Any = None
        self.caption = QLabel("")
        self.caption.setObjectName("decay-caption")
        self.caption.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)

    def _make_plot(self) -> None:
        import pyqtgraph as pg

        pal = QApplication.palette()
        self.plot = pg.PlotWidget(background=pal.color(QPalette.ColorRole.Base))
        self.plot.setObjectName("decay-plot")
        self.plot.setMinimumHeight(120)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setLabel("bottom", "age (days)")
        self.plot.setLabel("left", "weight")
        self.plot.setYRange(0, 1.02, padding=0)
        # items are made once and updated (clearing and re-adding items per fact is slow and fragile)
        self.curve = self.plot.plot([], [], pen=pg.mkPen(pal.color(QPalette.ColorRole.Highlight), width=2))
        self.half_line = pg.InfiniteLine(pos=0, angle=90, pen=pg.mkPen(
            pal.color(QPalette.ColorRole.PlaceholderText), style=Qt.PenStyle.DashLine))
        self.today_line = pg.InfiniteLine(pos=0, angle=90, pen=pg.mkPen("#d9822b", width=2))
        self.plot.addItem(self.half_line)
        self.plot.addItem(self.today_line)
        self.today_dot = self.plot.plot([], [], pen=None, symbol="o", symbolBrush="#d9822b", symbolSize=8)
        self.layout().insertWidget(0, self.plot)

    def show_fact(self, memory_type: str | None, created_at: int, now: float | None = None) -> None:
        if self.plot is None:
            self._make_plot()
        name, k, eta = decay.params(memory_type)
        age_h = max(0.0, ((now or time.time()) - created_at) / 3600)
        half = decay.half_life_hours(memory_type)
        span_h = max(age_h * 1.5, half * 3, 48.0)
        steps = 200
        xs = [span_h * i / steps for i in range(steps + 1)]
        ys = [decay.weight(x, memory_type) for x in xs]
        today = decay.weight(age_h, memory_type)
        self.curve.setData([x / 24 for x in xs], ys)
        self.half_line.setValue(half / 24)
        self.today_line.setValue(age_h / 24)
        self.today_dot.setData([age_h / 24], [today])
        self.plot.setXRange(0, span_h / 24, padding=0.02)
        self.caption.setText(
            f"Decay of a “{name}” (k {k}, η {eta:.0f} h): today (orange) age {decay.human_hours(age_h)}, "
            f"weight {today:.2f}; half-life {decay.human_hours(half)} (dashed). Search multiplies scores "
            f"by 0.02 + 0.98 × weight.")


def _scroll(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(widget)
    return area


class FactDetail(QWidget):
    """Shows one fact in three columns (text | fields, chain, history, links | decay);
    ``open_fact`` is emitted when a linked fact is clicked."""

    open_fact = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fact-detail")
        self.title = QLabel("")
        self.title.setObjectName("detail-title")
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        self.title.setFont(font)
        self.content = QPlainTextEdit()
        self.content.setObjectName("detail-content")
        self.content.setReadOnly(True)
        self.unreachable = QWidget()
        self.unreachable.setObjectName("detail-unreachable")
        icon = QLabel()
        icon.setPixmap(unreachable_icon().pixmap(16, 16))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        words = QLabel("<b>Unreachable by keyword search.</b> Its topic and content have no a–z/0–9 word the "
                       "product's keyword search could match: agents never get it from a keyword search or "
                       "a dispatch preamble.")
        words.setWordWrap(True)
        words.setToolTip(UNREACHABLE_TIP)
        ul = QHBoxLayout(self.unreachable)
        ul.setContentsMargins(4, 2, 4, 2)
        ul.addWidget(icon)
        ul.addWidget(words, 1)
        self.unreachable.setStyleSheet("#detail-unreachable { background: rgba(142, 68, 173, 28); "
                                       "border: 1px solid rgba(142, 68, 173, 90); border-radius: 3px; }")
        self.unreachable.hide()
        text_col = QWidget()
        tl = QVBoxLayout(text_col)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.title)
        tl.addWidget(self.unreachable)
        tl.addWidget(self.content, 1)

        fields = QWidget()
        self.form = QFormLayout(fields)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.values: dict[str, QLabel] = {}
        for key, label in FIELDS:
            value = QLabel("")
            value.setObjectName(f"field-{key}")
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.values[key] = value
            self.form.addRow(label, value)
        self.chain = self._links("chain")
        self.history = self._links("history")
        self.conflicts = self._links("conflicts")
        self.edges = self._links("edges")
        links = QWidget()
        ll = QVBoxLayout(links)
        for title, widget in (("Supersession chain", self.chain), ("History", self.history),
                              ("Conflicts", self.conflicts), ("Episodic edges", self.edges)):
            ll.addWidget(_section(title))
            ll.addWidget(widget)
        ll.addStretch(1)
        self.pages = QTabWidget()
        self.pages.setObjectName("detail-pages")
        self.pages.setDocumentMode(True)
        self.why = QLabel("")
        self.why.setObjectName("detail-why")
        self.why.setWordWrap(True)
        self.why.setTextFormat(Qt.TextFormat.RichText)
        self.why.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.why.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.why.setContentsMargins(4, 4, 4, 4)
        self.pages.addTab(_scroll(self.why), "Why this place")
        self.pages.addTab(_scroll(fields), "Fields")
        self.pages.addTab(_scroll(links), "Chain, history, links")
        self.recall = RecallPage()
        self.pages.addTab(_scroll(self.recall), "Agent recall")
        self.pages.setTabVisible(0, False)
        self.decay = DecayPlot()
        self.placeholder = QLabel("Select a fact to see everything about it: every field, its supersession "
                                  "chain, history, conflicts, edges and decay curve.")
        self.placeholder.setObjectName("detail-placeholder")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.text_col = text_col
        self.columns = QWidget()
        cl = QHBoxLayout(self.columns)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(text_col, 4)
        cl.addWidget(self.pages, 4)
        cl.addWidget(self.decay, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.addWidget(self.placeholder)
        layout.addWidget(self.columns, 1)
        self.fact_id: str | None = None
        self.show_fact(None)

    def stack(self) -> QSplitter:
        """Lay the detail out for a narrow side panel: the text above the pages (a splitter
        between them), the decay plot a page of its own instead of a third column."""
        self.pages.addTab(self.decay, "Decay")
        split = splitter(Qt.Orientation.Vertical, self.text_col, self.pages, name="detail-stack", stretch=(2, 3),
                         sizes=(200, 300), collapsible=False)
        self.columns.layout().addWidget(split)
        return split

    def set_agent_view(self, on: bool) -> None:
        """Show the "Why this place" page (first) in the agent view, hide it otherwise."""
        was = self.pages.isTabVisible(0)
        self.pages.setTabVisible(0, on)
        if on and not was:
            self.pages.setCurrentIndex(0)
        elif not on and self.pages.currentIndex() == 0:
            self.pages.setCurrentIndex(1)
        if not on:
            self.why.setText("")

    def show_hit(self, text: str) -> None:
        """The explanation of the selected hit's place (rich text)."""
        self.why.setText(text)

    def _links(self, name: str) -> QLabel:
        label = QLabel("")
        label.setObjectName(f"detail-{name}")
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.linkActivated.connect(lambda href: self.open_fact.emit(href.removeprefix("fact:")))
        return label

    def show_fact(self, d: FactRecord | None, history: list[HistoryEntry] | None = None) -> None:
        self.fact_id = d.id if d else None
        self.placeholder.setVisible(d is None)
        self.columns.setVisible(d is not None)
        if d is None:
            self.recall.set_fact(None, "")
            self.unreachable.hide()
            self.title.setText("Select a fact to see everything about it.")
            self.content.setPlainText("")
            for value in self.values.values():
                value.setText("")
            for w in (self.chain, self.history, self.conflicts, self.edges):
                w.setText("")
            return
        self.unreachable.setVisible(d.superseded_by is None and not d.keyword_reachable)
        self.recall.set_fact(d.id, d.topic)
        self.title.setText(d.topic)
        self.title.setLayoutDirection(direction(d.topic))
        self.content.setPlainText(d.content)
        for key, _label in FIELDS:
            self.values[key].setText(self._value(d, key))
        older = [_link(x.id, x.topic, x.state) for x in reversed(d.older)]
        newer = [_link(x.id, x.topic, x.state) if x.topic is not None
                 else f"{html.escape(x.id)} <i>({x.state})</i>" for x in d.newer]
        steps = older + ["<b>this fact</b>"] + newer
        self.chain.setText(" → ".join(steps) if len(steps) > 1 else "Not part of a supersession chain.")
        self.conflicts.setText("<br>".join(
            f"{html.escape(c.conflict_type)}: this fact is the {c.role} against "
            f"{_link(c.other_id, c.other_topic, None)} — {html.escape(c.resolution or 'open')}, "
            f"{when(c.created_at)}" for c in d.conflicts) or "No conflicts.")
        self.edges.setText("<br>".join(
            f"{'→' if e.direction == 'out' else '←'} {html.escape(e.edge_type)} "
            f"{_link(e.other_id, e.other_topic, None)} (weight {e.weight:.2f})" for e in d.edges)
            or "No edges.")
        self.show_history(history)
        self.decay.show_fact(d.memory_type, d.created_at)

    def show_history(self, history: list[HistoryEntry] | None) -> None:
        if history is None:
            self.history.setText("<i>History is not available in this build.</i>")
            return
        lines = []
        for h in history:
            reason = f" — “{html.escape(h.reason)}”" if h.reason else ""
            undone = " <i>(undone)</i>" if h.undone_by else ""
            lines.append(f"{when(h.at)} {html.escape(h.action)} by {html.escape(h.actor)}{reason}{undone}")
        self.history.setText("<br>".join(lines) or "No changes recorded by the desk.")

    @staticmethod
    def _value(d: FactRecord, key: str) -> str:
        value = getattr(d, key)
        if key in TIMES:
            return when(value)
        if key == "confidence":  # the value stored, not rounded (the list shows two decimals)
            return f"{value:.15g}"
        if key == "source_observation_ids":
            return ", ".join(value) if value else "none"
        if key == "embedding_bytes":
            if value is None:
                return "none"
            return f"{value} bytes" + ("" if value == 1536 else " (malformed: expected 1,536)")
        if key == "keyword_reachable":
            if value is None:
                return "—"
            return "reachable" if value else "unreachable: no a–z/0–9 word a keyword query could match"
        if key == "memory_type":
            name, _k, _eta = decay.params(value)
            return value if value == name else f"{value!r} (read as {name})"
        if value is None or value == "":
            return "—"
        return str(value)
