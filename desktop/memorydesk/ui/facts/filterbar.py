"""The filter bar above the fact list: search box, filters, and the hidden-row count."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget,
)

from memorydesk.memory import browse
from memorydesk.memory.browse import DomainCount, FactQuery

DAY = 86400
CREATED = (("Any time", None, None), ("Last 24 hours", -DAY, None), ("Last 7 days", -7 * DAY, None),
           ("Last 30 days", -30 * DAY, None), ("Older than 30 days", None, -30 * DAY),
           ("Older than a year", None, -365 * DAY))


def _combo(name: str, items: list[tuple[str, object]]) -> QComboBox:
    box = QComboBox()
    box.setObjectName(name)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(7)
    for label, value in items:
        box.addItem(label, value)
    return box


class FilterBar(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setObjectName("search")
        self.search.setClearButtonEnabled(True)
        self.search.setPlaceholderText("Filter by text in topic or content  (Ctrl+F)")
        self.search_mode = QLabel("substring filter")
        self.search_mode.setObjectName("search-mode")
        self.counts = QLabel("")
        self.counts.setObjectName("counts")
        self.domain = _combo("domain", [("All domains", None)])
        self.domain.setMinimumContentsLength(13)
        self.memory_type = _combo("memory_type", [("Any type", None)] + [(t, t) for t in browse.MEMORY_TYPES])
        self.veracity = _combo("veracity", [("Any veracity", None)] + [(v, v) for v in browse.VERACITIES])
        self.state = _combo("state", [("Active", "active"), ("All states", "all"), ("Expired", "expired"),
                                      ("Superseded", "superseded"), ("Deleted", "deleted")])
        self.created = _combo("created", [(label, i) for i, (label, _a, _b) in enumerate(CREATED)])
        self.embedding = _combo("embedding", [("Any embedding", None), ("With embedding", True),
                                              ("Without embedding", False)])
        self.min_conf = self._spin("min_confidence", 0.0)
        self.max_conf = self._spin("max_confidence", 1.0)
        self.clear = QPushButton("Clear filters")
        self.clear.setObjectName("clear-filters")

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.search, 1)
        top.addWidget(self.search_mode)
        top.addSpacing(12)
        top.addWidget(QLabel("Confidence"))
        top.addWidget(self.min_conf)
        top.addWidget(QLabel("–"))
        top.addWidget(self.max_conf)
        top.addWidget(self.clear)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        for w, stretch in ((self.domain, 3), (self.memory_type, 2), (self.veracity, 2), (self.state, 2),
                           (self.created, 2), (self.embedding, 2)):
            row.addWidget(w, stretch)
        row.addSpacing(12)
        row.addWidget(self.counts)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 0)
        outer.addLayout(top)
        outer.addLayout(row)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(250)
        self._debounce.timeout.connect(self.changed)
        self.search.textChanged.connect(lambda _t: self._debounce.start())
        for box in (self.domain, self.memory_type, self.veracity, self.state, self.created, self.embedding):
            box.currentIndexChanged.connect(lambda _i: self.changed.emit())
        for spin in (self.min_conf, self.max_conf):
            spin.valueChanged.connect(lambda _v: self._debounce.start())
        self.clear.clicked.connect(self.reset)

    @staticmethod
    def _spin(name: str, value: float) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setObjectName(name)
        spin.setRange(0.0, 1.0)
        spin.setSingleStep(0.05)
        spin.setDecimals(2)
        spin.setValue(value)
        return spin

    def reset(self) -> None:
        widgets = (self.search, self.domain, self.memory_type, self.veracity, self.state, self.created,
                   self.embedding, self.min_conf, self.max_conf)
        for w in widgets:
            w.blockSignals(True)
        self.search.clear()
        for box in (self.domain, self.memory_type, self.veracity, self.state, self.created, self.embedding):
            box.setCurrentIndex(0)
        self.min_conf.setValue(0.0)
        self.max_conf.setValue(1.0)
        for w in widgets:
            w.blockSignals(False)
        self.changed.emit()

    def set_domains(self, items: list[DomainCount]) -> None:
        current = self.domain.currentData()
        self.domain.blockSignals(True)
        self.domain.clear()
        self.domain.addItem("All domains", None)
        for slug, members in sorted(browse.repo_groups(items).items()):
            total = sum(m.count for m in members)
            self.domain.addItem(f"repo:{slug}/*  (whole repo, {total:,})", f"repo:{slug}/*")
        bare_in_repos = {m.bare for m in items if m.repo is not None}
        for item in items:
            self.domain.addItem(f"{item.name}  ({item.count:,})", item.name)
            if item.repo is None and item.name in bare_in_repos:
                self.domain.addItem(f"*/{item.name}  (with repo-scoped forms)", f"*/{item.name}")
        found = self.domain.findData(current)
        self.domain.setCurrentIndex(max(0, found))
        self.domain.blockSignals(False)

    def query(self, base: FactQuery) -> FactQuery:
        now = int(time.time())
        _label, since, before = CREATED[int(self.created.currentData() or 0)]
        lo, hi = self.min_conf.value(), self.max_conf.value()
        return base.with_(
            domain=self.domain.currentData(), memory_type=self.memory_type.currentData(),
            veracity=self.veracity.currentData(), state=self.state.currentData() or "all",
            created_from=now + since if since is not None else None,
            created_to=now + before if before is not None else None,
            has_embedding=self.embedding.currentData(),
            min_confidence=lo if lo > 0 else None, max_confidence=hi if hi < 1 else None,
            text=self.search.text(),
        )

    def show_counts(self, shown: int | None, total: int | None) -> None:
        if shown is None:
            self.counts.setText("counting…")
        elif total is None or total == shown:
            self.counts.setText(f"{shown:,} facts")
        else:
            self.counts.setText(f"{shown:,} of {total:,} facts · {total - shown:,} hidden by filters")
