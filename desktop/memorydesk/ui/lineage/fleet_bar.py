"""The Lineage tab on a ClickHouse source (File ▸ Open Receipts Source…): the bar that says which
source and which time is read, follows the source's new receipts, and goes back to the workspace.

A source is ``chdb:PATH[?database=D&table=T]`` or ``clickhouse://HOST[:PORT][/DB][?table=T]`` (the
OpenTelemetry Collector exporter's ``otel_traces``); the tab reads the time in view from it
(``lineage.receipt_views.FleetReceipts``) and asks again when the time range or the scope filter
changes, and every :data:`POLL_MS` while it is shown, for receipts the source has newly received.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QInputDialog, QLabel, QPushButton, QWidget

from memorydesk.core.errors import BadInput
from memorydesk.core.health.table import OK_STATES
from memorydesk.core.receipt_codes import from_us
from memorydesk.lineage.fleet.read import StateCounts
from memorydesk.lineage.receipt_views import FleetReceipts, WorkspaceReceipts
from memorydesk.lineage.timeline import Filters, Timeline
from memorydesk.ui.lineage.axes import local_text
from memorydesk.ui.lineage.item import US

POLL_MS: Final = 15_000
PROMPT: Final = ("A ClickHouse source of receipts — the OpenTelemetry Collector exporter's otel_traces table:\n"
                 "chdb:PATH[?database=D&table=T]  (a ClickHouse data directory)\n"
                 "clickhouse://[USER[:PASSWORD]@]HOST[:PORT][/DB][?table=T]  (a server, over HTTP)")


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
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.back)
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
        filters = self.tab.controls.filters()
        receipts.want(filters.since_us, filters.until_us, _scope(filters))
        self._switch(receipts)
        self.label.setText(f"Receipts from <b>{receipts.fleet.describe()}</b> — reading the time in view…")
        self.setVisible(True)
        self.poll.start()
        return True

    def use_workspace(self) -> None:
        if self.fleet is None:
            return
        self.poll.stop()
        self.setVisible(False)
        self._switch(WorkspaceReceipts())

    def _switch(self, receipts: Any) -> None:
        tab = self.tab
        self.release(tab.receipts)
        tab.receipts = receipts
        tab.table, tab.tl, tab._cut = None, None, None
        tab.selected_id = None
        tab.reload(whole=True)

    def release(self, receipts: Any) -> None:
        """Close a ClickHouse source's connection on the worker that used it."""
        if isinstance(receipts, FleetReceipts) and self.tab.session is not None:
            self.tab.run(lambda _ws: receipts.close(), lambda _r: None, label="closing the receipts source")

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

        self.tab.run(lambda ws: fleet.states(ws, now, fresh_us), done, label="counting runs per state in ClickHouse",
                     quiet=True, on_failure=failed)

    def show_states(self, tl: Timeline, counts: StateCounts) -> None:
        """The engine's counts per state, lane and sourceVersion, beside what the tab drew."""
        fleet = self.fleet
        if fleet is None or fleet.window is None or tl is not self.tab.tl:
            return  # another read or another time since
        per_source: dict[str, tuple[int, int]] = {}
        for (name, state), runs in counts.sources.items():
            total, risky = per_source.get(name, (0, 0))
            per_source[name] = (total + runs, risky + (0 if state in OK_STATES else runs))
        self.tab.controls.set_source_versions(tl.whole.source_versions, per_source)
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


def _scope(filters: Filters) -> str:
    """The scope filter's text, matched against ``userScope / assistantScope`` as the timeline does."""
    return filters.scope.strip()
