"""The Grants tab: the effective role × domain matrix, as the product enforces it.

Every domain (domain rows, and names that facts, policies or grant rows use without
one, in italics) against the nine roles; each cell's colour is its permission and its
shape its source — fail-open cells are hatched, bare-name, unknown and ambiguous
cells flagged (``paint``). A filter shows only fail-open cells, write cells, problems
or domains that differ from the seeded default, and domains by name. The side panel
says what the selected cell lets agents do (only ``write`` is enforced), who holds
the role, what the domain holds; the agent chooser answers "what can this agent
write?". Edits are in ``edits``.

Navigation targets: ``{"domain": name}`` (optionally ``"role"``) selects that cell or
row; ``{"agent": agent_id}`` shows that agent's view.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse import grants as browse
from memorydesk.core.changes import Kind, Shown
from memorydesk.core.product.grants import ROLES, Source
from memorydesk.core.product.vocab import Permission
from memorydesk.ui.grants import explain
from memorydesk.ui.grants.edits import GrantActions
from memorydesk.ui.grants.model import GrantMatrixModel
from memorydesk.ui.grants.paint import CellDelegate, Legend, fit_domain_header
from memorydesk.ui.grants.panel import GrantPanel
from memorydesk.ui.grants.selection import MatrixSelection
from memorydesk.ui.session import Change, DeskSession
from memorydesk.ui.tab import DeskTab
from memorydesk.ui.widgets.splitter import splitter

LEGEND = ((Permission.WRITE, Source.EXACT, "write"), (Permission.READ, Source.EXACT, "read"),
          (Permission.NONE, Source.EXACT, "none"), (Permission.READ, Source.FAIL_OPEN, "no row: fail-open"),
          (Permission.WRITE, Source.BARE_NAME, "bare name's row"),
          (Permission.READ, Source.UNKNOWN_VALUE, "unknown string"),
          (Permission.WRITE, Source.AMBIGUOUS, "two rows match"))
COMPLETE_AFTER_MS = 150
SHOW = (("all", "All domains"), ("fail_open", "Fail-open cells"), ("write", "Write cells"),
        ("changed", "Differs from default"), ("problems", "Ambiguous or unknown"))


def read_all(ws: Any, complete: bool) -> tuple[browse.GrantMatrix, dict[str, list[browse.GrantAgent]]]:
    """The matrix (unless ``complete``, its cells are left to be resolved as they are painted,
    the rest following in the background), and the agents by the role they act as."""
    return browse.read_matrix(ws, complete=complete), browse.agents_by_role(ws)


def read_first(ws: Any) -> tuple[browse.GrantMatrix, dict[str, list[browse.GrantAgent]]]:
    """What the tab's first screen needs: every domain name, the rows of the first ones."""
    return browse.read_first_screen(ws), browse.agents_by_role(ws)


class GrantsTab(MatrixSelection, DeskTab):
    name, title = "grants", "Grants"
    kinds = frozenset({Kind.GRANT, Kind.DOMAIN})  # a fact or policy change names its domain (the counts)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.matrix: browse.GrantMatrix | None = None
        self.agents: dict[str, list[browse.GrantAgent]] = {}
        self.details: dict[str, browse.DomainDetail] = {}
        self.resolved = False  # every cell of the matrix shown is resolved (counts known)
        self._choosing_agent = False
        self.kept: set[str] = set()  # domains edited here, shown whatever the filter (keep_in_view)
        self._kept_shown = 0
        self.model = GrantMatrixModel(self)
        self.view = QTableView()
        self.view.setObjectName("grants-view")
        self.view.setModel(self.model)
        self.view.setItemDelegate(CellDelegate(self.view))
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.view.setShowGrid(False)
        self.view.setWordWrap(False)
        rows = self.view.verticalHeader()
        rows.setDefaultSectionSize(self.view.fontMetrics().height() + 10)
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        columns = self.view.horizontalHeader()
        columns.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        columns.setMinimumSectionSize(self.view.fontMetrics().horizontalAdvance("reviewer") + 8)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.view.selectionModel().currentChanged.connect(lambda *_a: self._selection_changed())

        self.edits = GrantActions(self, selected=self.selected_cells, current=self.current_cell,
                                  ready=lambda: self.matrix is not None and not self.matrix.is_first_screen,
                                  keep_in_view=self.keep_in_view)
        self.write_actions = self.edits.all
        self.act_row = self._plain("Select Domain Row", self.select_current_row, "Shift+Space", "select-row")
        self.act_column = self._plain("Select Role Column", self.select_current_column, "Ctrl+Space", "select-column")

        self.show_mode = QComboBox()
        self.show_mode.setObjectName("grants-show")
        for key, label in SHOW:
            self.show_mode.addItem(label, key)
        self.show_mode.setToolTip("\n".join(f"{label}: {browse.FILTERS[key]}" for key, label in SHOW))
        self.show_mode.currentIndexChanged.connect(lambda _i: self.apply_filter())
        self.search = QLineEdit()
        self.search.setObjectName("grants-search")
        self.search.setPlaceholderText("Domain contains…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _t: self.apply_filter())
        self.summary = QLabel("reading grants…")
        self.summary.setObjectName("grants-summary")

        bar = QToolBar()
        bar.setObjectName("grants-toolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in self.write_actions:
            bar.addAction(action)
        filters = QHBoxLayout()
        filters.setContentsMargins(0, 0, 0, 0)
        filters.addWidget(QLabel("Show"))
        filters.addWidget(self.show_mode)
        filters.addWidget(self.search, 1)
        self.legend = Legend(LEGEND)
        self.legend.setObjectName("grants-legend")
        self.legend.setToolTip("Colour = permission; shape = where it came from. Only write is enforced.")

        self.panel = GrantPanel()
        self.panel.add_buttons(self.write_actions)
        self.panel.agent_chosen.connect(self._agent_chosen)
        left = QWidget()
        lay = QVBoxLayout(left)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(filters)
        lay.addWidget(self.legend)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.summary)
        self.panel.setMinimumWidth(240)
        self.split = splitter(Qt.Orientation.Horizontal, left, self.panel, name="grants-split", stretch=(1, 0),
                              collapsible=False)
        self.split.splitterMoved.connect(lambda *_a: self._split_moved())
        self._split_by_person = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(bar)
        layout.addWidget(self.split, 1)
        self.setTabOrder(self.show_mode, self.search)
        self.setTabOrder(self.search, self.view)
        self.setTabOrder(self.view, self.panel.agent)
        self._detail_timer = QTimer(self)
        self._detail_timer.setSingleShot(True)
        self._detail_timer.setInterval(120)
        self._detail_timer.timeout.connect(self._read_detail)
        self.edits.update()

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        if not (self._split_by_person or self.split.property("placed_by_person")):  # a third, within reason
            panel = max(250, min(520, int(self.width() * 0.3)))
            self.split.setSizes([max(self.width() - panel, 300), panel])
        self._fit_header()

    def _split_moved(self) -> None:
        self._split_by_person = True
        self._fit_header()

    def _plain(self, text: str, slot: Any, key: str, name: str) -> QAction:
        action = QAction(text, self)
        action.setObjectName(f"grant-{name}")
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(lambda _c=False: slot())
        self.addAction(action)
        return action

    @property
    def dialog(self) -> Any:
        """The dialog or question an edit has open (None when none is)."""
        return self.edits.dialog

    # --- the contract -------------------------------------------------------------------

    def open(self, session: DeskSession) -> None:
        super().open(session)
        self.edits.bind(session)
        self.mark_loading()  # targets wait for the first screen
        self.run(read_first, self._loaded, label="reading grants")  # the whole matrix follows

    def reload(self) -> None:
        complete = self.show_mode.currentData() != "all"  # a filter needs every cell at once
        self.run(lambda ws: read_all(ws, complete), self._loaded, label="reading grants")

    def showing(self, kind: Kind) -> Shown:
        """Domains: those whose counts it has read, and any it does not list yet (a new name)."""
        return _DomainsShown(self) if kind is Kind.DOMAIN and self.matrix is not None else None

    def refresh(self, change: Change) -> None:
        self.reload()

    def close(self) -> bool:
        self._detail_timer.stop()
        return super().close()

    def show_target(self, target: dict[str, Any]) -> None:
        if target.get("domain"):
            self._go(target)
        if target.get("shot"):
            self.prepare_shot()
        if target.get("agent"):
            for k in range(1, self.panel.agent.count()):
                if self.panel.agent.itemData(k).id == target["agent"]:
                    self.panel.agent.setCurrentIndex(k)

    def prepare_shot(self) -> None:
        """When the domains do not fit on screen, show those that differ from the seeded default
        (where the gaps and odd rows are); select a fail-open cell, so the panel explains it."""
        matrix = self.matrix
        if matrix is not None and matrix.is_first_screen:
            self.hold({"shot": True})  # again once the whole matrix is read
            self.reload()
            return
        if matrix is None or not self.model.rowCount():
            return
        self._completed(matrix.complete())
        fits = self.view.viewport().height() // max(self.view.verticalHeader().defaultSectionSize(), 1)
        if len(matrix.domains) > fits and 0 < len(matrix.rows_shown("changed")) < len(matrix.domains):
            self.show_mode.setCurrentIndex(self.show_mode.findData("changed"))
        for wanted in (Source.FAIL_OPEN, Source.AMBIGUOUS, Source.UNKNOWN_VALUE, Source.EXACT):
            for row in range(self.model.rowCount()):
                i = self.model.domain_row(row)
                for col in range(len(ROLES)):
                    if i is not None and self.matrix.code(i, col)[1] is wanted:
                        self.select_cell(row, col)
                        self._detail_timer.stop()
                        self._read_detail()
                        return

    def wants_keyboard(self) -> QWidget | None:
        return self.view

    # --- reading ------------------------------------------------------------------------

    def _loaded(self, result: tuple[browse.GrantMatrix, dict[str, list[browse.GrantAgent]]]) -> None:
        matrix, agents = result
        keep = self._selected_positions()
        current = self._current_position()
        self.matrix, self.agents, self.details, self.resolved = matrix, agents, {}, False
        self.panel.set_agents(agents)
        self._show(keep, current)
        if matrix.is_first_screen:  # the whole matrix once this screen is painted
            if not (self.holding or {}).get("shot"):  # a domain lands now; a shot waits for every cell
                self.mark_ready()
            QTimer.singleShot(COMPLETE_AFTER_MS, self, self.reload)
            return
        if self.mark_ready():
            return
        if matrix.is_complete:
            self._completed(matrix)
            return
        # the rest of the cells after the first screen is painted (the worker would hold the
        # interpreter while the view paints)
        QTimer.singleShot(COMPLETE_AFTER_MS, self, lambda: self.run(lambda _ws: matrix.complete(), self._completed,
                                                                    label="resolving grants"))

    def _completed(self, matrix: browse.GrantMatrix) -> None:
        """Every cell is resolved (on the worker): counts, and a filter that was waiting for them."""
        if matrix is not self.matrix:
            return
        self.resolved = True
        if self.show_mode.currentData() != self.model.mode:  # a filter that waited for every cell
            self._show(self._selected_positions(), self._current_position())
        self._summarize()

    def apply_filter(self) -> None:
        """A person changed the filter: show what it matches (domains kept in view after an edit
        give way)."""
        self.kept = set()
        if self.matrix is not None:
            self._show(self._selected_positions(), self._current_position())

    def keep_in_view(self, domains: list[str]) -> None:
        """Domains just changed stay listed, under a filter they may no longer match (a lock-down
        while "Fail-open cells" are shown), until the filter is changed."""
        self.kept |= set(domains)

    def _show(self, keep: list[tuple[str, int]], current: tuple[str, int] | None) -> None:
        matrix = self.matrix
        if matrix is None:
            return
        mode = self.show_mode.currentData()
        if mode != "all" and not matrix.is_complete:
            mode = self.model.mode if self.model.matrix is matrix else "all"  # applied once all cells are resolved
        shown = matrix.rows_shown(mode, self.search.text())
        extra = {i for d in self.kept if (i := matrix.row_of(d)) is not None} - set(shown) if self.kept else set()
        if extra:
            shown = sorted(set(shown) | extra)
        self._kept_shown = len(extra)
        swapped = self.model.set_matrix(matrix, shown, mode)
        self._fit_header()
        if not swapped:
            self._restore(keep, current)
        self._summarize()
        self._selection_changed()

    def _summarize(self) -> None:
        matrix = self.matrix
        if matrix is None:
            return
        text = f"{self.model.rowCount():,} of {len(matrix.domains):,} domains"
        if self._kept_shown:
            text += f" (with {self._kept_shown:,} you changed, kept in view until the filter changes)"
        if matrix.is_complete:  # the cells of the domains shown: a filter's counts follow it
            every = self.model.rowCount() == len(matrix.domains)
            counts = matrix.counts(None if every else self.model.shown)
            text += (f" · {'' if every else 'in them: '}{counts['fail_open']:,} fail-open · "
                     f"{counts['ambiguous']:,} ambiguous · {counts['unknown_value']:,} unknown")
        else:
            text += " · resolving…"
        self.summary.setText(text)

    def _fit_header(self) -> None:
        if self.matrix is not None:
            fit_domain_header(self.view, [d.name for d in self.matrix.domains])

    def _selection_changed(self, *_args: Any) -> None:
        if not self._choosing_agent and self.panel.agent.currentIndex() > 0:
            self.panel.agent.blockSignals(True)  # a person picked cells: the agent view gives way
            self.panel.agent.setCurrentIndex(0)
            self.panel.agent.blockSignals(False)
        self.edits.update()
        self._show_panel()
        self._detail_timer.start()

    def _focus_domain(self) -> str | None:
        index = self.view.currentIndex()
        return self.model.domain(index.row()) if index.isValid() else None

    def _show_panel(self) -> None:
        matrix = self.matrix
        if matrix is None:
            return
        agent = self.panel.agent.currentData()
        index = self.view.currentIndex()
        i = self.model.domain_row(index.row()) if index.isValid() else None
        if (agent is not None and matrix.is_first_screen) or (i is not None and not matrix.known(i)):
            self.panel.show_html("<p><i>Reading the grant rows…</i></p>")
            return
        if agent is not None:
            self.panel.show_html(explain.agent_html(agent, matrix))
            return
        selection = self.view.selectionModel()
        domain = self._focus_domain()
        if domain is None:
            self.panel.show_html("")
            return
        detail = self.details.get(domain)
        if selection.isRowSelected(index.row(), index.parent()):
            self.panel.show_html(explain.domain_html(domain, matrix, detail))
            return
        cell = self.current_cell()
        if cell is not None:
            count = len(selection.selectedIndexes())
            head = f"<p><i>{count:,} cells selected; this one is the current cell.</i></p>" if count > 1 else ""
            self.panel.show_html(head + explain.cell_html(cell, matrix, self.agents, detail))

    def _read_detail(self) -> None:
        domain = self._focus_domain()
        if domain is None or domain in self.details:
            return

        def done(detail: browse.DomainDetail) -> None:
            self.details[domain] = detail
            if self._focus_domain() == domain:
                self._show_panel()

        self.run(lambda ws: browse.domain_detail(ws, domain), done, label="reading the domain")

    def _agent_chosen(self, agent: browse.GrantAgent | None) -> None:
        if agent is not None and self.model.rowCount():
            col = ROLES.index(agent.acts_as)
            index = self.view.currentIndex()
            row = index.row() if index.isValid() else 0
            self._choosing_agent = True
            try:
                self.view.selectionModel().setCurrentIndex(self.model.index(row, col),
                                                           QItemSelectionModel.SelectionFlag.NoUpdate)
                self.view.selectColumn(col)
            finally:
                self._choosing_agent = False
        self._show_panel()


class _DomainsShown:
    """The domains a change to which the grants tab shows: read details, names it lacks."""

    def __init__(self, tab: GrantsTab) -> None:
        self.details, self.positions = tab.details, tab.matrix.positions if tab.matrix is not None else {}

    def __contains__(self, domain: object) -> bool:
        return domain in self.details or domain not in self.positions
