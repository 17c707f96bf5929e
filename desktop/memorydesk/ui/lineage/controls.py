"""The Lineage tab's controls: evaluate at (a time, or the clock), the freshness window, the
filters (colour, rule, scope text, time range, sourceVersion, canary runs only), and the
legend that counts the shown runs per colour and per rule (click a name to filter by it)."""

from __future__ import annotations

import html
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSizePolicy,
    QToolBar,
    QToolButton,
    QWidget,
    QWidgetAction,
)

from memorydesk.core.health.table import BY_SEVERITY, DEFAULT_FRESH_FOR, HealthState, format_duration, parse_duration
from memorydesk.core.receipt_codes import from_us, to_us
from memorydesk.lineage.timeline import Filters, Timeline
from memorydesk.ui.lineage import colors
from memorydesk.ui.widgets.filters import ElidedCombo
from memorydesk.ui.widgets.timefield import TimeField

FRESH_CHOICES = ("1h", "6h", "24h", "2d", "7d", "30d")


def clock_now() -> datetime:
    """This computer's clock, to the next whole second (so the time shown is the time judged, as
    ``lineage classify --now`` with it would judge: every receipt stamped until now counts)."""
    now = datetime.now(UTC)
    return now.replace(microsecond=0) + timedelta(seconds=1 if now.microsecond else 0)
ANY_COLOR, ANY_RULE, ANY_SOURCE = "any colour", "any rule", "any sourceVersion"


class Controls(QWidget):
    changed = Signal()  # evaluate-at, window or filters changed: judge and lay out again
    fit_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._quiet = False
        self.evaluate = TimeField("lineage-evaluate-at")
        self.evaluate.edit.setToolTip("Judge every run as an operator saw it at this local time (YYYY-MM-DD "
                                      "HH:MM:SS, then Enter): only receipts written by then count, and runs not "
                                      "begun yet are not drawn. Drag the dashed line on the timeline to scrub.")
        self.follow = QCheckBox("follow the clock")
        self.follow.setObjectName("lineage-follow-clock")
        self.follow.setChecked(True)
        self.follow.setToolTip("Evaluate at the current time, moving with the clock")
        self.now_button = QPushButton("Now")
        self.now_button.setObjectName("lineage-now")
        self.fresh = QComboBox()
        self.fresh.setObjectName("lineage-fresh-for")
        self.fresh.setEditable(True)
        self.fresh.addItems(FRESH_CHOICES)
        self.fresh.setCurrentText(format_duration(DEFAULT_FRESH_FOR))
        self.fresh.setToolTip("Freshness window: a run whose newest receipt is older than this is stale_evidence "
                              "(e.g. 90m, 24h, 7d)")
        self.fit = QPushButton("Show all")
        self.fit.setObjectName("lineage-fit")
        self.fit.setToolTip("Zoom to every run the filters leave and scroll to the first lane (Home)")
        self.color = QComboBox()
        self.color.setObjectName("lineage-filter-color")
        self.color.addItems([ANY_COLOR, *[str(c) for c in reversed(BY_SEVERITY)]])
        self.rule = QComboBox()
        self.rule.setObjectName("lineage-filter-rule")
        self.rule.addItems([ANY_RULE, *[f"{s.rule} {s}" for s in HealthState]])
        self.scope = QLineEdit()
        self.scope.setObjectName("lineage-filter-scope")
        self.scope.setPlaceholderText("scope contains…")
        self.scope.setClearButtonEnabled(True)
        self.source = ElidedCombo()
        self.source.setObjectName("lineage-filter-source")
        self.source.addItem(ANY_SOURCE, None)
        # the room the filter row leaves it (the version chosen shortened in its middle, whole in its tooltip
        # and in the list), never wider than the row: a long sourceVersion does not push the row off
        self.source.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.source.setMinimumContentsLength(16)
        self.source.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.source.setToolTip("Only runs with a receipt written by this implementation / adapter version")
        self.canary = QCheckBox("canary only")
        self.canary.setToolTip("Only the canary's runs (receipts marked canary)")
        self.canary.setObjectName("lineage-filter-canary")
        self.range_on = QCheckBox("only runs between")
        self.range_on.setObjectName("lineage-filter-range")
        self.range_on.setToolTip("Only runs whose bar reaches into this time range")
        self.since = TimeField("lineage-filter-since")
        self.until = TimeField("lineage-filter-until")
        self.range_button = QToolButton()
        self.range_button.setObjectName("lineage-filter-range-button")
        self.range_button.setText("Time range ▾")
        self.range_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.range_button.setToolTip("Only runs whose bar reaches into a time range")
        popup = QWidget()
        row = QHBoxLayout(popup)
        row.setContentsMargins(6, 6, 6, 6)
        for w in (self.range_on, self.since, QLabel("and"), self.until):
            row.addWidget(w)
        menu = QMenu(self.range_button)
        holder = QWidgetAction(menu)
        holder.setDefaultWidget(popup)
        menu.addAction(holder)
        self.range_button.setMenu(menu)
        self.clear = QPushButton("Clear filters")
        self.clear.setObjectName("lineage-clear-filters")
        self.lanes: frozenset[tuple[str, str]] = frozenset()  # set by another tab (navigate)
        self.lanes_button = QToolButton()
        self.lanes_button.setObjectName("lineage-filter-lanes")
        self.lanes_button.setToolTip("Showing only the lanes another tab asked for; click to show every lane")
        self.lanes_button.clicked.connect(lambda: self.set_lanes([]))
        self.lanes_button.setVisible(False)
        self.run_text = QLineEdit()
        self.run_text.setObjectName("lineage-filter-run")
        self.run_text.setPlaceholderText("run id contains…")
        self.run_text.setClearButtonEnabled(True)
        self.run_text.setToolTip("Only runs whose runId contains this text (the list and the timeline)")
        self.notice = QLabel("")
        self.notice.setObjectName("lineage-notice")
        self.notice.setWordWrap(True)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.notice.setVisible(False)
        self.legend = QLabel("")
        self.legend.setObjectName("lineage-legend")
        self.legend.setWordWrap(True)
        self.legend.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.legend.linkActivated.connect(self._legend_link)

        grid = QGridLayout(self)
        grid.setContentsMargins(4, 4, 4, 0)
        grid.setVerticalSpacing(3)
        top = QHBoxLayout()
        for w in (QLabel("Evaluate at"), self.evaluate, self.now_button, self.follow, QLabel("fresh for"), self.fresh,
                  self.fit):
            top.addWidget(w)
        top.addStretch(1)
        self.tools = QToolBar()
        self.tools.setObjectName("lineage-toolbar")
        self.tools.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        top.addWidget(self.tools)
        grid.addLayout(top, 0, 0)
        filters = QHBoxLayout()
        for w in (self.color, self.rule, self.scope, self.lanes_button, self.source, self.canary, self.range_button,
                  self.clear):
            filters.addWidget(w, {self.scope: 2, self.source: 2}.get(w, 0))
        self.scope.setMinimumWidth(120)
        grid.addLayout(filters, 1, 0)
        grid.addWidget(self.legend, 2, 0)
        grid.addWidget(self.notice, 3, 0)

        self.evaluate.edited.connect(self._evaluate_edited)
        self.now_button.clicked.connect(self.follow_clock)
        self.follow.toggled.connect(lambda on: on and self.evaluate_now())
        self.fresh.currentTextChanged.connect(lambda _t: self._changed())
        self.fit.clicked.connect(self.fit_requested)
        for box in (self.color, self.rule, self.source):
            box.currentIndexChanged.connect(lambda _i: self._changed())
        self.source.currentIndexChanged.connect(lambda _i: self._fit_source())
        self.scope.textChanged.connect(lambda _t: self._changed())
        self.run_text.textChanged.connect(lambda _t: self._changed())
        self.canary.toggled.connect(lambda _on: self._changed())
        self.range_on.toggled.connect(self._range_toggled)
        self.since.edited.connect(lambda _v: self.range_on.isChecked() and self._changed())
        self.until.edited.connect(lambda _v: self.range_on.isChecked() and self._changed())
        self.clear.clicked.connect(self.clear_filters)
        self._range_toggled(False)
        self.evaluate_now()

    # -- values -----------------------------------------------------------------------------------

    def evaluate_at(self) -> datetime:
        return self.evaluate.moment()

    def evaluate_us(self) -> int:
        return to_us(self.evaluate_at())

    def fresh_for(self) -> timedelta | None:
        try:
            return parse_duration(self.fresh.currentText())
        except ValueError:
            return None

    def filters(self) -> Filters:
        color = self.color.currentText()
        rule = self.rule.currentText()
        source = self.source.currentData()
        ranged = self.range_on.isChecked()
        return Filters(
            colors=frozenset() if color == ANY_COLOR else frozenset({color}),
            states=frozenset() if rule == ANY_RULE else frozenset({rule.split(" ", 1)[1]}),
            scope=self.scope.text(),
            since_us=to_us(self.since.moment()) if ranged else None,
            until_us=to_us(self.until.moment()) if ranged else None,
            source_version=source,
            canary_only=self.canary.isChecked(), lanes=self.lanes, run_text=self.run_text.text())

    # -- setting ----------------------------------------------------------------------------------

    def set_evaluate_at(self, moment: datetime, *, follow: bool = False) -> None:
        self.evaluate.set_moment(moment)
        if not follow and self.follow.isChecked():
            self.follow.blockSignals(True)
            self.follow.setChecked(False)
            self.follow.blockSignals(False)
        self._changed()

    def evaluate_now(self) -> None:
        self.set_evaluate_at(clock_now(), follow=True)

    @property
    def following(self) -> bool:
        return self.follow.isChecked()

    def catch_up(self) -> bool:
        """Following the clock: move to it without asking for a rebuild (the caller rebuilds).
        False when not following."""
        if not self.follow.isChecked():
            return False
        self.evaluate.set_moment(clock_now())
        return True

    def set_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def follow_clock(self) -> None:
        """Evaluate at the current time from now on (the Now button)."""
        if self.follow.isChecked():
            self.evaluate_now()
        else:
            self.follow.setChecked(True)  # toggled: evaluates now

    def tick(self) -> None:
        """The clock moved (a timer calls this): follow it when asked to."""
        if self.follow.isChecked():
            self.evaluate_now()

    def show_clock(self, same_until_us: int | None = None) -> bool:
        """Following the clock, the field shows it, second by second: every run's state is the same at
        each of those seconds up to ``same_until_us`` (the next time anything changes, when the picture
        is judged again: ``live``), so the time shown is always a time the picture is true at — up to
        that moment, not past it. Not while a time is being typed into the field. True when it moved."""
        if not self.follow.isChecked() or self.evaluate.edit.isModified():  # a time is being typed
            return False
        now = clock_now()
        if same_until_us is not None and to_us(now) >= same_until_us:  # the judging at that moment moves it on
            now = from_us((same_until_us - 1) // 1_000_000 * 1_000_000)
        if now <= self.evaluate.moment():
            return False
        self.evaluate.set_moment(now)
        return True

    def set_source_versions(self, names: list[str], counts: dict[str, tuple[int, int]]) -> None:
        """The sourceVersion list: each whole name with its runs and at-risk runs (as of the
        evaluated time); the one chosen stays chosen."""
        current = self.source.currentData()
        self.source.blockSignals(True)
        self.source.clear()
        self.source.addItem(ANY_SOURCE, None)
        for name in sorted(names):
            runs, risky = counts.get(name, (0, 0))
            self.source.addItem(f"{name} — {runs:,} run{'' if runs == 1 else 's'}, {risky:,} at-risk", name)
            self.source.setItemData(self.source.count() - 1, name, Qt.ItemDataRole.ToolTipRole)
        widest = max((self.source.fontMetrics().horizontalAdvance(self.source.itemText(k))
                      for k in range(self.source.count())), default=0)
        self.source.view().setMinimumWidth(min(widest + 40, 900))
        found = max(0, self.source.findData(current)) if current is not None else 0
        self.source.setCurrentIndex(found)
        self.source.setToolTip(current or "Only runs with a receipt written by this implementation / adapter "
                                          "version")
        self.source.blockSignals(False)
        self._fit_source()

    def _fit_source(self) -> None:
        """The sourceVersion box wants the chosen version whole (``sizeHint``), and takes what the row
        leaves it: shortened in the middle, whole in its tooltip and in the list."""
        self.source.setToolTip(self.source.currentData() or "Only runs with a receipt written by this "
                                                             "implementation / adapter version")

    def set_span(self, lo: datetime, hi: datetime) -> None:
        """The time range filter starts out as the data's span."""
        if not self.range_on.isChecked():
            for edit, value in ((self.since, lo), (self.until, hi)):
                edit.set_moment(value)

    def set_scope(self, text: str) -> None:
        self.scope.setText(text)

    def set_lanes(self, lanes: list[tuple[str, str]]) -> None:
        """Show only these lanes (none: every lane)."""
        self.lanes = frozenset(lanes)
        self.lanes_button.setText(f"only {len(lanes)} lanes ✕" if lanes else "")
        self.lanes_button.setVisible(bool(lanes))
        self._changed()

    def select_source(self, name: str) -> bool:
        index = self.source.findData(name)
        if index < 0:
            return False
        self.source.setCurrentIndex(index)
        return True

    def clear_filters(self) -> None:
        self._quiet = True
        self.color.setCurrentIndex(0)
        self.rule.setCurrentIndex(0)
        self.scope.clear()
        self.run_text.clear()
        self.source.setCurrentIndex(0)
        self.canary.setChecked(False)
        self.range_on.setChecked(False)
        self.set_lanes([])
        self._quiet = False
        self._changed()

    def set_legend(self, tl: Timeline) -> None:
        parts = []
        for color in reversed(BY_SEVERITY):
            states = [s for s in HealthState if s.color == color]
            count = tl.color_counts.get(color, 0)
            head = (f'{colors.swatch(color)} <a href="color:{color}">{html.escape(str(color))}</a> '
                    f"<b>{count:,}</b>")
            if len(states) > 1:
                head += " (" + ", ".join(f'<a href="state:{s}">{s}</a> {tl.state_counts.get(s, 0):,}'
                                         for s in states) + ")"
            parts.append(head)
        total = len(tl.table)
        shown = tl.runs_shown
        tail = f" — {shown:,} of {total:,} runs" if shown != total else f" — {total:,} runs"
        self.legend.setText(" &nbsp; ".join(parts) + tail)

    # -- reactions --------------------------------------------------------------------------------

    def _legend_link(self, link: str) -> None:
        kind, _sep, value = link.partition(":")
        box, text = (self.color, value) if kind == "color" else (self.rule, f"{HealthState(value).rule} {value}")
        index = box.findText(text)
        box.setCurrentIndex(0 if box.currentIndex() == index else index)

    def _evaluate_edited(self, _value: datetime) -> None:
        if self._quiet:
            return
        if self.follow.isChecked():
            self.follow.blockSignals(True)
            self.follow.setChecked(False)
            self.follow.blockSignals(False)
        self._changed()

    def _range_toggled(self, on: bool) -> None:
        self.since.setEnabled(on)
        self.until.setEnabled(on)
        self.range_button.setText("Time range ▾ (on)" if on else "Time range ▾")
        self._changed()

    def _changed(self) -> None:
        if not self._quiet:
            valid = self.fresh_for() is not None
            self.fresh.setStyleSheet("" if valid else "QComboBox { color: #c0392b }")
            self.changed.emit()

