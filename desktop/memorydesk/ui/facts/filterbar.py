"""The filter bar above the fact list: the search box and how it searches, filters, the
hidden-row count with a busy bar while the list is read, and a note line for what a
search has to say (nothing found by keyword, no vector voice …)."""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse import facts as browse
from memorydesk.browse.facts import DomainCount, FactQuery
from memorydesk.ui.widgets.filters import busy_bar, combo, counts_label

DAY = 86400
CREATED = (("Any time", None, None), ("Last 24 hours", -DAY, None), ("Last 7 days", -7 * DAY, None),
           ("Last 30 days", -30 * DAY, None), ("Older than 30 days", None, -30 * DAY),
           ("Older than a year", None, -365 * DAY))
MATCHES = (("Keyword search", "keyword", "The product's own keyword search: what an agent's search_memory finds "
            "in keyword mode (only a–z and 0–9 words count)."),
           ("Substring filter", "substring", "The desk's plain text filter on topic and content. Agents never search "
            "this way: use it to find facts, not to judge what agents see."))
#: the search box's placeholder, by what a search does now (``search_kind`` with the box empty)
PLACEHOLDERS = {"keyword": "Search facts as the agent's keyword search does  (Ctrl+F)",
                "substring": "Filter facts by text in their topic or content  (Ctrl+F)",
                "agent": "Search facts as the agent's hybrid search does  (Ctrl+F)"}
NARROW = 1100  # below this width the counts wrap
PENDING = {"counting": "counting…", "sorting": "sorting…", "searching": "searching…"}



class FilterBar(QWidget):
    changed = Signal()
    to_results = Signal()  # Enter or ↓ in the search box: the person moves on to the results

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setObjectName("search")
        self.search.setClearButtonEnabled(True)
        self.search.setPlaceholderText(PLACEHOLDERS["keyword"])
        self.agent_view = QCheckBox("As the agent sees it")
        self.agent_view.setObjectName("agent-view")
        self.agent_view.setToolTip("Show the agent's hybrid search for this text: its hits in its order, each "
                                   "with the voices, decay and confidence that placed it. A preview: no recall "
                                   "is recorded.")
        self.match = combo("match", [(label, value) for label, value, _tip in MATCHES], 14)
        for i, (_label, _value, tip) in enumerate(MATCHES):
            self.match.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)
        self.match.setToolTip(MATCHES[0][2])
        self.search_mode = QLabel("")
        self.search_mode.setObjectName("search-mode")
        self.counts = counts_label()
        self.busy = busy_bar()
        self.note = QLabel("")
        self.note.setObjectName("search-note")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setStyleSheet("QLabel { background: rgba(142, 68, 173, 28); border: 1px solid rgba(142, 68, 173, 90);"
                                " border-radius: 3px; padding: 3px 6px; }")
        self.note.hide()
        self.domain = combo("domain", [("All domains", None)], 13)
        self.memory_type = combo("memory_type", [("Any type", None)] + [(t, t) for t in browse.MEMORY_TYPES], 7)
        self.veracity = combo("veracity", [("Any veracity", None)] + [(v, v) for v in browse.VERACITIES], 7)
        self.state = combo("state", [("Active", "active"), ("All states", "all"), ("Expired", "expired"),
                                     ("Superseded", "superseded"), ("Deleted", "deleted")], 7)
        self.created = combo("created", [(label, i) for i, (label, _a, _b) in enumerate(CREATED)], 7)
        self.embedding = combo("embedding", [("Any embedding", None), ("With embedding", True),
                                             ("Without embedding", False)], 7)
        self.min_conf = self._spin("min_confidence", 0.0)
        self.max_conf = self._spin("max_confidence", 1.0)
        self.clear = QPushButton("Clear filters")
        self.clear.setObjectName("clear-filters")
        self.use_substring = QPushButton("Use Substring Filter")  # offered where keyword search cannot find them
        self.use_substring.setObjectName("use-substring")
        self.use_substring.hide()
        self.use_substring.clicked.connect(lambda: self.match.setCurrentIndex(self.match.findData("substring")))

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.search, 1)
        top.addWidget(self.match)
        top.addWidget(self.agent_view)
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
        row.addWidget(self.busy)
        row.addWidget(self.use_substring)
        row.addWidget(self.counts)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 0)
        outer.addLayout(top)
        outer.addLayout(row)
        outer.addWidget(self.note)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(250)
        self._debounce.timeout.connect(self.changed)
        self.search.textChanged.connect(lambda _t: self._debounce.start())
        self._debounce.timeout.connect(self._sync_enabled)
        for box in (self.domain, self.memory_type, self.veracity, self.state, self.created, self.embedding):
            box.currentIndexChanged.connect(lambda _i: self.changed.emit())
        for spin in (self.min_conf, self.max_conf):
            spin.valueChanged.connect(lambda _v: self._debounce.start())
        self.clear.clicked.connect(self.reset)
        self.search.installEventFilter(self)
        self._search_now = False
        self.match.currentIndexChanged.connect(self._match_changed)
        self.agent_view.toggled.connect(self._agent_toggled)

    def search_kind(self) -> str:
        """keyword | substring | agent (the agent view of a non-empty search)."""
        if self.agent_view.isChecked() and self.search.text().strip():
            return "agent"
        return str(self.match.currentData())

    def _placeholder(self) -> None:
        """The box says what a search does now: the agent view, or the chosen match."""
        self.search.setPlaceholderText(PLACEHOLDERS["agent" if self.agent_view.isChecked()
                                                    else str(self.match.currentData())])

    def _match_changed(self, index: int) -> None:
        self.match.setToolTip(MATCHES[index][2])
        self._placeholder()
        if self.search.text().strip():
            self.changed.emit()

    def _agent_toggled(self, _on: bool) -> None:
        self._placeholder()
        self._sync_enabled()
        self.changed.emit()

    def _sync_enabled(self) -> None:
        """The agent view ignores the match choice and the filters: say so by disabling them."""
        self.match.setEnabled(not self.agent_view.isChecked())
        on = self.search_kind() == "agent"
        why = "The agent view lists the agent's hits, whatever these filters say" if on else ""
        for w in (self.domain, self.memory_type, self.veracity, self.state, self.created, self.embedding,
                  self.min_conf, self.max_conf):
            w.setEnabled(not on)
            w.setToolTip(why)

    def set_search(self, text: str, agent_view: bool = False) -> None:
        """Search for ``text`` now (no typing pause), as the agent sees it or by the chosen match."""
        for w in (self.search, self.agent_view):
            w.blockSignals(True)
        self.search.setText(text)
        self.agent_view.setChecked(agent_view)
        for w in (self.search, self.agent_view):
            w.blockSignals(False)
        self._debounce.stop()
        self._placeholder()
        self._sync_enabled()
        self.changed.emit()

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

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
        widgets = (self.search, self.match, self.agent_view, self.domain, self.memory_type, self.veracity,
                   self.state, self.created, self.embedding, self.min_conf, self.max_conf)
        for w in widgets:
            w.blockSignals(True)
        self.search.clear()
        self.match.setCurrentIndex(0)
        self.agent_view.setChecked(False)
        for box in (self.domain, self.memory_type, self.veracity, self.state, self.created, self.embedding):
            box.setCurrentIndex(0)
        self.min_conf.setValue(0.0)
        self.max_conf.setValue(1.0)
        for w in widgets:
            w.blockSignals(False)
        self._placeholder()
        self._sync_enabled()
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

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Enter in the search box searches at once (no wait for the pause) and moves to the
        results; ↓ moves to them too."""
        if watched is self.search and event.type() == QEvent.Type.KeyPress and not event.modifiers() \
                & ~Qt.KeyboardModifier.KeypadModifier:
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._search_now = self._debounce.isActive()
                if self._search_now:
                    self._debounce.stop()
                    self.changed.emit()
                    self._sync_enabled()
                self.to_results.emit()
                self._search_now = False
                return True
            if event.key() == Qt.Key.Key_Down:
                self.to_results.emit()
                return True
        return super().eventFilter(watched, event)

    def searching_now(self) -> bool:
        """Whether the Enter being handled started a search (its list is still to come)."""
        return self._search_now

    def resizeEvent(self, event: QResizeEvent) -> None:
        # "N of M facts · K hidden" on two lines where the bar is narrow (900 px), else on one
        self.counts.setWordWrap(event.size().width() < NARROW)
        super().resizeEvent(event)

    def show_counts(self, shown: int | None, total: int | None, pending: str | None = None,
                    order: str = "", searched: bool = False, hits: int | None = None) -> None:
        """``shown`` None: not known yet (``pending`` says why: counting, sorting, searching);
        with ``pending`` and ``shown`` the rows already there (``200+``). ``searched``: the
        rows are a search's hits, not just what the filters leave; ``hits``: a keyword
        search's, counted against what it found (the filters may hide some)."""
        self.busy.setVisible(pending is not None)
        unfindable = self.state.currentData() in ("deleted", "superseded") and hits is not None \
            and self.match.currentData() == "keyword"
        self.use_substring.setVisible(unfindable and pending is None)
        if unfindable and pending is None and shown is not None:
            state = self.state.currentData()
            self.counts.setText(f"{shown:,} of {hits:,} hits listed · {hits - shown:,} hidden by the filters: keyword "
                                f"search (the agent's) never returns {state} facts — use the substring filter to "
                                "find them")
            self.counts.setToolTip(order)
            return
        if pending is not None:
            head = f"{shown:,}+ facts · " if shown else ""
            self.counts.setText(head + PENDING.get(pending, pending))
        elif hits is not None and shown is not None:
            if shown == hits:
                self.counts.setText(f"{hits:,} hit{'s' if hits != 1 else ''} listed")
            else:
                self.counts.setText(f"{shown:,} of {hits:,} hits listed · {hits - shown:,} hidden by the filters")
        elif shown is None:
            self.counts.setText("")
        elif total is None or total == shown:
            self.counts.setText(f"{shown:,} facts")
        elif searched:
            self.counts.setText(f"{shown:,} of {total:,} facts found")
        else:
            self.counts.setText(f"{shown:,} of {total:,} facts · {total - shown:,} hidden")
        self.counts.setToolTip(order)
