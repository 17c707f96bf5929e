"""Where the Lineage tab reads its receipts from: the workspace's stored receipts, or a ClickHouse
source (a fleet's ``otel_traces``). Both give the tab the same four reads, on its worker:

- ``load`` every run it shows (a :class:`~memorydesk.lineage.runs.RunTable`, judged by the one
  classifier);
- ``changes`` the table brought up to date (None: nothing new);
- ``as_of`` the table as an operator saw it at an earlier time;
- ``detail`` one run explained.

The workspace reads every stored run; a ClickHouse source reads the time in view — the runs with a
receipt in the tab's time range (the last hour of the source when no range is set, moving with
the newest receipt while the tab follows the clock) and in the lanes the scope filter names — and
counts runs and receipts per lane and per sourceVersion in the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Final

from memorydesk.core.receipt_codes import to_us
from memorydesk.core.receipts import Receipt
from memorydesk.lineage import run_reads
from memorydesk.lineage.run_detail import RunDetail, read_detail
from memorydesk.lineage.runs import RunTable, table_of
from memorydesk.store import Workspace

HOUR_US: Final = 3_600_000_000


class WorkspaceReceipts:
    """The receipts stored in the workspace (every run)."""

    fleet = None  # no ClickHouse source

    def load(self, ws: Workspace, progress: Callable[[int, int], None] | None = None,
             cancelled: Callable[[], bool] | None = None) -> RunTable:
        return run_reads.load_runs(ws, progress=progress, cancelled=cancelled)

    def changes(self, ws: Workspace, table: RunTable) -> RunTable | None:
        return run_reads.load_changes(ws, table)

    def as_of(self, ws: Workspace, table: RunTable, now_us: int) -> RunTable:
        return run_reads.as_of(ws, table, now_us)

    def detail(self, ws: Workspace, run_id: str, now: datetime, fresh_for: timedelta) -> RunDetail | None:
        return read_detail(ws, run_id, now, fresh_for)


class FleetReceipts:
    """The receipts of a ClickHouse source, the time in view at a time (``ws`` is not read)."""

    def __init__(self, name: str, span_us: int = HOUR_US) -> None:
        from memorydesk.lineage.fleet.source import parse_source

        self.name = name
        self.fleet = parse_source(name)
        self.span_us = span_us
        self.since_us: int | None = None  # the tab's time range (None: the last span_us of the source)
        self.until_us: int | None = None
        self.scope = ""
        self.window = None  # the last read (memorydesk.lineage.fleet.read.Window)
        self._receipts: list[Receipt] = []
        self._engine = None  # held open while the tab shows the source (opened on the worker)
        self._states = None  # (window, time, freshness) → the engine's counts per state

    def engine(self):
        """The connection this view reads through, opened (and the table's shape checked) at first use."""
        if self._engine is None or self._engine.closed:
            from memorydesk.lineage.fleet import layout

            engine = self.fleet.connect()
            try:
                layout.check(engine)
            except BaseException:
                engine.close()
                raise
            self._engine = engine
        return self._engine

    def close(self) -> None:
        """Let the source go (a chDB directory can then be opened by another process)."""
        if self._engine is not None:
            self._engine.close()

    def want(self, since_us: int | None, until_us: int | None, scope: str) -> bool:
        """Ask for another time range or scope; True when that needs a new read."""
        if (since_us, until_us, scope) == (self.since_us, self.until_us, self.scope):
            return False
        self.since_us, self.until_us, self.scope = since_us, until_us, scope
        return True

    def load(self, ws: Workspace | None = None, progress: Callable[[int, int], None] | None = None,
             cancelled: Callable[[], bool] | None = None) -> RunTable:
        from memorydesk.lineage.fleet import read as fleet

        window, receipts = fleet.read_window(self.fleet, self.since_us, self.until_us, self.scope, self.span_us,
                                             keep=True, engine=self.engine())
        self.window, self._receipts = window, receipts
        if progress is not None:
            progress(len(receipts), len(receipts))
        return window.table

    def changes(self, ws: Workspace | None, table: RunTable) -> RunTable | None:
        """Read the window again when the source has receipts it had not (a moving window follows them)."""
        from memorydesk.lineage.fleet import read as fleet

        if self.window is None:
            return self.load(ws)
        if fleet.extent(self.engine()) == self.window.extent:
            return None
        return self.load(ws)

    def as_of(self, ws: Workspace | None, table: RunTable, now_us: int) -> RunTable:
        """The window's runs judged on their receipts dated at or before ``now_us``."""
        return table_of([r for r in self._receipts if to_us(r.at_utc) <= now_us])

    def states(self, ws: Workspace | None, now_us: int, fresh_us: int):
        """The engine's counts per state (and per lane, per sourceVersion) of the window read, judged at
        ``now_us`` (``lineage.fleet.read.StateCounts``); kept for that time and window."""
        from memorydesk.lineage.fleet import read as fleet

        window = self.window
        key = (window.since_us, window.until_us, window.scope, now_us, fresh_us)
        if self._states is None or self._states[0] != key:
            self._states = key, fleet.state_counts(self.engine(), window.since_us, window.until_us, now_us,
                                                   fresh_us, window.scope)
        return self._states[1]

    def detail(self, ws: Workspace | None, run_id: str, now: datetime, fresh_for: timedelta) -> RunDetail | None:
        from memorydesk.lineage.fleet import read as fleet

        return fleet.read_detail(self.fleet, run_id, now, fresh_for, engine=self.engine())
