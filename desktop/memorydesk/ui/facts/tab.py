"""The Facts tab: filter bar, lazy fact list, detail pane, and the reviewer's actions.

Reading the list is one to three operations, so the first rows show at once at any size:

- the default order (newest written first) pages by key, so the first window is read
  alone and shown, then the whole list's keys and counts follow ("counting…");
- any other order needs every matching row sorted; that runs in the background with
  the old rows still shown ("sorting…");
- a search is the agent's keyword search by default: its hits, filtered like the list, in
  the product's rank order (a Rank and a Score column; a click on another column sorts by
  it, and the search label says so), or, with "As the agent sees it", the agent's hybrid
  ranking in its own order with the reason for every place (a preview: no recall is
  recorded).
"""

from __future__ import annotations

import html
import logging
import time
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QMenu,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse import detail as browse_detail
from memorydesk.browse import facts as browse
from memorydesk.browse.facts import FactQuery
from memorydesk.core.changes import Kind
from memorydesk.memory.history import record as history
from memorydesk.ui.facts import recall, searching
from memorydesk.ui.facts.actions import FactActions
from memorydesk.ui.facts.detail import FactDetail
from memorydesk.ui.facts.filterbar import FilterBar
from memorydesk.ui.facts.model import AGENT_ONLY, COLUMNS, KEYWORD_SHOWN, WINDOW, FactTableModel, column
from memorydesk.ui.facts.selection import FactSelection
from memorydesk.ui.forget.offer import ForgetOffer
from memorydesk.ui.runner import Token
from memorydesk.ui.session import Change, DeskSession
from memorydesk.ui.tab import DeskTab
from memorydesk.ui.widgets.columns import ColumnFitter
from memorydesk.ui.widgets.delegates import BidiDelegate
from memorydesk.ui.widgets.splitter import splitter

log = logging.getLogger("memorydesk.ui.facts")

WIDTHS = {"rank": 56, "score": 74, "mmr": 80, "why": 300, "domain": 150, "topic": 170, "content": 420,
          "memory_type": 85, "veracity": 72, "confidence": 80, "created_at": 120, "recall_count": 60,
          "mention_count": 70, "state": 92}
#: the agent view makes room for Why this place: its hits are all in force (State) and their age is in the decay
HIDDEN_IN_AGENT_VIEW = ("veracity", "recall_count", "mention_count", "state", "created_at")
#: columns that share the width left by the others: (minimum, share of the rest)
FLEXIBLE = {"domain": (100, 0.6), "topic": (110, 0.8), "content": (200, 3.0), "why": (260, 3.0)}
#: columns hidden, in this order, when even the minimums do not fit (900×600, say)
STEP_OUT = ("mention_count", "recall_count", "veracity", "created_at")
NATURAL_ORDER = "Newest first, in the order the facts were written (click a column to sort by it)"
RANK_ORDER = ("The product's keyword order: what an agent's keyword search returns first (click a column to sort "
              "by it; Rank goes back to this order)")


def fact_and_history(ws: Any, fact_id: str) -> tuple[Any, list[history.HistoryEntry]]:
    """Everything the detail pane shows of a fact (worker thread); a product file never
    opened for writing has no history of ours."""
    rows = [] if ws.desk_schema == 0 else history.history_entries(ws, entity="fact", entity_id=fact_id)
    return browse_detail.fact_detail(ws, fact_id), rows


#: a change to more facts than this reads the list again instead of patching it
PATCH_LIMIT = 50


class FactsTab(FactSelection, DeskTab):
    name, title = "facts", "Facts"
    kinds = frozenset({Kind.FACT, Kind.EDGE, Kind.CONFLICT})  # edges and conflicts: in the detail pane

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.query = FactQuery(state="active")  # what the list shows
        self.as_of: int | None = None  # the window's "as of" (``show_as_of``)
        self._listed_query = self.query  # the same with a search's hits as ids (what position_of needs)
        self._order = (self.query.sort, self.query.descending)  # the order asked for (shown once read)
        self._sorting = False  # a new order is being read
        self.total: int | None = None
        self.agent_result: Any = None  # the hybrid search shown in the agent view
        self.agent_losses: dict[str, Any] = {}  # hit id -> where it stood after each step
        self.agent_now: float | None = None  # the clock it ran with (decay depends on it)
        self._restore: tuple[list[int], int | None, int] | None = None

        self.filters = FilterBar()
        self.filters.changed.connect(self.reload)
        self.filters.to_results.connect(self._to_results)
        self._first_wanted = False  # the list being read for an Enter in the search box selects its first row
        self.acts = FactActions(self, self.selected_facts, self._domain_names)
        self.acts.select_after.connect(self._select_after_reload)
        self.acts.next_after = self._next_after
        self.forget = ForgetOffer()  # after a delete or a purge: "Check It Is Forgotten"
        self.acts.offer_check = lambda request, what: self.session and self.forget.offer(self.session, request, what)
        self.act_edit, self.act_delete, self.act_restore, self.act_purge = self.acts.all
        self.write_actions = self.acts.all
        self.edit_selected, self.delete_selected = self.acts.edit_selected, self.acts.delete_selected
        self.restore_selected, self.purge_selected = self.acts.restore_selected, self.acts.purge_selected

        self.model = FactTableModel(self)
        self.model.fetch = self._fetch_window
        self.model.window_loaded.connect(self._window_loaded)
        self.view = QTableView()
        self.view.setObjectName("facts-view")
        self.view.setModel(self.model)
        self.view.setItemDelegate(BidiDelegate(self.view))
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.NoDragDrop)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        header = self.view.horizontalHeader()
        self.columns = ColumnFitter(self.view, [name for name, _label in COLUMNS], WIDTHS, FLEXIBLE, STEP_OUT)
        for place, name in enumerate(("rank", "score", "mmr", "why")):
            header.moveSection(header.visualIndex(column(name)), place)
        header.setSortIndicatorClearable(True)  # the third click goes back to the order written
        header.setSortIndicator(-1, Qt.SortOrder.DescendingOrder)
        self.view.setSortingEnabled(True)
        self.model.sort_requested = self._sort
        self._show_columns("list")
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._menu)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.view.doubleClicked.connect(lambda _i: self.act_edit.trigger())

        self.detail = FactDetail()
        self.detail.open_fact.connect(self.select_fact)
        self.detail.recall.asked.connect(self._ask_recall)
        self.misses = QLabel("")
        self.misses.setObjectName("agent-misses")
        self.misses.setWordWrap(True)
        self.misses.setTextFormat(Qt.TextFormat.RichText)
        self.misses.setContentsMargins(6, 4, 6, 4)
        self.misses.setStyleSheet("#agent-misses { background: rgba(230, 160, 40, 30); "
                                  "border-top: 1px solid rgba(230, 160, 40, 120); }")
        self.misses.linkActivated.connect(lambda href: self._show_missed(href.removeprefix("fact:")))
        self.misses.hide()
        self._missed: dict[str, Any] = {}

        bar = QToolBar()
        bar.setObjectName("facts-toolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in self.write_actions:
            bar.addAction(action)
        bar.addAction(self.acts.graph)

        listing = QWidget()
        ll = QVBoxLayout(listing)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.setSpacing(0)
        ll.addWidget(self.view, 1)
        ll.addWidget(self.misses)
        split = splitter(Qt.Orientation.Vertical, listing, self.detail, name="facts-split", stretch=(3, 2),
                         sizes=(380, 270))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filters)
        layout.addWidget(bar)
        layout.addWidget(self.forget)
        layout.addWidget(split, 1)
        self.acts.update()

    def _to_results(self) -> None:
        """From the search box to the list: its first row selected when none is (it may arrive later)."""
        self.view.setFocus()
        self._first_wanted = self.filters.searching_now()
        if not self._first_wanted and not self.view.selectionModel().hasSelection() and self.model.rowCount():
            self.select_row(0)

    def open(self, session: DeskSession) -> None:
        super().open(session)
        self.acts.bind(session)
        self.reload()  # the list first: it is what a person waits for
        self.reload_domains()

    @property
    def dialog(self) -> Any:
        return self.acts.dialog

    @property
    def ops(self) -> Any:
        return self.session.ops if self.session is not None else None

    def _fetch_window(self, keys: Any, deliver: Any) -> None:
        keys = list(keys)
        as_of = self.as_of
        self.run(lambda ws: browse.rows_for_keys(ws, keys, as_of), deliver, label="reading facts",
                 on_failure=lambda _e: deliver(None))

    def _window_loaded(self, first: int, last: int) -> None:
        rows = self.selected_rows()
        if rows and any(first <= r <= last for r in rows):
            self._selection_changed()

    def _domain_names(self) -> list[str]:
        box = self.filters.domain
        names = [box.itemData(i) for i in range(box.count())]
        return [d for d in names if d and not d.endswith("/*") and not d.startswith("*/")]

    # --- loading ------------------------------------------------------------------------

    def reload_domains(self) -> None:
        self.run(browse.domains, self.filters.set_domains, label="reading domains")

    def reload(self, keep_selection: bool = False) -> None:
        """Read the list again for the current search, filters and sort, in the background."""
        query = self.filters.query(self.query).with_(sort=self._order[0], descending=self._order[1])
        kind = self.filters.search_kind()
        text = query.text.strip()
        if not (kind == "keyword" and text) and query.sort in (browse.RANK, browse.NATURAL):
            self._order = (browse.NATURAL, True)  # a rank order needs a search: back to the order written
            query = query.with_(sort=browse.NATURAL, descending=True)
            if self.view.horizontalHeader().sortIndicatorSection() == column("rank"):
                self._set_indicator(None)
        token = self.latest.take("list")
        self.mark_loading()
        self._restore = None
        if (query.sort, query.descending) == (self.query.sort, self.query.descending):
            self._sorting = False
        if keep_selection:
            self._restore = (self.selected_keys(), self.model.key_at(self.view.currentIndex().row()),
                             self.view.verticalScrollBar().value())
        if kind == "agent":
            now = time.time()
            self.filters.show_counts(None, None, "searching")
            self.run(lambda ws: searching.agent_hits(ws, text, now),
                     lambda found: self._agent_loaded(query, found), label="searching as the agent", token=token)
            return
        if kind == "keyword" and text:
            self.filters.show_counts(None, None, "searching")
            windows = self._windows_to_read()
            self.run(lambda ws: searching.keyword_list(ws, query, text, windows),
                     lambda found: self._listed(query, found), label="searching", token=token)
            return
        if kind != "substring":
            query = query.with_(text="")
        self.filters.search_mode.setText("substring filter" if text else "")
        self.filters.search_mode.setToolTip(searching.SUBSTRING_TIP if text else "")
        if query.pages_by_key and not keep_selection:
            self.filters.show_counts(None, None, "counting")
            self.run(lambda ws: browse.fact_rows(ws, query, 0, WINDOW),
                     lambda rows: self._first_loaded(token, query, rows), label="reading facts", token=token)
            return
        if query.pages_by_key or (query.sort, query.descending) == (self.query.sort, self.query.descending):
            self.filters.show_counts(None, None, "counting")
        else:
            label = dict(COLUMNS).get(query.sort, query.sort)
            self.filters.show_counts(None, None, f"sorting by {label.lower()}…")
        self._read_keys(token, query)

    def _windows_to_read(self) -> list[int]:
        """The windows a list read now should bring with it: the first, and the one in view."""
        top = self.view.rowAt(0)
        return sorted({0, max(top, 0) // WINDOW})

    def _read_keys(self, token: Token, query: FactQuery) -> None:
        windows = self._windows_to_read()

        def work(ws: Any) -> searching.Listing:
            keys = browse.fact_keys(ws, query)
            return searching.Listing(keys, browse.count_facts(ws, FactQuery(as_of=query.as_of)),
                                     windows=searching.read_windows(ws, keys, windows, query.as_of))

        self.run(work, lambda found: self._listed(query, found), label="reading facts", token=token)

    def _first_loaded(self, token: Token, query: FactQuery, rows: list[browse.FactRow]) -> None:
        self.query = self._listed_query = query
        self._set_agent_view(None)
        self.model.set_first(rows)
        self.filters.set_note("")
        self.filters.show_counts(len(rows), None, "counting")
        self._after_rows()
        self._read_keys(token, query)  # the rest of the list, and the counts

    def _listed(self, query: FactQuery, found: searching.Listing) -> None:
        if found.label:
            self.filters.search_mode.setText(found.label)
            self.filters.search_mode.setToolTip(found.tip)
        self.filters.set_note(found.note)
        self.query, self.total = query, found.total
        self._listed_query = found.query or query
        self._sorting = False
        restore = self._restore
        ranked = found.hits is not None
        self._set_agent_view(None, ranked=ranked)
        self.model.set_ranks(found.ranks)
        self.model.set_keys(found.keys, found.windows)
        natural = query.sort == browse.NATURAL and query.descending
        if ranked:
            by_rank = self._listed_query.sort == browse.RANK
            if by_rank and query.sort == browse.NATURAL:
                self._set_indicator(column("rank"), descending=False)
            if not by_rank:
                label = dict(COLUMNS).get(query.sort, query.sort).lower()
                self.filters.search_mode.setText(f"{found.label} · sorted by {label} (Rank: the agent's order)")
            self.filters.show_counts(len(found.keys), found.total, hits=found.hits,
                                     order=RANK_ORDER if by_rank else "")
        else:
            self.filters.show_counts(len(found.keys), found.total, order=NATURAL_ORDER if natural else "",
                                     searched=bool(query.text.strip()) or bool(found.label))
        if restore is not None:
            selected, current, scroll = restore
            self.view.verticalScrollBar().setValue(scroll)
            self._select_keys(selected, current)
        if self._first_wanted and self.model.rowCount():  # Enter in the search box: the first result
            self._first_wanted = False
            self.select_row(0)
        self._after_rows()

    def _agent_loaded(self, query: FactQuery, found: searching.AgentHits) -> None:
        self.query = query
        restore = self._restore
        self._set_agent_view(found)
        self.model.set_hits(found.rows, found.result.hits)
        n = len(found.result.hits)
        self.filters.search_mode.setText(f"agent view · {n} hit{'s' if n != 1 else ''}")
        self.filters.search_mode.setToolTip("The agent's hybrid search (the product's default), in its order. "
                                            "A preview: nothing is recorded.")
        self.filters.set_note(searching.agent_note(found))
        self.filters.show_counts(n, None, order="The agent's order: rank 1 first")
        self._missed = {m.loss.target: m for m in found.missed}
        self.misses.setText(recall.misses_html(found.missed, found.now))
        if restore is not None:
            self._select_keys(restore[0], restore[1])
        self._after_rows()

    def _after_rows(self) -> None:
        self.mark_ready()  # a fact asked for meanwhile is selected now
        shown = self.detail.fact_id
        if shown is not None and shown not in {f.id for f in self.selected_facts()}:
            self._selection_changed()  # its fact left the list (a reset selects nothing)
        self.acts.update()

    def _set_agent_view(self, found: searching.AgentHits | None, ranked: bool = False) -> None:
        self.agent_result = found.result if found is not None else None
        self.agent_now = found.now if found is not None else None
        self.agent_losses = found.losses if found is not None else {}
        self.misses.setVisible(found is not None)
        self._show_columns("agent" if found is not None else "keyword" if ranked else "list")
        self.detail.set_agent_view(found is not None)

    def _show_columns(self, mode: str) -> None:
        """``list``: the facts' own columns; ``keyword``: with a keyword search's Rank and Score;
        ``agent``: the agent view's (rank, score, MMR, why), in its order, not sortable."""
        agent = mode == "agent"
        shown_extra = AGENT_ONLY if agent else KEYWORD_SHOWN if mode == "keyword" else frozenset()
        self.columns.set_hidden({name for name, _label in COLUMNS
                                 if (name not in shown_extra if name in AGENT_ONLY
                                     else agent and name in HIDDEN_IN_AGENT_VIEW)})
        header = self.view.horizontalHeader()
        header.setSectionsClickable(not agent)  # the agent's order is the point; no re-sorting
        header.setSortIndicatorShown(not agent)

    def _set_indicator(self, section: int | None, descending: bool = True) -> None:
        """Show an order on the header without asking for it again (the list is in it already)."""
        header = self.view.horizontalHeader()
        header.blockSignals(True)
        header.setSortIndicator(-1 if section is None else section,
                                Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder)
        header.blockSignals(False)

    def refresh(self, change: Change) -> None:
        """Read again what the change touched: a few facts are patched into the list (their
        rows and neighbours); another process's change, a search or many facts read the list
        again, keeping selection and scroll position."""
        fact_ids = change.ids_of("fact")
        if fact_ids is not None and not fact_ids:  # edges, conflicts, history: the detail pane only
            self._selection_changed()
            return
        plain = self.filters.search_kind() == "substring" or not self.filters.search.text().strip()
        if fact_ids is None or len(fact_ids) > PATCH_LIMIT or not plain or not self.model.count_known() \
                or self.model.agent_view:
            self.reload(keep_selection=True)
            self.reload_domains()
            return
        query, ids = self._listed_query, sorted(fact_ids)
        self.run(lambda ws: (browse.placements(ws, query, ids),
                             browse.count_facts(ws, FactQuery(as_of=query.as_of)), browse.domains(ws)),
                 lambda found: self._patch(*found), label="reading the changed facts",
                 token=self.latest.current("list"))  # dropped when the list is read again meanwhile

    def _patch(self, placed: dict[str, tuple[int | None, int | None]], total: int, domains: Any) -> None:
        gone = [f.key for f in self.selected_facts() if f.id in placed and placed[f.id][0] is None]
        by_key = {key: place for key, place in placed.values() if key is not None}
        if not self.model.patch(by_key, gone):
            self.reload(keep_selection=True)
            return
        self.total = total
        natural = self.query.sort == browse.NATURAL and self.query.descending
        self.filters.show_counts(self.model.rowCount(), total, order=NATURAL_ORDER if natural else "",
                                 searched=bool(self.query.text.strip()))
        self.filters.set_domains(domains)
        self._after_rows()
        self._selection_changed()

    def _sort(self, column_name: str, descending: bool) -> None:
        if (column_name, descending) == self._order and self._sorting:
            return  # QTableView.sortByColumn asks twice; a sort of 1,000,000 rows is worth doing once
        self._order = (column_name, descending)
        self._sorting = True
        self.reload(keep_selection=True)

    def _next_after(self, ids: list[str], action: str) -> str | None:
        """After a delete, purge or restore: the fact to select when the changed ones leave the
        list (they stay, and stay selected, when the state filter still shows them)."""
        state = self.filters.state.currentData()
        leaves = action == "purge" or (action == "delete" and state not in ("all", "deleted")) \
            or (action == "restore" and state in ("deleted", "superseded"))
        return self.row_after(set(ids)) if leaves and not self.model.agent_view else None

    def _select_after_reload(self, fact_id: str) -> None:
        self.hold({"select": fact_id})

    def _selection_changed(self, *_args: Any) -> None:
        self.acts.update()
        facts = self.selected_facts()
        if len(facts) != 1:
            self.detail.show_fact(None)
            return
        fact_id = facts[0].id
        found = self.model.hit(fact_id)
        if found is not None and self.agent_result is not None:
            self.detail.show_hit(searching.explain_html(self.agent_result, found[0], found[1],
                                                        self.agent_now or time.time(),
                                                        self.agent_losses.get(fact_id)))

        def show(result: tuple[Any, Any]) -> None:
            current = self.selected_facts()
            if len(current) == 1 and current[0].id == fact_id:
                self.detail.show_fact(*result)

        self.run(lambda ws: fact_and_history(ws, fact_id), show, label="reading the fact")

    # --- can the agent get it back? ------------------------------------------------------------

    def _ask_recall(self, fact_id: str, query: str) -> None:
        self.run(lambda ws: recall.ask(ws, fact_id, query), self.detail.recall.show_answer,
                 label="asking the agent's recall")

    def _show_missed(self, fact_id: str) -> None:
        """A fact the agent misses: its details, and why it is not among the 10."""
        missed = self._missed.get(fact_id)
        if missed is None or self.agent_result is None:
            return
        self.view.clearSelection()
        now = self.agent_now or time.time()

        def show(result: tuple[Any, Any]) -> None:
            self.detail.show_fact(*result)
            self.detail.show_hit(f"<p>{recall.KIND_WORDS[missed.kind]} for “{html.escape(self.agent_result.query)}”, "
                                 f"not among the agent's 10.</p><p>{recall.verdict_html(missed.loss, now)}</p>"
                                 f"{recall.funnel_html(missed.loss)}")
            self.detail.pages.setCurrentIndex(0)

        self.run(lambda ws: fact_and_history(ws, fact_id), show, label="reading the fact")

    # --- the tab contract --------------------------------------------------------------------

    def navigate(self, target: dict[str, Any]) -> None:
        """``{"focus": "search"}`` puts the cursor in the search box at once; a fact waits
        for the list (``DeskTab.navigate``)."""
        if target.get("focus") == "search":
            self.filters.search.setFocus()
            self.filters.search.selectAll()
        if target.get("fact") or target.get("select"):
            super().navigate(target)

    def show_target(self, target: dict[str, Any]) -> None:
        """``{"fact": id}`` selects that fact (widening the filters if needed); ``{"select": id}``
        (held for a reload) selects it staying in the agent view when it is not a hit."""
        if target.get("fact"):
            self.select_fact(str(target["fact"]))
        elif target.get("select"):
            self.select_fact(str(target["select"]), leave_agent_view=False)

    def show_as_of(self, at: int | None) -> None:
        """The window's *as of* (``ui.shell.as_of``): facts created by then, each in its state then."""
        self.as_of = self.model.as_of = at
        self.query = self.query.with_(as_of=at)
        if "state" not in self.columns.user_sized:  # room for "superseded · changed since" as of a time
            wide = self.view.fontMetrics().horizontalAdvance("superseded · changed since") + 16
            self.columns.widths["state"] = WIDTHS["state"] if at is None else max(WIDTHS["state"], wide)
            self.columns.fit()
        self.reload()

    def prepare_shot(self) -> None:
        if self.model.rowCount():
            self.select_row(0)

    def wants_keyboard(self) -> QWidget | None:
        return self.view

    def _menu(self, pos: Any) -> None:
        menu = QMenu(self)
        for action in self.write_actions:
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.acts.conflicts)
        menu.addAction(self.acts.graph)
        menu.addAction(self.acts.check)
        menu.popup(self.view.viewport().mapToGlobal(pos))
