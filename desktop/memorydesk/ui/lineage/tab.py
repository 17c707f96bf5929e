"""The Lineage tab: memory moving STM → MTM → LPM → retrieval → generation, one lane per scope,
each run a bar coloured by the health the classifier gives it at the evaluated time.

Reading: the stored receipts are read and judged once on the worker (``lineage.runs``);
judging again at another time or window, filtering and laying out happen on the tab's
own thread (``lineage.timeline``), so scrubbing "evaluate at" never touches the
database. A change to receipts (an import, the canary, another process's ingest seen by
the window's watcher) reads only the runs that have new receipts.

Targets for ``navigate`` (``session.navigate("lineage", **target)``):
- ``{"scope": "<userScope>/<assistantScope>"}`` (or ``{"user": U, "assistant": A}``):
  shows that lane's runs (the scope filter is set to it);
- ``{"scope": [{"user": U, "assistant": A}, …]}``: shows only those lanes (a button
  in the filter row says so and shows every lane again);
- ``{"run": "<runId>"}`` or ``{"runs": [<runId>, …]}`` (with or without a scope):
  selects the (first) run and shows why it has its colour.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFileDialog, QLabel, QSplitter, QStackedWidget, QVBoxLayout, QWidget

from memorydesk.core.changes import Kind
from memorydesk.core.health_arrays import from_us
from memorydesk.lineage import runs as run_tables
from memorydesk.lineage import timeline
from memorydesk.lineage.canary import run_gate_apart
from memorydesk.lineage.receipt_files import export_file
from memorydesk.lineage.receipt_import import import_file
from memorydesk.lineage.run_detail import read_detail
from memorydesk.lineage.runs import RunTable
from memorydesk.ui.actions import WriteActions
from memorydesk.ui.lineage import colors
from memorydesk.ui.lineage.axes import when_text
from memorydesk.ui.lineage.canary_dialog import CanaryDialog, CanaryReporter
from memorydesk.ui.lineage.compute import Computer
from memorydesk.ui.lineage.controls import Controls
from memorydesk.ui.lineage.detail import RunDetailPanel
from memorydesk.ui.lineage.flow import FlowPanel
from memorydesk.ui.lineage.item import US
from memorydesk.ui.lineage.panel import TimelinePanel
from memorydesk.ui.operations import describe_error
from memorydesk.ui.session import Change, DeskSession
from memorydesk.ui.tab import DeskTab

EMPTY = ("<h3>No lineage receipts in this workspace yet</h3><p>Receipts arrive from the tier engine, "
         "<b>File ▸ Import receipts…</b> (JSON Lines), <code>memory-desk lineage ingest</code>, the MemoryOS "
         "import, or <b>Tools ▸ Run canary…</b>.</p>")
RECEIPT_KINDS = frozenset({Kind.RECEIPT, Kind.TIER})


class LineageTab(DeskTab):
    name, title = "lineage", "Lineage"
    kinds = RECEIPT_KINDS

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table: RunTable | None = None
        self.tl: timeline.Timeline | None = None
        self.origin_us = 0
        self.selected_id: str | None = None
        self.dialog: Any = None
        self.loading = False
        self._again: bool | None = None  # a refresh came while reading: read again (True: whole)
        self._target: dict[str, Any] | None = None
        self.controls = Controls()
        self.panel = TimelinePanel()
        self.flow = FlowPanel()
        self.detail = RunDetailPanel()
        self.compute = Computer(self)
        self.acts = WriteActions(self, "lineage")
        self.act_import = self.acts.add("Import Receipts…", self.import_receipts, name="import")
        self.act_canary = self.acts.add("Run Canary…", self.run_canary, name="canary")
        self.write_actions = self.acts.all
        for action in self.write_actions:
            self.controls.tools.addAction(action)
        self.empty = QLabel(EMPTY)
        self.empty.setObjectName("lineage-empty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.empty)
        self.pages.addWidget(self.panel)
        side = QSplitter(Qt.Orientation.Horizontal)
        side.setObjectName("lineage-side-split")
        side.addWidget(self.pages)
        side.addWidget(self.flow)
        side.setStretchFactor(0, 3)
        side.setStretchFactor(1, 1)
        side.setSizes([960, 300])
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("lineage-split")
        split.addWidget(side)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([430, 240])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.controls)
        layout.addWidget(split, 1)

        self._rebuild_timer = self._single(60, self._rebuild)
        self._flow_timer = self._single(150, self._update_flow)
        self._line_timer = self._single(120, self._line_moved)
        self.clock = QTimer(self)
        self.clock.setInterval(60_000)
        self.clock.timeout.connect(self.controls.tick)
        self.controls.changed.connect(self._rebuild_timer.start)
        self.controls.fit_requested.connect(lambda: self.panel.key(Qt.Key.Key_Home, Qt.KeyboardModifier.NoModifier))
        self.panel.run_clicked.connect(self.select_run)
        self.panel.view_changed.connect(self._flow_timer.start)
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
        self.clock.start()
        self.reload(whole=True)

    def refresh(self, change: Change) -> None:
        self.reload(whole=False)

    def navigate(self, target: dict[str, Any]) -> None:
        if self.table is None or self.loading:
            self._target = dict(target)
            return
        lanes = _lanes_of(target, self.table.lanes)
        runs = [str(r) for r in target.get("runs", [])] + ([str(target["run"])] if "run" in target else [])
        if lanes or runs:
            self.controls.clear_filters()
        if len(lanes) == 1:
            self.controls.set_scope(f"{lanes[0][0]} / {lanes[0][1]}")
        elif lanes:
            self.controls.set_lanes(lanes)
        elif isinstance(target.get("scope"), str):  # a text that names no lane: the scope filter as it is
            self.controls.set_scope(target["scope"])
        found = [self.table.index[r] for r in runs if r in self.table.index]
        if found:
            self._target = {"select": found[0]}
        elif runs and self.session is not None:
            self.session.status.emit(f"Run {runs[0]} has no receipts in this workspace")

    def close(self) -> bool:
        self.clock.stop()
        for timer in (self._rebuild_timer, self._flow_timer, self._line_timer):
            timer.stop()
        self.compute.shutdown()
        return super().close()

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
        return self.loading or self.compute.pending > 0 or any(t.isActive() for t in timers)

    # -- reading ----------------------------------------------------------------------------------

    def reload(self, whole: bool = True) -> None:
        """Read the receipts again: every run (``whole``), or only the runs with new receipts."""
        if self.session is None or self.closed:
            return
        if self.loading:
            self._again = bool(self._again) or whole
            return
        self.loading = True
        self.start(self._read(whole or self.table is None))

    async def _read(self, whole: bool) -> None:
        table = self.table
        try:
            if whole:
                result = await self.session.job(
                    "Reading lineage receipts", lambda ws, job: run_tables.load_runs(
                        ws, progress=lambda d, t: job.report(d, t, "receipts judged"), cancelled=lambda: job.cancelled))
            else:
                result = await self.session.read(lambda ws: run_tables.load_changes(ws, table), label="reading receipts",
                                                 quiet=True)
        finally:
            self.loading = False
        if self.closed:
            return
        if result is not None:
            self._loaded(result)
        elif self._target is not None:
            self._apply_target()
        again, self._again = self._again, None
        if again is not None:
            self.reload(whole=again)

    def _loaded(self, table: RunTable) -> None:
        first = self.table is None
        self.table = table
        lo, hi = table.span()
        if first or not self.origin_us:
            self.origin_us = lo
        self.pages.setCurrentIndex(1 if len(table) else 0)
        counts = {name: len(table.runs_with_source_version(name)) for name in table.source_versions}
        self.controls.set_source_versions(table.source_versions, counts)
        if len(table):
            self.controls.set_span(from_us(lo), from_us(hi))
        self._rebuild()
        if self._target is not None:
            self._apply_target()

    def _apply_target(self) -> None:
        target, self._target = self._target, None
        if target and "select" not in target:
            self.navigate(target)
        elif target:
            self._target = target  # applied once the timeline is laid out

    def _rebuild(self) -> None:
        table, fresh = self.table, self.controls.fresh_for()
        if table is None or fresh is None:
            return
        now, filters = self.controls.evaluate_us(), self.controls.filters()
        self.compute.submit(lambda: timeline.build(table, now, fresh // timedelta(microseconds=1), filters, grid=False),
                            self._built)

    def _built(self, tl: timeline.Timeline) -> None:
        if self.closed or tl.table is not self.table:
            return
        keep = self.tl is not None
        self.tl = tl
        self.panel.set_timeline(tl, self.origin_us, keep_view=keep)
        self.controls.set_legend(tl)
        self._flow_timer.start()
        if self._target is not None and "select" in self._target:
            run = self._target.pop("select")
            self._target = None
            self.panel.show_run(run)
            self.select_run(run)
        elif self.selected_id is not None:
            run = self.table.index.get(self.selected_id) if self.table else None
            self.panel.item.selected = run
            if run is not None:
                self._read_detail(self.selected_id)
        self.compute.submit(lambda: _grid(tl), lambda grid: self._grid_ready(tl, grid))

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
            return tl.transitions(a, b), tl.occupancy(now, rows=rows)

        def show(result: tuple) -> None:
            if tl is not self.tl or self.closed:
                return
            (edges, total, risky, hours), (names, counts) = result
            x = (edges - self.origin_us) / US
            self.flow.set_transitions(x, total, risky, hours, (x0, x1), self.origin_us / US)
            self.flow.set_occupancy(names, counts)

        self.compute.submit(work, show, latest=False)

    def _line_moved(self) -> None:
        moment = from_us(self.panel.item.t_of(self.panel.now_line.value()))
        if abs((moment - self.controls.evaluate_at()).total_seconds()) >= 1:
            self.controls.set_evaluate_at(moment)

    # -- a run ------------------------------------------------------------------------------------

    def describe(self, run: int | None, t_us: int) -> str:
        """The timeline's tooltip: the run under the pointer, or the time there (local and UTC)."""
        tl = self.tl
        if tl is None:
            return ""
        if run is None:
            return when_text(t_us / US)
        table = tl.table
        state = timeline.STATES[int(tl.state[run]) - 1]
        return (f"{table.run_ids[run]} — {state.color}: {state} (rule {state.rule})\n"
                f"lane {table.lane_name(int(table.lane[run]))}\n"
                f"first {when_text(table.start[run] / US)}\nlast  {when_text(table.end[run] / US)}"
                + ("\ncanary run" if table.canary[run] else ""))

    def select_run(self, run: int | None) -> None:
        tl = self.tl
        if tl is None or run is None:
            return
        table = tl.table
        self.selected_id = table.run_ids[run]
        self.panel.item.selected = run
        self.panel.item.update()
        state = timeline.STATES[int(tl.state[run]) - 1]
        self.detail.show_pending(
            f"<b>{self.selected_id}</b> · {colors.swatch(state.color)} <b>{state.color}</b> · {state} "
            f"(rule {state.rule}) · lane {table.lane_name(int(table.lane[run]))} · reading its receipts…")
        self._read_detail(self.selected_id)

    def _read_detail(self, run_id: str) -> None:
        now, fresh = self.controls.evaluate_at(), self.controls.fresh_for()
        if fresh is None:
            return

        def show(detail: Any) -> None:
            if run_id != self.selected_id:
                return
            if detail is None:
                self.detail.show_detail(None, f"Run {run_id} has no receipts any more.")
            else:
                self.detail.show_detail(detail)

        self.run(lambda ws: read_detail(ws, run_id, now, fresh), show, label="reading the run's receipts")

    def selected_detail(self) -> Any:
        return self.detail.detail

    # -- writing: import and canary ---------------------------------------------------------------

    async def import_receipts(self, path: str | None = None) -> None:
        """File ▸ Import receipts…: a JSON Lines or OTLP/JSON file, all or nothing, with progress."""
        if not self.acts.allowed(self.act_import) or self.session is None:
            return
        if path is None:
            path, _filter = QFileDialog.getOpenFileName(self, "Import receipts", "",
                                                        "Receipts: JSON Lines or OTLP/JSON (*.jsonl *.ndjson *.json);;All files (*)")
            if not path:
                return

        def work(ws, job):
            return import_file(ws, path, lambda d, t, x: job.report(d, t, x), job.check)

        result = await self.session.job(f"Importing {Path(path).name}", work, kinds=RECEIPT_KINDS)
        self.session.status.emit(result.message())

    async def export_receipts(self, path: str | None = None, fmt: str | None = None) -> None:
        """File ▸ Export Receipts…: every stored receipt as OTLP/JSON (for OpenTelemetry) or JSON Lines."""
        if self.session is None:
            return
        if path is None:
            otlp, jsonl = "OTLP/JSON, for OpenTelemetry (*.json)", "JSON Lines (*.jsonl)"
            path, chosen = QFileDialog.getSaveFileName(self, "Export receipts", "receipts.otlp.json",
                                                       f"{otlp};;{jsonl}")
            if not path:
                return
            fmt = "jsonl" if chosen == jsonl else "otlp-json"
        fmt = fmt or ("jsonl" if path.endswith((".jsonl", ".ndjson")) else "otlp-json")

        def work(ws, job):
            job.report(0, 1, f"writing {Path(path).name}")
            return export_file(ws, path, fmt)

        count = await self.session.job(f"Exporting {Path(path).name}", work)
        self.session.status.emit(f"Exported {count:,} receipts to {Path(path).name} "
                                 f"({'OTLP/JSON' if fmt == 'otlp-json' else 'JSON Lines'}).")

    async def run_canary(self) -> None:
        """Tools ▸ Run canary…: the gate with its progress and a result per check."""
        if not self.acts.allowed(self.act_canary) or self.session is None:
            return
        dialog = CanaryDialog(self)
        dialog.show_runs.connect(self.show_canary_runs)
        reporter = CanaryReporter(dialog)
        reporter.progressed.connect(dialog.on_progress)
        reporter.checked.connect(dialog.on_check)
        self.dialog = dialog
        dialog.open()
        path = self.session.ws.path

        def work(ws, job):
            def progress(done: int, total: int, text: str) -> None:
                job.report(done, total, text)
                reporter.progressed.emit(done, total, text)

            return run_gate_apart(path, progress=progress, keep_receipts=True, cancelled=lambda: job.cancelled,
                                  on_check=lambda c: reporter.checked.emit(c.name, c.passed, c.detail))

        try:
            passed = await self.session.job("Running the canary", work, kinds=RECEIPT_KINDS | {Kind.FACT})
        except Exception as exc:
            dialog.on_failed(describe_error(exc))
            raise
        dialog.on_finished(passed)
        self.session.status.emit("The canary passed." if passed else "The canary failed: see its checks.")

    def show_canary_runs(self) -> None:
        self.controls.clear_filters()
        self.controls.canary.setChecked(True)


def _lanes_of(target: dict[str, Any], known: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The lanes a navigation target names: ``scope`` as "user/assistant" text (matched
    against the ``known`` lanes: a scope may hold a slash itself), a {"user", "assistant"}
    mapping or a list of either, or ``user`` and ``assistant`` keys."""
    scope = target.get("scope")
    items = scope if isinstance(scope, list) else [scope] if scope is not None else []
    if "user" in target:
        items.append({"user": target["user"], "assistant": target.get("assistant", "")})
    lanes = []
    for item in items:
        if isinstance(item, dict) and "user" in item:
            lanes.append((str(item["user"]), str(item.get("assistant", ""))))
        elif isinstance(item, str):
            lanes += [lane for lane in known if f"{lane[0]}/{lane[1]}" == item]
    return lanes


def _grid(tl: timeline.Timeline) -> timeline.Grid:
    grid = timeline.grid_of(tl)
    run_tables.give_back_memory()  # its temporary arrays
    return grid
