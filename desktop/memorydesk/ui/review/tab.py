"""The Review tab: what in memory a person should look at first.

Findings worst first (severity, then reach), grouped by kind with counts (the list on
the left), filtered by severity, domain and state; the evidence of the selected one and
its actions on the right. The scan runs on the worker as a job (progress and Cancel in
the status bar); a window keeps its results in the desk's tables, so reopening shows
them at once, and after a change only what changed is scanned again.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QTableView,
    QTextBrowser,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.review import cache as kept_results
from memorydesk.browse.review.decisions import apply_states, read_decisions
from memorydesk.browse.review.scan import Cancelled, Options, ScanCache, ScanReport, scan
from memorydesk.browse.review.whole import whole_text
from memorydesk.core.review.finding import KINDS, Finding, severity_rank
from memorydesk.core.review.kinds import ReviewKind
from memorydesk.memory import review_results
from memorydesk.ui.forget.offer import ForgetOffer
from memorydesk.ui.operations import Cancelled as JobCancelled
from memorydesk.ui.review.actions import ReviewActions
from memorydesk.ui.review.detail import evidence_html, whole_html
from memorydesk.ui.review.model import FindingsModel
from memorydesk.ui.session import Change, DeskSession
from memorydesk.ui.tab import DeskTab
from memorydesk.ui.widgets.filters import combo, counts_label
from memorydesk.ui.widgets.splitter import splitter
from memorydesk.ui.widgets.word_columns import WordColumns

STATES = (("Open", "open"), ("Dismissed", "dismissed"), ("Quarantined", "quarantined"), ("Any state", None))
SEVERITY_FILTER = (("Any severity", "low"), ("Medium and up", "medium"), ("High and up", "high"),
                   ("Critical", "critical"))


class ReviewTab(DeskTab):
    name, title = "review", "Review"
    kinds = frozenset({"fact", "policy", "note", "working_item", "review"})  # a changed item is scanned again

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: ScanReport | None = None
        self.cache: ScanCache | None = None
        self.kept: ScanCache | None = None
        self.scanning = False
        self.again = False
        self.model = FindingsModel(self)
        self.view = QTableView()
        self.view.setObjectName("review-view")
        self.view.setModel(self.model)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setWordWrap(False)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        header = self.view.horizontalHeader()
        # each column as wide as its longest word ("Personal data", "policy 0123abcd", "quarantined"; the
        # domain as a long one, whole in its tooltip), also after a narrower one is restored; the finding
        # takes the rest
        self.word_columns = WordColumns(self.view, dict(enumerate(
            ("medium", "Personal data", "policy 0123abcd", "infrastructure", 300, "quarantined"))))
        header.setStretchLastSection(False)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.view.selectionModel().selectionChanged.connect(lambda *_a: self._selection_changed())

        self.kind_list = QListWidget()
        self.kind_list.setObjectName("review-kinds")
        self.kind_list.currentRowChanged.connect(lambda _r: self._apply_filters())
        self.kind_list.setMinimumWidth(self.kind_list.fontMetrics().horizontalAdvance("Corrections that lose (99,999)")
                                       + 16)
        self.severity = combo("review-severity", list(SEVERITY_FILTER), 12)
        self.state = combo("review-state", list(STATES), 10)
        self.domain = combo("review-domain", [("Any domain", None)], 14)
        for box in (self.severity, self.state, self.domain):
            box.currentIndexChanged.connect(lambda _i: self._apply_filters())
        self.counts = counts_label()
        self.status = QLabel("")
        self.status.setObjectName("review-status")

        self.scan_action = QAction("Scan", self)
        self.scan_action.setObjectName("review-scan")
        self.scan_action.setShortcut(QKeySequence("F5"))
        self.scan_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.scan_action.setToolTip("Scan again (only what changed since the last scan is read) — F5")
        self.scan_action.triggered.connect(lambda: self.rescan())
        self.addAction(self.scan_action)
        self.forget = ForgetOffer()  # after a purge: "Check It Is Forgotten"
        self.actions_ = ReviewActions(self, self.selected, self.forget)
        self.open_action = self._key_action("Open item", "review-open-item", "Ctrl+Shift+O", self.open_item)
        self.graph_action = self._key_action("Show in graph", "review-show-graph", None,
                                             lambda: self._navigate_fact("graph"))
        self.open_button = QPushButton("Open item")
        self.open_button.setObjectName("review-open")
        self.open_button.clicked.connect(self.open_item)
        self.graph_button = QPushButton("Show in graph")
        self.graph_button.setObjectName("review-graph")
        self.graph_button.clicked.connect(lambda: self._navigate_fact("graph"))
        # every action from the keyboard too: right click, the Menu key or Shift+F10 on the list
        self.menu: QMenu | None = None
        self.view.setTabKeyNavigation(False)  # Tab leaves the list for the actions, not the next cell
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._menu)
        self.menu_action = QAction("Actions menu of the finding (also right click, the Menu key)", self.view)
        self.menu_action.setObjectName("review-menu")
        self.menu_action.setShortcut(QKeySequence("Shift+F10"))
        self.menu_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.menu_action.triggered.connect(lambda: self._menu(None))
        self.view.addAction(self.menu_action)

        bar = QToolBar()
        bar.setObjectName("review-toolbar")
        bar.addAction(self.scan_action)
        bar.addSeparator()
        for widget in (self.severity, self.state, self.domain):
            bar.addWidget(widget)
        bar.addSeparator()
        bar.addWidget(self.counts)
        self.detail = QTextBrowser()
        self.detail.setObjectName("review-detail")
        self.detail.setOpenLinks(False)
        self.detail.setPlaceholderText("Select a finding to see its evidence and what can be done.")
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.detail, 1)
        a = self.actions_
        for n, group in enumerate(((a.quarantine, a.release, a.redact, a.purge, a.dismiss),
                                   (a.merge, a.supersede, a.reviewed, a.retype))):
            buttons = QToolBar()
            buttons.setObjectName(f"review-actions-{n}")
            for action in group:
                buttons.addAction(action)
            rl.addWidget(buttons)
        row = QHBoxLayout()
        row.addWidget(self.open_button)
        row.addWidget(self.graph_button)
        row.addStretch(1)
        rl.addLayout(row)
        split = splitter(Qt.Orientation.Horizontal, self.kind_list, self.view, right, name="review-split",
                         stretch=(0, 3, 2), sizes=(self.kind_list.minimumWidth(), 720, 410))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(bar)
        layout.addWidget(self.forget)
        layout.addWidget(split, 1)
        layout.addWidget(self.status)
        self._fill_kinds()
        self._selection_changed()

    # -- loading and scanning ---------------------------------------------------------------------
    def open(self, session: DeskSession) -> None:
        super().open(session)
        self.actions_.bind(session)
        self.status.setText("Reading the last review…")
        self.run(kept_results.load, self._kept, label="reading the last review")

    def _kept(self, found: tuple[ScanReport, bool] | None) -> None:
        if found is not None:
            report, unchanged = found
            self.kept = self.cache = report.cache
            self._show(report, "kept")
            if unchanged:
                return
        self.rescan()

    def rescan(self) -> None:
        if self.session is None or self.closed:
            return
        if self.scanning:
            self.again = True
            return
        self.scanning = True
        self.status.setText("Scanning…" if self.report is None else f"{self.status.text()} · scanning again…")
        self.start(self._scan_flow())

    async def _scan_flow(self) -> None:
        session, cache, kept = self.session, self.cache, self.kept
        if session is None:
            return
        keep = not session.read_only

        def work(ws, job):
            def cancelled() -> bool:
                return job.cancelled

            try:
                report = scan(ws, Options(), cache, progress=lambda s, d, t: job.report(d, t, s), cancelled=cancelled)
            except Cancelled as exc:
                raise JobCancelled("the review scan was stopped; the last results are still shown") from exc
            report.findings = apply_states(report.findings, read_decisions(ws))
            if keep and kept_results.available(ws):
                with ws.own_commits():
                    review_results.save(ws, report, kept)
            return report

        try:
            report = await session.job("Review scan", work, label="scanning for the review")
        except Exception:  # noqa: BLE001 - the window already showed it
            self.status.setText("The scan did not finish; the last results are shown.")
            return
        finally:
            self.scanning = False
        if self.closed:
            return
        self.cache = self.kept = report.cache
        self._show(report, "scanned")
        if self.again:
            self.again = False
            self.rescan()

    def refresh(self, change: Change) -> None:
        if change.touches(self.kinds):
            self.rescan()

    def _show(self, report: ScanReport, how: str) -> None:
        self.report = report
        current = self.selected()
        rows = self.view.selectionModel().selectedRows()
        place = rows[0].row() if rows else None  # where the acted-on finding was: its next one takes it
        self._fill_kinds()
        domains = sorted({f.domain for f in report.findings if f.domain})
        chosen = self.domain.currentData()
        self.domain.blockSignals(True)
        self.domain.clear()
        self.domain.addItem("Any domain", None)
        for d in domains:
            self.domain.addItem(d[:60], d)
        index = self.domain.findData(chosen)
        self.domain.setCurrentIndex(max(0, index))
        self.domain.blockSignals(False)
        self._apply_filters(keep=current.key if current else None, place=place)
        when = time.strftime("%H:%M", time.localtime(report.cache.scanned_at or time.time()))
        what = (f"{how} at {when}" if how == "kept" else
                f"scanned in {report.seconds:.1f} s ({sum(report.scanned.values()):,} item(s) read)")
        notes = " · ".join(report.notes[:3])
        self.status.setText(f"{len(report.findings):,} finding(s), {what}" + (f" · {notes}" if notes else ""))

    # -- filters and selection --------------------------------------------------------------------
    def _fill_kinds(self) -> None:
        """The kinds, each with how many findings the other filters (state, severity, domain) let through."""
        current = self.kind_list.currentItem()
        chosen = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
        self.kind_list.blockSignals(True)
        self.kind_list.clear()
        entries = [("All findings", None)] + [(k.words, k) for k in KINDS]
        for label, kind in entries:
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, kind)
            self.kind_list.addItem(item)
        row = next((i for i, (_l, k) in enumerate(entries) if k == chosen), 0)
        self.kind_list.setCurrentRow(row)
        self.kind_list.blockSignals(False)
        self._count_kinds()

    def _passes(self, f: Finding) -> bool:
        """Whether ``f`` passes the state, severity and domain filters (the kind is chosen on the left)."""
        state, domain = self.state.currentData(), self.domain.currentData()
        return (severity_rank(f.severity) >= severity_rank(self.severity.currentData() or "low")
                and (state is None or f.state == state) and (domain is None or f.domain == domain))

    def _count_kinds(self) -> None:
        findings = [f for f in (self.report.findings if self.report else []) if self._passes(f)]
        for i in range(self.kind_list.count()):
            item = self.kind_list.item(i)
            kind = item.data(Qt.ItemDataRole.UserRole)
            label = "All findings" if kind is None else ReviewKind(kind).words
            item.setText(f"{label} ({sum(1 for f in findings if kind is None or f.kind == kind):,})")

    def _apply_filters(self, keep: str | None = None, place: int | None = None) -> None:
        """The list under the filters, ``keep`` (a finding's key) selected again; when it left the
        list (acted on), the finding now at its row ``place`` — the next one, as mail clients do."""
        if keep is None and self.selected() is not None:
            keep = self.selected().key
        findings = self.report.findings if self.report else []
        item = self.kind_list.currentItem()
        kind = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        self._count_kinds()
        rows = [f for f in findings if (kind is None or f.kind == kind) and self._passes(f)]
        self.model.set_rows(rows)
        self.counts.setText(f"{len(rows):,} of {len(findings):,} shown")
        row = self.model.row_of(keep) if keep else None
        if row is None and place is not None and rows:
            row = min(place, len(rows) - 1)
        if row is not None:
            self.select_row(row)
        self._selection_changed()

    def select_row(self, row: int) -> None:
        flags = QItemSelectionModel.SelectionFlag
        self.view.selectionModel().setCurrentIndex(self.model.index(row, 0), flags.ClearAndSelect | flags.Rows)

    def selected(self) -> Finding | None:
        rows = self.view.selectionModel().selectedRows()
        return self.model.finding(rows[0].row()) if rows else None

    def _selection_changed(self) -> None:
        f = self.selected()
        self.detail.setHtml(evidence_html(f) if f is not None else "")
        self.actions_.update(f)
        for widget in (self.open_button, self.open_action):
            widget.setEnabled(f is not None)
        for widget in (self.graph_button, self.graph_action):
            widget.setEnabled(f is not None and f.item_kind == "fact")

    def _key_action(self, text: str, name: str, key: str | None, slot) -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        if key:
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(lambda _c=False: slot())
        self.addAction(action)
        return action

    def _menu(self, pos: Any) -> None:
        """The selected finding's actions (those that do not apply greyed), at ``pos`` in the list
        or, from the keyboard (None), beside the current row."""
        if pos is None:
            rect = self.view.visualRect(self.view.currentIndex())
            pos = rect.bottomLeft() if rect.isValid() else self.view.viewport().rect().topLeft()
        a = self.actions_
        menu = QMenu(self)
        menu.setObjectName("review-menu-popup")
        for action in (self.open_action, self.graph_action, None, a.quarantine, a.release, a.redact, a.purge,
                       a.dismiss, None, a.merge, a.supersede, a.reviewed, a.retype):
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)
        self.menu = menu
        menu.popup(self.view.viewport().mapToGlobal(pos))

    def open_item(self) -> None:
        f = self.selected()
        if f is None or self.session is None:
            return
        if f.item_kind == "fact":
            self.session.navigate("facts", fact=f.item_id)
        elif f.item_kind == "policy":
            self.session.navigate("policies", policy=f.item_id)
        else:  # a note or a working item lives nowhere else: its whole text here, masked, to read first
            self.run(lambda ws: whole_text(ws, f.item_kind, f.item_id), lambda text, f=f: self._show_whole(f, text),
                     label="reading the item")

    def _show_whole(self, f: Finding, text: str | None) -> None:
        if self.selected() is not f:
            return
        if text is None:
            self.session.status.emit(f"{f.item_kind.replace('_', ' ')} {f.item_id} is no longer in the workspace.")
            return
        self.detail.setHtml(evidence_html(f) + whole_html(f, text))
        self.detail.scrollToAnchor("whole")

    def _navigate_fact(self, tab: str) -> None:
        f = self.selected()
        if f is not None and f.item_kind == "fact" and self.session is not None:
            self.session.navigate(tab, fact=f.item_id)

    def show_target(self, target: dict[str, Any]) -> None:
        if target.get("kind") in KINDS:
            row = 1 + KINDS.index(target["kind"])
            self.kind_list.setCurrentRow(row)

    def busy(self) -> bool:
        """A scan is running (``memory-desk shot`` waits for it)."""
        return self.scanning

    def prepare_shot(self) -> None:
        if self.model.rowCount():
            self.select_row(0)

    def wants_keyboard(self) -> QWidget | None:
        return self.view
