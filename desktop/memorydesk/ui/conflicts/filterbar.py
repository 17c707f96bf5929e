"""The filter bar of the Conflicts tab: type, state, domain, agent, time, text, and
"touches fact X"; the counts, with a busy bar while the list is read."""

from __future__ import annotations

import datetime as dt
import time

from PySide6.QtCore import QDate, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDateEdit,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from memorydesk.browse.conflicts.listing import ConflictQuery
from memorydesk.ui.widgets.filters import busy_bar, combo, counts_label

DAY = 86_400
TIMES = (("Any time", None), ("Last 24 hours", DAY), ("Last 7 days", 7 * DAY), ("Last 30 days", 30 * DAY),
         ("Between dates…", "dates"))
STATES = (("All states", "all"), ("Open", "open"), ("Resolved", "resolved"), ("Reviewed in the desk", "reviewed"),
          ("Dangling (a fact is missing)", "dangling"))



class ConflictFilterBar(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.type = combo("type", [("All types", None), ("Contradictions", "contradiction"),
                                    ("Cross-agent", "cross_agent")])
        self.state = combo("state", list(STATES))
        self.domain = combo("domain", [("All domains", None)], 12)
        self.domain.view().setTextElideMode(Qt.TextElideMode.ElideMiddle)  # repo:<slug>/x keeps both ends
        self.agent = combo("agent", [("Any agent", None)], 9)
        self.time = combo("time", list(TIMES))
        today = QDate.currentDate()
        self.since = QDateEdit(today.addDays(-30))
        self.until = QDateEdit(today)
        for name, edit in (("since", self.since), ("until", self.until)):
            edit.setObjectName(name)
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.hide()
        self.text = QLineEdit()
        self.text.setObjectName("text")
        self.text.setClearButtonEnabled(True)
        self.text.setPlaceholderText("Text in either fact")
        self.fact = QLineEdit()
        self.fact.setObjectName("fact")
        self.fact.setClearButtonEnabled(True)
        self.fact.setPlaceholderText("Touches fact (id)")
        self.clear = QPushButton("Clear")
        self.clear.setObjectName("clear-filters")
        self.counts = counts_label()
        self.busy = busy_bar()

        grid = QGridLayout(self)
        grid.setContentsMargins(6, 6, 6, 0)
        for i, (w, stretch) in enumerate(((self.type, 2), (self.state, 2), (self.domain, 3), (self.agent, 2))):
            grid.addWidget(w, 0, i)
            grid.setColumnStretch(i, stretch)
        times = QHBoxLayout()
        times.setContentsMargins(0, 0, 0, 0)
        for w in (self.time, self.since, self.until):
            times.addWidget(w)
        grid.addLayout(times, 0, 4)
        grid.addWidget(self.text, 1, 0, 1, 2)
        grid.addWidget(self.fact, 1, 2)
        tail = QHBoxLayout()
        tail.setContentsMargins(0, 0, 0, 0)
        tail.addWidget(self.clear)
        tail.addWidget(self.busy)
        tail.addWidget(self.counts, 1)
        grid.addLayout(tail, 1, 3, 1, 2)

        self._typing = QTimer(self)
        self._typing.setSingleShot(True)
        self._typing.setInterval(350)
        self._typing.timeout.connect(self.changed)
        for box in (self.type, self.state, self.domain, self.agent):
            box.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.time.currentIndexChanged.connect(self._time_changed)
        for edit in (self.since, self.until):
            edit.dateChanged.connect(lambda _d: self.changed.emit())
        for line in (self.text, self.fact):
            line.textChanged.connect(lambda _t: self._typing.start())
            line.returnPressed.connect(self._now)
        self.clear.clicked.connect(self.reset)
        self.setTabOrder(self.type, self.state)
        self.setTabOrder(self.state, self.domain)
        self.setTabOrder(self.domain, self.agent)
        self.setTabOrder(self.agent, self.time)
        self.setTabOrder(self.time, self.text)
        self.setTabOrder(self.text, self.fact)
        self.setTabOrder(self.fact, self.clear)

    def _now(self) -> None:
        self._typing.stop()
        self.changed.emit()

    def _time_changed(self, _index: int) -> None:
        dates = self.time.currentData() == "dates"
        self.since.setVisible(dates)
        self.until.setVisible(dates)
        self.changed.emit()

    def query(self, now: float | None = None) -> ConflictQuery:
        since = until = None
        span = self.time.currentData()
        if span == "dates":
            since = _epoch(self.since.date())
            until = _epoch(self.until.date()) + DAY - 1
        elif span is not None:
            since = int((now if now is not None else time.time()) - span)
        return ConflictQuery(type=self.type.currentData(), state=self.state.currentData(),
                             domain=self.domain.currentData(), agent=self.agent.currentData(), since=since,
                             until=until, text=self.text.text().strip(), fact=self.fact.text().strip() or None)

    def set_choices(self, domains: list[str], agents: list[tuple[str, str]]) -> None:
        """The domains and agents to pick from (kept selected when still there)."""
        for box, items in ((self.domain, [(d, d) for d in domains]), (self.agent, agents)):
            current = box.currentData()
            box.blockSignals(True)
            while box.count() > 1:
                box.removeItem(1)
            for label, value in items:
                box.addItem(label, value)
                box.setItemData(box.count() - 1, label, Qt.ItemDataRole.ToolTipRole)  # the whole name
            found = box.findData(current) if current is not None else 0
            box.setCurrentIndex(max(found, 0))
            box.blockSignals(False)

    def reset(self, *, fact: str | None = None) -> None:
        """Every filter off (and, with ``fact``, only that fact's conflicts), then one reload."""
        self._typing.stop()
        for w in (self.type, self.state, self.domain, self.agent, self.time, self.text, self.fact):
            w.blockSignals(True)
        for box in (self.type, self.state, self.domain, self.agent, self.time):
            box.setCurrentIndex(0)
        self.since.hide()
        self.until.hide()
        self.text.clear()
        self.fact.setText(fact or "")
        for w in (self.type, self.state, self.domain, self.agent, self.time, self.text, self.fact):
            w.blockSignals(False)
        self.changed.emit()

    def show_counts(self, lines: int | None, rows: int | None, pending: str = "") -> None:
        self.busy.setVisible(bool(pending))
        if lines is None:
            self.counts.setText(pending)
            return
        text = f"{lines:,} line{'s' if lines != 1 else ''}"
        if rows is not None and rows != lines:
            text += f" ({rows:,} rows)"
        self.counts.setText(text + (f" · {pending}" if pending else ""))


def _epoch(date: QDate) -> int:
    return int(dt.datetime(date.year(), date.month(), date.day()).timestamp())


__all__ = ["ConflictFilterBar"]
