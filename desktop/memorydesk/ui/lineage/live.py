"""Following the clock, live: the Lineage tab's evaluated time moves when time alone changes
what it shows — a waiting window closes, a run's newest receipt leaves the freshness window,
a receipt dated after the clock starts to count (``RunTable.next_change``) — and at least
once a minute; never more often than four layouts' time apart (with very many runs, states
change every few seconds). New receipts move it at once (``LineageTab._loaded``). What the
picture needs said — receipts dated after the clock, history all older than the window — is
said above the timeline (``notice``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from PySide6.QtCore import QObject, QTimer

from memorydesk.core.receipt_codes import to_us
from memorydesk.lineage.timeline import Timeline
from memorydesk.ui.lineage import notice
from memorydesk.ui.lineage.controls import Controls

MINUTE_MS = 60_000  # following the clock, the evaluated time moves at least this often
SOONEST_MS = 200  # and never more often than this
SECOND_MS = 1000  # the field shows the clock this often


class LiveClock(QObject):
    """The tab's clock: ``timer`` fires ``controls.tick`` when the picture next changes; ``second``
    shows the clock in the *Evaluate at* field every second meanwhile (the states are the same at
    every one of those seconds: nothing changes between two of ``timer``'s ticks) and tells
    ``on_second`` (the tab moves its dashed line)."""

    def __init__(self, controls: Controls, parent: QObject, on_second: Callable[[], None] | None = None) -> None:
        super().__init__(parent)
        self.controls = controls
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(controls.tick)
        self.second = QTimer(self)
        self.second.setInterval(SECOND_MS)
        self.second.timeout.connect(lambda: controls.show_clock(self.same_until) and on_second is not None
                                    and on_second())
        self.same_until: int | None = None  # µs: the next time a state changes after the time judged (or None)
        self.second.start()
        self._started, self.layout_ms = 0.0, 0.0  # when the last layout started, how long it took

    def laying_out(self) -> None:
        self._started = time.perf_counter()

    def laid_out(self, tl: Timeline) -> None:
        """A layout is in: say what needs saying, and set the next tick."""
        self.layout_ms = (time.perf_counter() - self._started) * 1000 if self._started else 0.0
        whole = tl.whole
        text = notice.ahead_of_clock(whole, tl.table, tl.now_us) if self.controls.following else ""
        self.controls.set_notice(text or notice.before_all(whole, tl.now_us)
                                 or notice.all_stale(whole, tl.now_us, tl.fresh_us))
        self.schedule(tl)

    def schedule(self, tl: Timeline) -> None:
        self.timer.stop()
        if not self.controls.following:
            return
        clock_us = to_us(datetime.now(UTC))
        soonest = max(SOONEST_MS, 4 * self.layout_ms)
        # a minute after the time judged (a layout for another reason — a filter — does not put it off)
        wait = MINUTE_MS - (clock_us - tl.now_us) // 1000
        upcoming = tl.table.next_change(tl.now_us, tl.fresh_us)
        self.same_until = upcoming
        if upcoming is not None:
            wait = min(wait, -(-(upcoming - clock_us) // 1000))
        self.timer.start(int(max(soonest, wait)))

    def stop(self) -> None:
        self.timer.stop()
        self.second.stop()
