"""The Lineage tab: memory moving STM → MTM → LPM → retrieval → generation, one lane per scope,
each run a bar coloured by the health the classifier gives it at the evaluated time.

Reading: the stored receipts are read and judged once on the worker (``lineage.runs``);
judging again at another window, filtering and laying out happen on the tab's own thread
(``lineage.timeline``). Evaluating at a time before the newest receipt shows what an
operator saw then: only receipts dated at or before it count, so the runs that time cuts
through are read again up to it on the worker (``run_reads.as_of``), runs that had not begun
are not drawn, and the legend, tier flow and occupancy follow. A change to receipts (an import,
the canary, another process's ingest seen by the window's watcher) reads only the runs that have
new receipts.

Live: while *follow the clock* is on, the evaluated time moves to the clock whenever new
receipts are read (whoever stored them: the window's watcher sees another program's commit
through ``PRAGMA data_version``, and only runs past the highest receipt id read are read
again), and otherwise when time alone changes what is shown (``live``). A receipt dated
after the clock is said above the timeline, not silently left out.

Beside the timeline, the run list (``run_list``) and the tier flow.

Where another tab's navigation lands, and a run selected and explained: ``runs_view``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from memorydesk.core.receipt_codes import from_us
from memorydesk.lineage import run_reads, timeline
from memorydesk.lineage.receipt_views import WorkspaceReceipts
from memorydesk.lineage.runs import RunTable
from memorydesk.ui.actions import WriteActions
from memorydesk.ui.lineage import notice
from memorydesk.ui.lineage.controls import Controls
from memorydesk.ui.lineage.detail import RunDetailPanel
from memorydesk.ui.lineage.fleet_bar import FleetBar
from memorydesk.ui.lineage.flow import FlowPanel
from memorydesk.ui.lineage.item import US
from memorydesk.ui.lineage.live import LiveClock
from memorydesk.ui.lineage.panel import TimelinePanel
from memorydesk.ui.lineage.receipt_io import RECEIPT_KINDS, ReceiptIO
from memorydesk.ui.lineage.run_list import RunList
from memorydesk.ui.lineage.runs_view import RunsView
from memorydesk.ui.operations import Cancelled, describe_error
from memorydesk.ui.session import Change, DeskSession
from memorydesk.ui.tab import DeskTab
from memorydesk.ui.widgets.read_failed import ReadFailed
from memorydesk.ui.widgets.splitter import splitter

EMPTY = ("<h3>No lineage receipts in this workspace yet</h3><p>Receipts arrive from the tier engine, "
         "<b>File ▸ Import receipts…</b> (JSON Lines), <code>memory-desk lineage ingest</code>, the MemoryOS "
         "import, or <b>Tools ▸ Run canary…</b>.</p>")
LOADING = "<h3>Reading lineage receipts…</h3><p>The timeline appears once they are read and judged.</p>"


class LineageTab(ReceiptIO, RunsView, DeskTab):
    name, title = "lineage", "Lineage"
    kinds = RECEIPT_KINDS

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table: RunTable | None = None
        self.receipts: Any = WorkspaceReceipts()  # or a ClickHouse source (File ▸ Open Receipts Source…)
        self.tl: timeline.Timeline | None = None
        self.origin_us = 0
        self.selected_id: str | None = None
        self.dialog: Any = None
        self.loading = False
        self.read_error = ""  # why the first read failed (said on the page)
        self.cutting = False  # reading the runs as of the evaluated time
        self._cut: tuple[RunTable, int, RunTable] | None = None  # (whole table, time, the table as of it)
        self._again: bool | None = None  # a refresh came while reading: read again (True: whole)
        self._fit_next = False  # a navigation asked for lanes or runs: the next layout shows them
        self.controls = Controls()
        self.panel = TimelinePanel()
        self.flow = FlowPanel()
        self.runs = RunList(self.controls.run_text)
        self.runs.opened.connect(self.open_run)
        self.side = QTabWidget()
        self.side.setObjectName("lineage-side")
        self.side.addTab(self.runs, "Runs")
        self.side.addTab(self.flow, "Tier flow")
        self.detail = RunDetailPanel()
        self.acts = WriteActions(self, "lineage")
        self.act_import = self.acts.add("Import Receipts…", self.import_receipts, name="import")
        self.act_canary = self.acts.add("Run Canary…", self.run_canary, name="canary")
        self.write_actions = self.acts.all
        for action in self.write_actions:
            self.controls.tools.addAction(action)
        self.waiting = QLabel(LOADING)
        self.waiting.setObjectName("lineage-loading")
        self.waiting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty = QLabel(EMPTY)
        self.empty.setObjectName("lineage-empty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.empty)
        self.pages.addWidget(self.panel)
        self.pages.addWidget(self.waiting)
        self.failed = ReadFailed(lambda: self.fleet_bar.try_again() if self.fleet_bar.fleet is not None
                                 else self.reload(whole=True), "lineage")
        self.pages.addWidget(self.failed)
        self.pages.setCurrentWidget(self.waiting)
        # the run list gets room for its state, run id and first receipt beside the timeline at 1280 px
        side = splitter(Qt.Orientation.Horizontal, self.pages, self.side, name="lineage-side-split", stretch=(3, 1),
                        sizes=(780, 500))
        split = splitter(Qt.Orientation.Vertical, side, self.detail, name="lineage-split", stretch=(3, 1),
                         sizes=(430, 240))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.controls)
        self.fleet_bar = FleetBar(self)
        layout.addWidget(self.fleet_bar)
        layout.addWidget(split, 1)

        self._rebuild_timer = self._single(60, self._rebuild)
        self._flow_timer = self._single(150, self._update_flow)
        self._line_timer = self._single(120, self._line_moved)
        self.live = LiveClock(self.controls, self, on_second=self._clock_shown)
        self.clock = self.live.timer  # set again after each layout
        self.controls.notice.linkActivated.connect(self._notice_link)
        self.controls.changed.connect(self._rebuild_timer.start)
        self.controls.fit_requested.connect(lambda: self.panel.key(Qt.Key.Key_Home, Qt.KeyboardModifier.NoModifier))
        self.controls.fit_requested.connect(lambda: self.fleet_bar.said_show_all())
        self.panel.run_clicked.connect(self.select_run)
        self.panel.view_changed.connect(self._flow_timer.start)
        self.flow.resized.connect(self._flow_timer.start)  # shown (or resized): as many lanes as fit
        self.panel.now_line.setMovable(True)
        self.panel.now_line.sigPositionChanged.connect(lambda *_a: self._line_timer.start())
        self.panel.item.describe = self.describe
        self.acts.update({})

    def _single(self, ms: int, slot) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(ms)
        timer.timeout.connect(slot)
        return timer

    # -- the contract -----------------------------------------------------------------------------

    def open(self, session: DeskSession) -> None:
        super().open(session)
        self.acts.bind(session)
        self.reload(whole=True)

    def refresh(self, change: Change) -> None:
        self.reload(whole=False)

    def close(self) -> bool:
        self.live.stop()
        self.fleet_bar.poll.stop()
        self.fleet_bar.release(self.receipts, wait=True)
        for timer in (self._rebuild_timer, self._flow_timer, self._line_timer):
            timer.stop()
        return super().close()

    def show_as_of(self, at: int | None) -> None:
        """The window's *as of* (``ui.shell.as_of``) is this tab's *Evaluate at*; None: back to following the clock."""
        self.as_of = at
        if at is None:
            self.controls.follow_clock()
        else:
            self.controls.set_evaluate_at(datetime.fromtimestamp(at, UTC))

    def prepare_shot(self) -> None:
        """Everything in view, and the first at-risk run explained."""
        if self.tl is not None and self.tl.runs_shown:
            self.panel.key(Qt.Key.Key_Home, Qt.KeyboardModifier.NoModifier)
            self.panel.step_at_risk(1)
            self.panel.scroll_to(0)

    def wants_keyboard(self) -> QWidget | None:
        return self.panel.plot

    def busy(self) -> bool:
        """Reading, judging or laying out is still going on (``memory-desk shot`` waits for it)."""
        timers = (self._rebuild_timer, self._flow_timer, self._line_timer)
        return self.loading or self.cutting or self.computing or any(t.isActive() for t in timers)

    # -- reading ----------------------------------------------------------------------------------

    def reload(self, whole: bool = True) -> None:
        """Read the receipts again: every run (``whole``), or only the runs with new receipts."""
        if self.session is None or self.closed:
            return
        if self.loading:
            self._again = bool(self._again) or whole
            return
        self.loading = True
        self.mark_loading()
        if self.table is None:
            self.pages.setCurrentWidget(self.waiting)
        self.start(self._read(whole or self.table is None))

    async def _read(self, whole: bool) -> None:
        table, reader = self.table, self.receipts
        try:
            if reader.fleet is not None:  # a ClickHouse source: on its own thread, said on the tab only
                result = await self.fleet_bar.call(reader, (lambda: reader.load(None)) if whole else
                                                   (lambda: reader.changes(None, table)),
                                                   "Reading receipts from the source" if whole else "")
            elif whole:
                result = await self.session.job(
                    "Reading lineage receipts", lambda ws, job: reader.load(
                        ws, progress=lambda d, t: job.report(d, t, "receipts judged"), cancelled=lambda: job.cancelled),
                    label="reading the lineage receipts")
            else:
                result = await self.session.read(lambda ws: reader.changes(ws, table), label="reading receipts",
                                                 quiet=True)
        except Cancelled:  # Cancel: stopped, not failed
            result, failure = None, None
        except Exception as exc:  # said on the page (and by the window's error path for the whole read)
            result, failure = None, describe_error(exc)
        else:
            failure = None
        if reader is not self.receipts:  # a source the tab has left: its read is dropped, said nowhere
            return
        self.loading = False
        if self.closed:
            return
        if result is not None:
            self._loaded(result)
        else:
            if reader.fleet is not None and failure:  # said once, on the source's bar; not asked again
                self.fleet_bar.cannot_read(reader, failure)
                if self.table is None:
                    self.read_error = failure
                    self.failed.show_error("Nothing was read from the receipts source",
                                           "It cannot be read: see the bar above — Retry, or go Back to the "
                                           "Workspace's Receipts.")
                    self.pages.setCurrentWidget(self.failed)
            elif self.table is None:  # the first read failed or was stopped: say so, offer to read again
                self.read_error = failure or "Reading the lineage receipts was stopped"
                self.failed.show_error("The lineage receipts could not be read" if failure else
                                       "Reading the lineage receipts was stopped", failure or "Nothing was read.")
                self.pages.setCurrentWidget(self.failed)
            elif failure:
                self.session.status.emit(f"Reading new receipts failed: {failure}")
            self.mark_ready()
        again, self._again = self._again, None
        if again is not None:
            self.reload(whole=again)

    def _loaded(self, table: RunTable) -> None:
        first = self.table is None
        self.table = table
        lo, hi = table.span()
        if first or not self.origin_us:
            self.origin_us = lo
        self.pages.setCurrentWidget(self.panel if len(table) else self.empty)
        if len(table):
            self.controls.set_span(from_us(lo), from_us(hi))
        if not first:
            self.controls.catch_up()  # new receipts, following the clock: judge them now, not at the next tick
        self._rebuild()
        self.mark_ready()  # a target held meanwhile lands (its run once the timeline is laid out)

    def _rebuild(self) -> None:
        table, fresh = self.table, self.controls.fresh_for()
        if table is None or fresh is None:
            return
        if self.fleet_bar.wants_read(self.controls.filters()):  # a ClickHouse source reads the time in view
            self._fit_next = True  # and shows it once read
            self.reload(whole=True)
            return
        now = self.controls.evaluate_us()
        cut = self._cut
        if cut is not None and cut[0] is table and cut[1] == now:
            self._lay_out(table, cut[2], now, fresh)
        elif not len(table) or now >= int(table.end.max()):
            self._lay_out(table, table, now, fresh)
        elif not self.cutting:  # else the cut in flight calls back here when it is done
            self.cutting = True

            def done(result: RunTable) -> None:
                self.cutting = False
                self._cut = (table, now, result)
                self._rebuild()

            def failed(_exc: BaseException) -> None:
                self.cutting = False

            reader = self.receipts
            self.run(lambda ws: reader.as_of(ws, table, now), done, label="reading receipts as of the evaluated "
                     "time", on_failure=failed)

    def _lay_out(self, whole: RunTable, table: RunTable, now: int, fresh: timedelta) -> None:
        filters = self.controls.filters()
        self.live.laying_out()
        self.compute(lambda: timeline.build(table, now, fresh // timedelta(microseconds=1), filters, grid=False,
                                            source=whole), self._built, label="laying out the timeline",
                     token=self.latest.take("timeline"))

    def _built(self, tl: timeline.Timeline) -> None:
        if self.closed or tl.whole is not self.table:
            return
        keep = self.tl is not None
        self.tl = tl
        self.panel.set_timeline(tl, self.origin_us, keep_view=keep)
        if self._fit_next and tl.filters == self.controls.filters():  # what a navigation asked for, in view
            self._fit_next = False
            self.panel.fit_all()
        self.controls.set_legend(tl)
        self.controls.set_source_versions(tl.whole.source_versions, tl.source_counts())
        self.live.laid_out(tl)
        self.runs.set_timeline(tl, self.panel.item.selected)
        self.fleet_bar.show_window(tl)
        self._flow_timer.start()
        if self.ready and self.mark_ready():  # a run a target named (not while receipts are read again)
            pass
        elif self.selected_id is not None:
            run = tl.table.index.get(self.selected_id)
            if run is None or not tl.shown[run]:
                self.clear_selection("hidden by the filters" if run is not None else
                                     "outside the time read from the source" if self.fleet_bar.fleet is not None
                                     else "not drawn at the evaluated time")
            else:
                self.panel.item.selected = run
                self._read_detail(self.selected_id)
        self.compute(lambda: _grid(tl), lambda grid: self._grid_ready(tl, grid), label="drawing the timeline",
                     token=self.latest.take("timeline"))

    def _grid_ready(self, tl: timeline.Timeline, grid: timeline.Grid) -> None:
        if tl is self.tl and not self.closed:
            tl.set_grid(grid)
            self.panel.set_grid()

    def _update_flow(self) -> None:
        tl = self.tl
        if tl is None or self.closed:
            return
        x0, x1 = self.panel.x_range()
        a, b = self.panel.item.t_of(x0), self.panel.item.t_of(x1)
        now, rows = tl.now_us, self.flow.occupancy_rows()

        def work() -> tuple:
            return tl.transitions(a, b, with_bounded=True), tl.occupancy(now, rows=rows, with_bounded=True)

        def show(result: tuple) -> None:
            if tl is not self.tl or self.closed:
                return
            (edges, total, risky, hours, bounded), (names, counts, maybe) = result
            x = (edges - self.origin_us) / US
            self.flow.set_transitions(x, total, risky, hours, (x0, x1), self.origin_us / US, bounded=bounded)
            self.flow.set_occupancy(names, counts, maybe=maybe)

        self.compute(work, show, label="counting the tier flow")

    def _clock_shown(self) -> None:
        """Following the clock, the dashed line stays at the time the field shows — not while it is being
        dragged or a move of it waits to be read (the drag would be lost)."""
        if self.tl is not None and not self.panel.now_line.moving and not self._line_timer.isActive():
            self.panel.place_line(self.controls.evaluate_us())

    def _line_moved(self) -> None:
        if self.panel.now_line.value() == self.panel.placed:  # where the tab put it, not where it was dragged
            return
        moment = from_us(self.panel.item.t_of(self.panel.now_line.value()))
        if abs((moment - self.controls.evaluate_at()).total_seconds()) >= 1:
            self.controls.set_evaluate_at(moment)

    # -- live (``live``) ---------------------------------------------------------------------------

    def _notice_link(self, link: str) -> None:
        if link == notice.NEWEST_LINK and self.table is not None and len(self.table):
            self.controls.set_evaluate_at(notice.newest_moment(self.table))
        elif link == notice.NOW_LINK:
            self.controls.follow_clock()

    # -- a run ------------------------------------------------------------------------------------

    def selected_detail(self) -> Any:
        return self.detail.detail


def _grid(tl: timeline.Timeline) -> timeline.Grid:
    grid = timeline.grid_of(tl)
    run_reads.give_back_memory()  # its temporary arrays
    return grid
