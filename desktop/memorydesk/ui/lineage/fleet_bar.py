"""The Lineage tab on a ClickHouse source (File ▸ Open Receipts Source…): the bar that says which
source and which time is read, follows the source's new receipts, and goes back to the workspace.

A source is ``chdb:PATH[?database=D&table=T]`` or ``clickhouse://HOST[:PORT][/DB][?table=T]`` (the
OpenTelemetry Collector exporter's ``otel_traces``); the tab reads the time in view from it
(``lineage.receipt_views.FleetReceipts``) and asks again when the time range or the scope filter
changes, and every :data:`POLL_MS` while it is shown, for receipts the source has newly received.
"""

from __future__ import annotations

from typing import Any, Final

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QInputDialog, QLabel, QPushButton, QWidget

from memorydesk.core.errors import BadInput
from memorydesk.core.health.arrays import from_us
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
        """What was read, and the engine's counts of it (runs per sourceVersion in the list, too)."""
        fleet = self.fleet
        window = fleet.window if fleet is not None else None
        if window is None:
            return
        counts = tl.source_counts()
        engine = window.counts.sources
        self.tab.controls.set_source_versions(tl.whole.source_versions, {
            name: (engine.get(name, (runs, 0))[0], risky) for name, (runs, risky) in counts.items()})
        lanes, runs = len(window.counts.lanes), window.counts.runs
        in_lanes = sum(r for r, _ in window.counts.lanes.values())
        shared = (" (some name more than one scope: scope_conflict — the timeline draws each in the lane of its "
                  "first receipt)" if in_lanes > runs else "")
        unstated = engine.get("", (0, 0))[0]
        ext = window.extent
        whole = (f"{ext.spans:,} spans from {local_text(ext.first_us / US)} to {local_text(ext.last_us / US)}"
                 if ext.spans else "no spans")
        self.label.setText(
            f"Receipts from <b>{fleet.fleet.describe()}</b> ({whole}). Shown: the runs with a receipt from "
            f"{local_text(window.since_us / US)} to {local_text(window.until_us / US)}"
            f"{' in lanes matching “' + window.scope + '”' if window.scope else ''} — set the time range to read "
            f"another. ClickHouse counts {runs:,} runs there, with receipts in {lanes:,} lanes{shared}"
            f"{f'; {unstated:,} runs have a receipt without sourceVersion' if unstated else ''}.")
        self.label.setToolTip(f"Evaluated at {from_us(tl.now_us).isoformat()}")


def _scope(filters: Filters) -> str:
    """The scope filter's text, matched against ``userScope / assistantScope`` as the timeline does."""
    return filters.scope.strip()
