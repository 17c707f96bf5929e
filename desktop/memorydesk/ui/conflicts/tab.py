"""The Conflicts tab: the audit trail support staff open first when an agent "forgot" something.

Top, the filter bar; then the list of every conflict row (newest first, the repeats of
one open pair folded into one line, dangling rows marked) and, on a second page, the
bursts (facts that displaced many others at once); below, the trail of the selected
conflict or burst, with the decisions a person can make and the export.

Reading is lazy at any size: the first window of lines is read alone and shown, then
the keys of the whole list (a second or so on a 1,000,000-fact file), then windows of
lines as they scroll into view. Bursts are read when their page is first shown.

Targets (``navigate``): ``{"fact": id}`` lists that fact's conflicts (every other
filter off) and shows the first; ``{"conflict": id}`` shows that conflict's trail.
"""

from __future__ import annotations

import array
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QMenu,
    QTableView,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.conflicts import bursts as browse_bursts
from memorydesk.browse.conflicts import listing as browse
from memorydesk.browse.conflicts.index import prepare_later
from memorydesk.browse.conflicts.trail import conflict_trail
from memorydesk.browse.conflicts.trail_types import Trail
from memorydesk.browse.facts import domains
from memorydesk.core.changes import Kind, Shown
from memorydesk.ui.conflicts.actions import ConflictActions
from memorydesk.ui.conflicts.filterbar import ConflictFilterBar
from memorydesk.ui.conflicts.model import NAMES, BurstModel, ConflictListModel
from memorydesk.ui.conflicts.trail import TrailView
from memorydesk.ui.runner import Token
from memorydesk.ui.session import Change, DeskSession
from memorydesk.ui.tab import DeskTab
from memorydesk.ui.widgets.columns import ColumnFitter
from memorydesk.ui.widgets.delegates import BidiDelegate, DomainDelegate
from memorydesk.ui.widgets.splitter import splitter
from memorydesk.ui.widgets.windowed import WINDOW

WIDTHS = {"type": 100, "state": 150, "topic": 200, "a": 260, "b": 260, "agents": 130, "when": 120, "count": 44}
FLEXIBLE = {"topic": (150, 1.6), "a": (150, 2.0), "b": (150, 2.0)}  # the topic's repository stays readable
STEP_OUT = ("agents", "type")
LIST_PAGE, BURST_PAGE = 0, 1


def _table(name: str) -> QTableView:
    view = QTableView()
    view.setObjectName(name)
    view.setItemDelegate(BidiDelegate(view))
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setWordWrap(False)
    view.setTextElideMode(Qt.TextElideMode.ElideRight)
    view.setAlternatingRowColors(True)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    return view


class ConflictsTab(DeskTab):
    name, title = "conflicts", "Conflicts"
    kinds = frozenset({Kind.CONFLICT, Kind.FACT})

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._trail_for: str | None = None  # the conflict the trail pane shows (or is reading)
        self.bursts_read = False
        self._burst_of: dict[str, str] = {}  # conflict id -> the reason of its burst
        self.shown_burst: Any = None

        self.filters = ConflictFilterBar()
        self.filters.changed.connect(self.reload)
        self.model = ConflictListModel(self)
        self.model.fetch = self._fetch_window
        self.model.window_loaded.connect(self._window_loaded)
        self.view = _table("conflicts-view")
        self.view.setModel(self.model)
        # a decision's words whole: "superseded · loser restored"
        decided = self.view.fontMetrics().horizontalAdvance("superseded · loser restored") + 16
        widths = {**WIDTHS, "state": max(WIDTHS["state"], decided)}
        self.columns = ColumnFitter(self.view, NAMES, widths, FLEXIBLE, STEP_OUT)
        self.view.setItemDelegateForColumn(NAMES.index("topic"), DomainDelegate(self.view))
        self.view.selectionModel().selectionChanged.connect(lambda *_a: self._selection_changed())
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._menu)

        self.burst_model = BurstModel(self)
        self.burst_view = _table("bursts-view")
        self.burst_view.setModel(self.burst_model)
        header = self.burst_view.horizontalHeader()
        for i, width in enumerate((260, 80, 60, 120, 300, 80)):
            header.resizeSection(i, width)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.burst_view.selectionModel().selectionChanged.connect(lambda *_a: self._burst_selected())
        self.burst_view.doubleClicked.connect(lambda _i: self.acts.review_burst.trigger())

        self.pages = QTabWidget()
        self.pages.setObjectName("conflict-pages")
        self.pages.setDocumentMode(True)
        self.pages.addTab(self.view, "Conflicts")
        self.pages.addTab(self.burst_view, "Bursts")
        self.pages.currentChanged.connect(self._page_changed)

        self.trail = TrailView()
        self.trail.open_fact.connect(lambda fid: self.session and self.session.navigate("facts", fact=fid))
        self.trail.open_conflict.connect(self.show_conflict)
        self.acts = ConflictActions(self, self._shown)
        bar = QToolBar()
        bar.setObjectName("conflicts-toolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in self.acts.writes:
            bar.addAction(action)
        bar.addSeparator()
        bar.addAction(self.acts.open_a)
        bar.addAction(self.acts.open_b)
        export = QToolButton()
        export.setObjectName("conflict-export")
        export.setText("Export")
        export.setMenu(self.acts.export_menu)
        export.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        bar.addWidget(export)
        below = QWidget()
        lay = QVBoxLayout(below)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(bar)
        lay.addWidget(self.trail, 1)
        rows = self.view.verticalHeader().defaultSectionSize()
        self.pages.setMinimumHeight(rows * 6)
        below.setMinimumHeight(160)
        self.split = splitter(Qt.Orientation.Vertical, self.pages, below, name="conflicts-split", stretch=(1, 1),
                              sizes=(rows * 14 + 60, 360), collapsible=False)  # about 14 lines, the trail below
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filters)
        layout.addWidget(self.split, 1)
        self.acts.update()

    # --- the contract ---------------------------------------------------------------------

    def open(self, session: DeskSession) -> None:
        super().open(session)
        self.acts.bind(session)
        self.reload()
        self.reload_choices()

    def showing(self, kind: Kind) -> Shown:
        """Facts: those the lines read so far and the trail name (the burst page: any)."""
        if kind is not Kind.FACT or self.pages.currentIndex() == BURST_PAGE:
            return None
        named = {f for line in self.model.loaded_items() for f in (line.fact_a, line.fact_b)}
        return named | trail_facts(self.trail.trail)

    def refresh(self, change: Change) -> None:
        """New or changed conflict rows (ours or another process's) read the list again,
        keeping the selection; a change to facts only redraws the lines and the trail."""
        if change.ids_of("conflict") != frozenset():
            self.reload(keep_selection=True)
            self.reload_choices()
        else:
            self.model.forget_windows()
        if self.bursts_read:
            self.bursts_read = False
            if self.pages.currentIndex() == BURST_PAGE:
                self.read_bursts()
        if self.pages.currentIndex() == LIST_PAGE:
            self._show_trail(self._trail_for)

    def navigate(self, target: dict[str, Any]) -> None:
        """Targets land at once: each reads the list again (or finds its line) and then holds
        what it selects until the list is read (``show_target``)."""
        self.show_target(dict(target))

    def show_target(self, target: dict[str, Any]) -> None:
        if target.get("fact"):
            self.pages.setCurrentIndex(LIST_PAGE)
            self.hold({"first": True})
            self.filters.reset(fact=str(target["fact"]))
        elif target.get("conflict"):
            self.show_conflict(str(target["conflict"]))
        elif target.get("select"):  # held for the list: select that conflict's line when it holds it
            self._select_conflict(str(target["select"]))
        elif target.get("first") and self.model.rowCount():
            self.select_row(0)

    def show_as_of(self, at: int | None) -> None:
        """The window's *as of* (``ui.shell.as_of``): only the rows recorded by then."""
        self.as_of = at
        self.reload()

    def prepare_shot(self) -> None:
        """Show a full trail: the newest resolved contradiction a person reviewed (its chain, the
        decision and who made it), else the first listed one whose facts both exist."""
        def chosen(conflict_id: str | None) -> None:
            if conflict_id is not None:
                self.show_conflict(conflict_id)
                return
            best = None
            for row in range(min(self.model.rowCount(), WINDOW)):
                line = self.model.line(row)
                if line is not None and (best is None or (line.type == browse.CONTRADICTION and not line.dangling
                                                          and line.b.state == "active")):
                    best = row
                    if line.type == browse.CONTRADICTION and not line.dangling:
                        break
            if best is not None:
                self.select_row(best)

        self.run(browse.newest_reviewed, chosen, label="choosing a conflict to show")

    def wants_keyboard(self) -> QWidget | None:
        return self.view

    # --- reading the list -------------------------------------------------------------------

    def reload_choices(self) -> None:
        def work(ws: Any) -> tuple[list[str], list[tuple[str, str]]]:
            with ws.read() as conn:
                names = browse.agent_names(ws, conn)
            return [d.name for d in domains(ws)], sorted(((n, i) for i, n in names.items()), key=lambda x: x[0])

        self.run(work, lambda found: self.filters.set_choices(*found), label="reading domains and agents")

    def reload(self, keep_selection: bool = False) -> None:
        query = self.filters.query()
        as_of = getattr(self, "as_of", None)
        if as_of is not None:  # the window's "as of" (``show_as_of``): rows recorded by then
            query = replace(query, until=as_of if query.until is None else min(query.until, as_of))
        token = self.latest.take("list")
        self.mark_loading()
        if keep_selection and self.model.rowCount():
            current = self.model.key_at(self.view.currentIndex().row())
            scroll = self.view.verticalScrollBar().value()
            self.filters.show_counts(None, None, "reading…")
            self._read_keys(token, query, (current, scroll))
            return
        if browse.reads_facts(query):  # the facts are read once, for the whole list
            self.filters.show_counts(None, None, "filtering…")
            self._read_keys(token, query)
            return
        self.filters.show_counts(None, None, "reading…")
        as_of = getattr(self, "as_of", None)
        self.run(lambda ws: browse.first_lines(ws, query, WINDOW, as_of),
                 lambda lines: self._first(token, query, lines), label="reading conflicts", token=token)

    def _windows_to_read(self) -> list[int]:
        top = self.view.rowAt(0)
        return sorted({0, max(top, 0) // WINDOW})

    def _read_keys(self, token: Token, query: browse.ConflictQuery, restore: tuple | None = None) -> None:
        windows = self._windows_to_read()
        as_of = getattr(self, "as_of", None)

        def work(ws: Any) -> browse.Listing:
            listing = browse.line_keys(ws, query)
            for w in windows:
                keys = listing.keys[w * WINDOW:(w + 1) * WINDOW]
                if len(keys):
                    listing.windows[w] = browse.lines_for_keys(ws, keys, as_of)
            return listing

        self.run(work, lambda listing: self._listed(listing, restore), label="reading conflicts", token=token)

    def _first(self, token: Token, query: browse.ConflictQuery, lines: list[browse.ConflictLine]) -> None:
        self.model.set_first(lines)
        self.filters.show_counts(len(lines), None, "counting…")
        self._after_rows()
        self._read_keys(token, query)

    def _listed(self, listing: browse.Listing, restore: tuple | None) -> None:
        current = self.model.key_at(self.view.currentIndex().row()) if restore is None else restore[0]
        head = self.model.rowCount()
        grows = restore is None and head and len(listing.keys) >= head and \
            array.array("q", listing.keys[:head]) == array.array("q", [self.model.key_at(r) for r in range(head)])
        if grows:
            self.model.extend_keys(listing.keys)
        else:
            self.model.set_keys(listing.keys, listing.windows)
            if restore is not None:
                self.view.verticalScrollBar().setValue(restore[1])
            row = self.model.row_of_key(current) if current is not None else None
            if row is not None:
                self.select_row(row, scroll=False)
        self.filters.show_counts(len(listing.keys), listing.rows)
        self._after_rows(complete=True)
        if self.session is not None and not browse.reads_facts(self.filters.query()):
            prepare_later(self.session.ws)  # the first filter on facts then finds its arrays read

    def _after_rows(self, complete: bool = False) -> None:
        """Rows arrived; once the whole list is read (``complete``) a held target lands."""
        if complete and self.mark_ready():
            pass
        elif self.holding is None and not self.view.selectionModel().hasSelection() \
                and self.pages.currentIndex() == LIST_PAGE and self.trail.trail is not None:
            self._keep_or_clear_trail(complete)
        self.acts.update()

    def _keep_or_clear_trail(self, complete: bool) -> None:
        """After the list was read again (a filter changed): the conflict whose trail is shown
        is selected again when the list still holds it, and its trail cleared once the whole
        list is known without it (a trail of a conflict that is not listed would mislead)."""
        keys = [r.key for r in self.trail.trail.conflict.rows]
        row = next((r for r in map(self.model.row_of_key, keys) if r is not None), None)
        if row is not None:
            self._trail_for = self.trail.trail.conflict.id
            self.select_row(row, scroll=False)
        elif complete:
            self._trail_for = None
            self.trail.show_nothing()

    def _fetch_window(self, keys: Any, deliver: Any) -> None:
        keys, as_of = list(keys), getattr(self, "as_of", None)
        self.run(lambda ws: browse.lines_for_keys(ws, keys, as_of), deliver, label="reading conflicts",
                 on_failure=lambda _e: deliver(None))

    def _window_loaded(self, first: int, last: int) -> None:
        row = self.view.currentIndex().row()
        if first <= row <= last and self._trail_for is None:
            self._selection_changed()

    # --- selection and the trail --------------------------------------------------------------

    def select_row(self, row: int, scroll: bool = True) -> None:
        index = self.model.index(row, 0)
        flags = QItemSelectionModel.SelectionFlag
        self.view.selectionModel().setCurrentIndex(index, flags.ClearAndSelect | flags.Rows)
        if scroll:
            self.view.scrollTo(index)

    def selected_line(self) -> browse.ConflictLine | None:
        rows = self.view.selectionModel().selectedRows()
        return self.model.line(rows[0].row()) if rows else None

    def _selection_changed(self) -> None:
        line = self.selected_line()
        if line is None:
            self._trail_for = None
            self.acts.update()
            return
        if line.id != self._trail_for or self.trail.trail is None:
            self._show_trail(line.id)

    def show_conflict(self, conflict_id: str) -> None:
        """Show a conflict's trail, and select its line when the list holds it (now, or once read)."""
        self.pages.setCurrentIndex(LIST_PAGE)
        self._show_trail(conflict_id)
        self._select_conflict(conflict_id)

    def _select_conflict(self, conflict_id: str) -> None:
        """Select the conflict's line; while the list does not hold it, it is held for the next
        whole list (a newer target or selection takes its place)."""
        token = self.latest.take("select")
        self.hold({"select": conflict_id})

        def found(key: int | None) -> None:
            row = self.model.row_of_key(key) if key is not None else None
            if row is not None:
                if self.holding == {"select": conflict_id}:
                    self.hold_nothing()
                self._trail_for = conflict_id
                self.select_row(row)

        self.run(lambda ws: browse.line_key_of(ws, conflict_id), found, label="finding the conflict", token=token)

    def _show_trail(self, conflict_id: str | None) -> None:
        self._trail_for = conflict_id
        if conflict_id is None:
            return

        def show(trail: Trail | None) -> None:
            if self._trail_for != conflict_id:
                return
            if trail is None:
                self.trail.show_nothing("That conflict is no longer in the workspace.")
            else:
                ids = [r.id for r in trail.conflict.rows]
                self.trail.show_trail(trail, next((self._burst_of[i] for i in ids if i in self._burst_of), None))
            self.acts.update()

        self.run(lambda ws: conflict_trail(ws, conflict_id), show, label="reading the trail")

    def _shown(self) -> tuple[Trail | None, browse_bursts.BurstDetail | None, Any]:
        return self.trail.trail, self.trail.burst, self.shown_burst

    # --- bursts ---------------------------------------------------------------------------

    def _page_changed(self, index: int) -> None:
        if index == BURST_PAGE:
            if not self.bursts_read:
                self.read_bursts()
            else:
                self._burst_selected()
        else:
            self._trail_for = None
            self._selection_changed()

    def read_bursts(self) -> None:
        self.pages.setTabText(BURST_PAGE, "Bursts (finding…)")
        self.run(browse_bursts.bursts, self._bursts_loaded, label="finding bursts")

    def _bursts_loaded(self, rows: list[browse_bursts.BurstRow]) -> None:
        current = self.shown_burst.key if self.shown_burst is not None else None
        self.bursts_read = True
        self.burst_model.set_rows(rows)
        self._burst_of = {cid: b.reason for b in rows for cid in b.conflict_ids}
        self.pages.setTabText(BURST_PAGE, f"Bursts ({len(rows)})")
        row = self.burst_model.row_of(current) if current is not None else (0 if rows else None)
        if row is not None:
            flags = QItemSelectionModel.SelectionFlag
            self.burst_view.selectionModel().setCurrentIndex(self.burst_model.index(row, 0),
                                                             flags.ClearAndSelect | flags.Rows)
        elif self.pages.currentIndex() == BURST_PAGE:
            self.trail.show_nothing("No bursts: no fact displaced more than three others within a minute, and no "
                                    "single write superseded facts across topics.")
            self.acts.update()

    def _burst_selected(self) -> None:
        rows = self.burst_view.selectionModel().selectedRows()
        burst = self.burst_model.burst(rows[0].row()) if rows else None
        self.shown_burst = burst
        if burst is None:
            return
        self._trail_for = None
        winner, ids = burst.winner, list(burst.conflict_ids)

        def show(detail: browse_bursts.BurstDetail) -> None:
            if self.shown_burst is burst and self.pages.currentIndex() == BURST_PAGE:
                self.trail.show_burst(detail, burst.reason)
                self.acts.update()

        self.run(lambda ws: browse_bursts.burst_detail(ws, winner, ids), show, label="reading the burst")

    def _menu(self, pos: Any) -> None:
        menu = QMenu(self)
        for action in (*self.acts.writes, None, self.acts.open_a, self.acts.open_b, None, self.acts.copy_md,
                       self.acts.copy_json):
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)
        menu.popup(self.view.viewport().mapToGlobal(pos))


def trail_facts(trail: Trail | None) -> set[str]:
    """The facts a conflict's trail names: its pair, their chains, the related lines' pairs."""
    if trail is None:
        return set()
    named = {trail.a.id, trail.b.id}
    for chain in (trail.chain_a, trail.chain_b):
        named.update(node.id for node in (*chain.newer, *chain.older))
    named.update(f for r in trail.related for f in (r.fact_a, r.fact_b))
    return named
