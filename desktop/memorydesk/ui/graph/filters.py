"""The filter bar and legend of the Knowledge Graph: domain, agent, memory type, age, the
"superseded" switch, a search box, and the edge kinds (each a checkable swatch, which is
also the legend)."""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QToolButton, QVBoxLayout, QWidget

from memorydesk.browse.graph.data import DOMAIN, EDGE_KINDS, FACT, POLICY, TOPIC, GraphData
from memorydesk.ui.graph.flow import FlowLayout
from memorydesk.ui.graph.style import DOMAIN_PALETTE, EDGE_COLOURS, EDGE_LABELS, NODE_COLOURS, darker
from memorydesk.ui.widgets.filters import combo

AGES = (("any age", None), ("last 7 days", (0, 7)), ("last 30 days", (0, 30)), ("last 90 days", (0, 90)),
        ("older than 30 days", (30, None)), ("older than 90 days", (90, None)))
DAY = 86400


def _swatch(colour: str, text: str, shape: str = "■") -> str:
    return f"<span style='color:{colour}; font-size:large'>{shape}</span> {text}"


#: the nodes' legend: (what it shows, what it says in full)
LEGEND = (
    (_swatch(NODE_COLOURS["domain"], "domain", "●"), "A domain: the tinted disc holds its topics and facts"),
    (_swatch(darker(DOMAIN_PALETTE[0]), "topic", "●"),
     "A topic: a darker dot of its domain's colour, bigger the more facts it has (a ring when zoomed in)"),
    (_swatch(DOMAIN_PALETTE[0], "fact", "•"), "A fact, in its domain's colour; faded when superseded or deleted"),
    (_swatch(NODE_COLOURS["policy"], "policy", "◆"), "A policy, beside the facts it was promoted from"),
    (_swatch(NODE_COLOURS["belief"], "belief", "▲"), "A belief, beside the facts behind it"),
    (_swatch(NODE_COLOURS["missing"], "missing", "✕"), "A missing fact: an id that references name but no fact has"),
)


class GraphFilters(QWidget):
    changed = Signal()
    search = Signal(str)
    #: ``key()`` as the filters start: every domain, agent, type and age, no superseded fact, every kind
    DEFAULT_KEY = (None, None, None, 0, False, (True,) * len(EDGE_KINDS))

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graph-filters")
        self.domain = self._combo("graph-domain", "All domains")
        self.agent = self._combo("graph-agent", "All agents")
        self.mtype = self._combo("graph-type", "All memory types")
        self.age = QComboBox()
        self.age.setObjectName("graph-age")
        for label, span in AGES:
            self.age.addItem(label, span)
        self.age.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.superseded = QCheckBox("Superseded")
        self.superseded.setObjectName("graph-superseded")
        self.superseded.setToolTip("Show superseded and deleted facts too (drawn faded): the graph voice walks "
                                   "through them but never recalls them.")
        self.superseded.toggled.connect(lambda _on: self.changed.emit())
        self.find = QLineEdit()
        self.find.setObjectName("graph-search")
        self.find.setPlaceholderText("Find a fact: id or words of its topic (Enter focuses it)")
        self.find.setClearButtonEnabled(True)
        self.find.returnPressed.connect(lambda: self.search.emit(self.find.text().strip()))
        self.kinds: dict[str, QToolButton] = {}
        row1 = QHBoxLayout()
        row1.setContentsMargins(0, 0, 0, 0)
        for w in (self.domain, self.agent, self.mtype, self.age, self.superseded):
            row1.addWidget(w)
        row1.addWidget(self.find, 1)
        row2 = FlowLayout(spacing=4)
        row2.addWidget(QLabel("Edges:"))
        for kind in EDGE_KINDS:
            button = QToolButton()
            button.setObjectName(f"graph-kind-{kind}")
            button.setCheckable(True)
            button.setChecked(True)
            button.setText(f"■ {EDGE_LABELS[kind]}")
            button.setToolTip(f"Show or hide {EDGE_LABELS[kind]} edges")
            button.toggled.connect(lambda on, b=button, c=EDGE_COLOURS[kind]: self._paint_kind(b, c, on))
            button.toggled.connect(lambda _on: self.changed.emit())
            self._paint_kind(button, EDGE_COLOURS[kind], True)
            self.kinds[kind] = button
            row2.addWidget(button)
        self.legend: list[QLabel] = []
        for i, (text, tip) in enumerate(LEGEND):
            label = QLabel(("<span style='color:#7f8c8d'>Nodes:</span> " if i == 0 else "") + text)
            label.setObjectName(f"graph-legend-{i}")
            label.setToolTip(tip)
            label.setContentsMargins(8 if i == 0 else 2, 0, 2, 0)
            self.legend.append(label)
            row2.addWidget(label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 2)
        layout.setSpacing(2)
        layout.addLayout(row1)
        layout.addLayout(row2)  # wraps onto a second line when the window is narrow

    @staticmethod
    def _paint_kind(button: QToolButton, colour: str, on: bool) -> None:
        font = button.font()
        font.setStrikeOut(not on)
        button.setFont(font)
        button.setStyleSheet(f"QToolButton {{ color: {colour if on else '#aab0b3'}; border: none; padding: 1px 3px; }}")

    def _combo(self, name: str, everything: str) -> QComboBox:
        box = combo(name, [(everything, None)], 12)
        box.currentIndexChanged.connect(lambda _i: self.changed.emit())
        return box

    def set_graph(self, g: GraphData) -> None:
        """Fill the choices (keeping what is chosen when it still exists)."""
        for box, items in ((self.domain, sorted((g.labels[d], int(d)) for d in g.of_kind(DOMAIN))),
                           (self.agent, sorted((g.agent_names.get(a, a[:8]), i) for i, a in enumerate(g.agents))),
                           (self.mtype, sorted((t, i) for i, t in enumerate(g.memory_types)))):
            current = box.currentText()
            box.blockSignals(True)
            while box.count() > 1:
                box.removeItem(1)
            for label, value in items:
                box.addItem(label or "—", value)
            box.setCurrentIndex(max(box.findText(current), 0))
            box.blockSignals(False)

    def key(self) -> tuple:
        """What the filters are set to (pictures are kept per key)."""
        return (self.domain.currentData(), self.agent.currentData(), self.mtype.currentData(),
                self.age.currentIndex(), self.superseded.isChecked(),
                tuple(self.kinds[k].isChecked() for k in EDGE_KINDS))

    def kind_mask(self) -> np.ndarray:
        return np.array([self.kinds[k].isChecked() for k in EDGE_KINDS], bool)

    def node_mask(self, g: GraphData, now: float | None = None) -> np.ndarray:
        """Which nodes the filters let through (domains, topics: when any of their facts is shown)."""
        facts = g.kind == FACT
        show = np.ones(g.n, bool)
        if not self.superseded.isChecked():
            show &= ~(facts & (g.state >= 2))
        domain = self.domain.currentData()
        if domain is not None:
            show &= (g.domain == domain) | (g.kind >= 5)  # missing facts stay (they have no domain)
        agent = self.agent.currentData()
        if agent is not None:
            show &= ~facts | (g.agent == agent)
        mtype = self.mtype.currentData()
        if mtype is not None:
            show &= ~facts | (g.mtype == mtype)
        span = self.age.currentData()
        if span is not None:
            age = ((now or time.time()) - g.created) / DAY
            lo, hi = span
            inside = (age >= lo) & (age <= hi if hi is not None else True)
            show &= ~facts | inside
        narrowed = domain is not None or agent is not None or mtype is not None or span is not None
        if narrowed:  # topics and domains only where a shown fact is; policies with a shown domain
            shown_facts = np.flatnonzero(show & facts)
            has = np.zeros(g.n, bool)
            has[g.topic[shown_facts]] = True
            has[g.domain[shown_facts]] = True
            show &= ~((g.kind == TOPIC) | (g.kind == DOMAIN)) | has
            if domain is not None:
                show &= (g.kind != POLICY) | (g.domain == domain)
        return show

    def active_text(self) -> str:
        parts = [box.currentText() for box in (self.domain, self.agent, self.mtype) if box.currentIndex() > 0]
        if self.age.currentIndex() > 0:
            parts.append(self.age.currentText())
        off = [EDGE_LABELS[k] for k, b in self.kinds.items() if not b.isChecked()]
        if off:
            parts.append("hidden: " + ", ".join(off))
        return " · ".join(parts)
