"""The Lineage tab on a ClickHouse source (File ▸ Open Receipts Source…): the bar that says which
source and which time is read, follows the source's new receipts, and goes back to the workspace.

A source is ``chdb:PATH[?database=D&table=T]`` or ``clickhouse://HOST[:PORT][/DB][?table=T]`` (the
OpenTelemetry Collector exporter's ``otel_traces``); the tab reads the time in view from it
(``lineage.receipt_views.FleetReceipts``) and asks again when the time range or the scope filter
changes, and every :data:`POLL_MS` while it is shown, for receipts the source has newly received.

A source is read on a thread of its own (:meth:`FleetBar.call`), never on the workspace's worker: a
host that does not answer holds up nothing else, Cancel and Back act at once (the read is abandoned,
its result or error dropped when it comes), and a source that cannot be read is said once, on this
bar, with Retry and Back — the poll stops until Retry.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, Final

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QInputDialog, QLabel, QPushButton, QWidget

from memorydesk.core.errors import BadInput
from memorydesk.core.health.table import Color
from memorydesk.core.receipt_codes import from_us
from memorydesk.lineage.fleet.read import StateCounts
from memorydesk.lineage.receipt_views import FleetReceipts, WorkspaceReceipts
from memorydesk.lineage.timeline import Filters, Timeline
from memorydesk.ui.lineage.axes import local_text
from memorydesk.ui.lineage.item import US
from memorydesk.ui.operations import Cancelled, describe_error
from memorydesk.ui.runner import Runner

POLL_MS: Final = 15_000
PROMPT: Final = ("A ClickHouse source of receipts — the OpenTelemetry Collector exporter's otel_traces table:\n"
                 "chdb:PATH[?database=D&table=T]  (a ClickHouse data directory)\n"
                 "clickhouse://[USER[:PASSWORD]@]HOST[:PORT][/DB][?table=T]  (a server, over HTTP)")
PICK: Final = "Click a run, or press N on the timeline for the next at-risk run, to see why it has its colour."


class FleetBar(QWidget):
    def __init__(self, tab: Any) -> None:
        super().__init__(tab)
        self.setObjectName("lineage-fleet-bar")
        self.tab = tab
        self.label = QLabel()
        self.label.setObjectName("lineage-fleet-source")
        self.label.setWordWrap(True)
        self.back = QPushButton("Back to the Workspace's Receipts")
        self.back.setObjectName("lineage-fleet-back")
        self.back.clicked.connect(self.use_workspace)
        self.retry = QPushButton("Retry")
        self.retry.setObjectName("lineage-fleet-retry")
        self.retry.clicked.connect(self.try_again)
        self.retry.setVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.retry)
        layout.addWidget(self.back)
        self.worker: Runner | None = None  # the thread the source shown is read on (_worker_for)
        self._chdb: Runner | None = None
        self._left: tuple | None = None  # (following, evaluated at, range on, since, until) of the workspace
        self.failure = ""  # why the source could not be read (said on this bar until Retry or Back)
        self.poll = QTimer(self)
        self.poll.setInterval(POLL_MS)
        self.poll.timeout.connect(lambda: self.tab.reload(whole=False))
        self._counting = False  # the engine's counts per state are being read
        self._asked: Timeline | None = None  # the timeline they were last asked for
        self.setVisible(False)

    @property
    def fleet(self) -> FleetReceipts | None:
        receipts = self.tab.receipts
        return receipts if isinstance(receipts, FleetReceipts) else None

    def source_dialog(self) -> QInputDialog:
        """The dialog that asks for a source's name. Its label is the name field's buddy, so Qt would
        take an ``&`` in it for a shortcut mark (``?database=D&table=T`` read ``?database=Dtable=T``
        with ``t`` underlined): each is doubled, to show as itself."""
        dialog = QInputDialog(self.tab)
        dialog.setWindowTitle("Open Receipts Source")
        dialog.setLabelText(PROMPT.replace("&", "&&"))
        dialog.setTextValue(self.fleet.name if self.fleet is not None else "")
        return dialog

    def ask(self) -> None:
        """File ▸ Open Receipts Source…: asks for the source's name, then reads it."""
        dialog = self.source_dialog()
        if dialog.exec() and dialog.textValue().strip():
            self.open_source(dialog.textValue().strip())

    def open_source(self, name: str) -> bool:
        """Show the receipts of ``name``; a name that is not a source is said on the status bar."""
        try:
            receipts = FleetReceipts(name)
        except BadInput as exc:
            if self.tab.session is not None:
                self.tab.session.status.emit(str(exc))
            return False
        controls = self.tab.controls
        if self.fleet is None:  # how the workspace was left, for Back
            self._left = (controls.following, controls.evaluate_at(), controls.range_on.isChecked(),
                          controls.since.moment(), controls.until.moment())
        filters = controls.filters()
        receipts.want(filters.since_us, filters.until_us, _scope(filters))
        self._switch(receipts)
        self.label.setText(f"Receipts from <b>{html.escape(receipts.fleet.describe())}</b> — reading the time "
                           "in view…")
        self.setVisible(True)
        self.poll.start()
        return True

    def use_workspace(self) -> None:
        if self.fleet is None:
            return
        self.poll.stop()
        self.setVisible(False)
        self._switch(WorkspaceReceipts())
        if self._left is not None:  # the evaluated time, time range and following as the workspace was left
            following, moment, ranged, since, until = self._left
            controls = self.tab.controls
            controls.since.set_moment(since)
            controls.until.set_moment(until)
            controls.range_on.setChecked(ranged)
            if following:
                controls.follow_clock()
            else:
                controls.set_evaluate_at(moment)

    def said_show_all(self) -> None:
        """Show all, on a source: every run read — the time range read, not the whole source."""
        fleet = self.fleet
        if fleet is not None and fleet.window is not None and self.tab.session is not None:
            window = fleet.window
            self.tab.session.status.emit(
                f"Showing every run read from the source: those with a receipt from {local_text(window.since_us / US)} "
                f"to {local_text(window.until_us / US)} — set the time range to read another.")

    def try_again(self) -> None:
        """Retry: read the source again, and follow it again."""
        if self.fleet is None:
            return
        self.failure = ""
        self.retry.setVisible(False)
        self.label.setText(f"Receipts from <b>{html.escape(self.fleet.fleet.describe())}</b> — reading the time "
                           "in view…")
        self.poll.start()
        self.tab.reload(whole=True)

    def _switch(self, receipts: Any) -> None:
        """Show ``receipts`` from now on: nothing of what was shown stays (its runs, counts, lists)
        until they are read; a read of the receipts left still running is abandoned."""
        tab = self.tab
        self.release(tab.receipts)
        self.failure = ""
        self.retry.setVisible(False)
        if isinstance(receipts, FleetReceipts) and tab.session is not None:
            self.worker = self._worker_for(receipts)
        tab.receipts = receipts
        tab.table, tab.tl, tab._cut = None, None, None
        tab.selected_id = None
        tab.runs.clear()
        tab.controls.legend.setText("")
        tab.controls.set_source_versions([], {})
        tab.pages.setCurrentWidget(tab.waiting)
        tab.detail.show_detail(None, PICK)
        tab.loading = False  # a read of the receipts left is abandoned: its result is dropped when it comes
        tab._again = None
        tab.reload(whole=True)

    def release(self, receipts: Any, wait: bool = False) -> None:
        """Let a ClickHouse source go: its connection closed on its own thread once what runs there
        ends, then the thread (``wait``: now, on this thread — the window is closing)."""
        worker = self.worker
        if not isinstance(receipts, FleetReceipts) or worker is None:
            return
        self.worker = None
        if wait:
            worker.shutdown(wait=True)
            receipts.close()
            return
        shared = worker is self._chdb  # chDB's thread stays for the next chdb: source (see _worker_for)
        end = (lambda _r=None: None) if shared else (lambda _r=None: worker.shutdown(wait=False))
        worker.run(receipts.close, end, on_failure=end, label="closing the receipts source", quiet=True)

    def _worker_for(self, receipts: FleetReceipts) -> Runner:
        """A server's reads go on a thread of the source's own, let go with it (a host that does not
        answer holds up nothing after). chDB's go on one thread for every chdb: source: chDB opens one
        directory per process, so the directory left is closed there before the next is opened."""
        if receipts.fleet.kind != "chdb":
            return self.tab.session.ops.thread("memorydesk-fleet", self)
        if self._chdb is None or not self._chdb.running:
            self._chdb = self.tab.session.ops.thread("memorydesk-chdb", self)
        return self._chdb

    def call(self, receipts: Any, fn: Callable[[], Any], title: str = "") -> Awaitable[Any]:
        """``fn()`` on the source's own thread; its result (or error) back in the flow — nothing said
        by the window's error path: the tab says it. With a ``title`` the status bar shows it with
        Cancel, which abandons it at once (:class:`Cancelled`). Work for a source the tab has left is
        abandoned too."""
        future: asyncio.Future = asyncio.get_event_loop().create_future()
        worker = self.worker if receipts is self.fleet else None
        if worker is None:
            future.set_exception(Cancelled("the receipts source was left"))
            return future

        ops = self.tab.session.ops
        job = ops.begin_job(title) if title else None

        def settle(result: Any = None, error: BaseException | None = None) -> None:
            if future.done():
                return
            if job is not None:
                ops.end_job(job)
            if receipts is not self.fleet:
                future.set_exception(Cancelled("the receipts source was left"))
            elif error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

        if job is not None:
            job.stopped.connect(lambda: settle(error=Cancelled(f"{title}: stopped")))
        if not worker.run(fn, settle, on_failure=lambda e: settle(error=e), label=title, quiet=True):
            settle(error=Cancelled("the receipts source was left"))
        return future

    def run(self, receipts: Any, fn: Callable[[], Any], on_done: Callable[[Any], None],
            on_failure: Callable[[BaseException], None] | None = None) -> None:
        """``call`` for a callback: ``on_done(result)`` while the tab still shows ``receipts``."""
        async def flow() -> None:
            try:
                result = await self.call(receipts, fn)
            except Cancelled:
                return
            except Exception as exc:  # said by the caller, or on this bar
                if on_failure is not None:
                    on_failure(exc)
                else:
                    self.cannot_read(receipts, exc)
                return
            on_done(result)

        self.tab.start(flow())

    def cannot_read(self, receipts: Any, exc: BaseException | str) -> None:
        """The source could not be read: said once, here, with Retry and Back; the poll stops (it is
        not asked again until Retry)."""
        if receipts is not self.fleet:
            return  # a source already left: dropped
        self.poll.stop()
        self.failure = exc if isinstance(exc, str) else describe_error(exc)
        source = receipts.fleet
        why = self.failure  # its sentence names the source: said once, in bold, before it
        for named in (f"{source.describe()}: ", f"chdb:{source.path} "):
            if why.startswith(named):
                why = ("it " if named.endswith(" ") and not named.endswith(": ") else "") + why[len(named):]
                break
        self.label.setText(f"<b>{html.escape(source.describe())}</b> cannot be read: {html.escape(why)}")
        self.retry.setVisible(True)

    def wants_read(self, filters: Filters) -> bool:
        """The time range or scope asked for is not what was read (a ClickHouse source reads only it)."""
        fleet = self.fleet
        return fleet is not None and fleet.want(filters.since_us, filters.until_us, _scope(filters))

    def show_window(self, tl: Timeline) -> None:
        """What was read; then the engine's counts per state of it at the evaluated time, asked for
        after the timeline is drawn (:meth:`show_states`), one count at a time: a timeline drawn while
        one is counted is counted when it is done."""
        fleet = self.fleet
        if fleet is None or fleet.window is None or self.tab.controls.fresh_for() is None:
            return
        self.label.setText(self._read_text(fleet, fleet.window) + " ClickHouse is counting the runs there per state…")
        self.label.setToolTip(f"Evaluated at {from_us(tl.now_us).isoformat()}")
        self._asked = tl
        if not self._counting:
            self._count(tl)

    def _count(self, tl: Timeline) -> None:
        fleet, fresh = self.fleet, self.tab.controls.fresh_for()
        if fleet is None or fleet.window is None or fresh is None:
            return
        window, now, fresh_us = fleet.window, tl.now_us, fresh // timedelta(microseconds=1)
        self._counting = True

        def done(counts: StateCounts) -> None:
            self._counting = False
            self.show_states(tl, counts)
            if self._asked is not tl and self._asked is self.tab.tl:
                self._count(self._asked)

        def failed(exc: BaseException) -> None:
            self._counting = False
            if self.fleet is not None and self.fleet.window is window:
                self.label.setText(self._read_text(fleet, window) + f" ClickHouse could not count them: {exc}")

        self.run(fleet, lambda: fleet.states(None, now, fresh_us), done, on_failure=failed)

    def show_states(self, tl: Timeline, counts: StateCounts) -> None:
        """The engine's counts per state, lane and sourceVersion, beside what the tab drew."""
        fleet = self.fleet
        if fleet is None or fleet.window is None or tl is not self.tab.tl:
            return  # another read or another time since
        per_source = source_counts(counts)
        # the names ClickHouse counted runs of in the window read, at the evaluated time: none left from
        # a read before
        self.tab.controls.set_source_versions([name for name in per_source if name], per_source)
        runs = sum(counts.states.values())  # each run once, in its state
        lanes = len({lane for lane, _state in counts.lanes})
        shared = (" (some name more than one scope: scope_conflict — the timeline draws each in the lane of its "
                  "first receipt)" if sum(counts.lanes.values()) > runs else "")
        unstated = per_source.get("", (0, 0))[0]
        states = ", ".join(f"{n:,} {state.value.replace('_', ' ')}" for state, n in
                           sorted(counts.states.items(), key=lambda item: item[0].rule))
        self.label.setText(
            self._read_text(fleet, fleet.window) + f" ClickHouse judges {runs:,} runs there, with receipts in "
            f"{lanes:,} lanes{shared}: {states or 'none'}"
            f"{f'; {unstated:,} runs have a receipt without sourceVersion' if unstated else ''}.")

    @staticmethod
    def _read_text(fleet: FleetReceipts, window: Any) -> str:
        ext = window.extent
        whole = (f"{ext.spans:,} spans from {local_text(ext.first_us / US)} to {local_text(ext.last_us / US)}"
                 if ext.spans else "no spans")
        return (f"Receipts from <b>{fleet.fleet.describe()}</b> ({whole}). Shown: the runs with a receipt from "
                f"{local_text(window.since_us / US)} to {local_text(window.until_us / US)}"
                f"{' in lanes matching “' + window.scope + '”' if window.scope else ''} — set the time range to "
                "read another.")


def source_counts(counts: StateCounts) -> dict[str, tuple[int, int]]:
    """Per sourceVersion: (runs, of which at-risk — a state whose colour is at-risk, as the workspace's
    list counts them; stale and uncertain runs are not at-risk)."""
    per_source: dict[str, tuple[int, int]] = {}
    for (name, state), runs in counts.sources.items():
        total, risky = per_source.get(name, (0, 0))
        per_source[name] = (total + runs, risky + (runs if state.color is Color.AT_RISK else 0))
    return per_source


def _scope(filters: Filters) -> str:
    """The scope filter's text, matched against ``userScope / assistantScope`` as the timeline does."""
    return filters.scope.strip()
