"""The History tab: who changed what, when and why — the desk's own changes and what the
agents wrote — newest first, with filters, "since" presets, an export for a ticket, and
**Undo This Change** for the desk's own changes where nothing later depends on them.

Reads go through ``browse.history.entries`` on the worker a page at a time; the only write is
the undo, through the session like every change.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QDateTime, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDateTimeEdit,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QTableView,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.history.changes import FieldChange, field_changes
from memorydesk.browse.history.diff import backups
from memorydesk.browse.history.entries import KINDS, Event, HistoryQuery, history_page, iter_events, undo_blocker
from memorydesk.browse.history.export import export_json, export_markdown
from memorydesk.core.changes import Kind
from memorydesk.core.errors import BadInput
from memorydesk.core.moments import local_text, utc_text
from memorydesk.core.outputs import refuse_overwriting_input
from memorydesk.ui.history.model import HistoryModel
from memorydesk.ui.session import Change
from memorydesk.ui.tab import DeskTab
from memorydesk.ui.widgets.columns import ColumnFitter
from memorydesk.ui.widgets.prompts import ask_reason
from memorydesk.ui.widgets.splitter import splitter

PAGE = 200
HOUR, DAY = 3600, 86400
SINCE = (("Any time", None), ("Last hour", HOUR), ("Last day", DAY), ("Last week", 7 * DAY),
         ("Since a date…", "date"), ("Since a backup…", "backup"))
EXPORTS = (("Markdown…", "markdown", False), ("JSON…", "json", False),
           ("Markdown, content-free…", "markdown", True), ("JSON, content-free…", "json", True))


def _esc(text: str) -> str:
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


WIDTHS = {"local": 122, "utc": 142, "entry": 56, "who": 150, "what": 165, "summary": 320, "why": 200}
FLEXIBLE = {"who": (110, 1.0), "summary": (170, 3.0), "why": (130, 2.0)}  # (minimum, share of the rest)


class HistoryTab(DeskTab):
    name, title = "history", "History"
    kinds = frozenset(Kind)  # what agents write shows here too (facts, conflicts, receipts, …)
    shows_history = True  # and every change of the desk

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = HistoryModel(self)
        self.model.load_more = self._load_more
        self._query = HistoryQuery()
        self.dialog: Any = None
        self.since = QComboBox()
        self.since.setObjectName("history-since")
        for label, data in SINCE:
            self.since.addItem(label, data)
        self.since_date = QDateTimeEdit(QDateTime.currentDateTime().addDays(-1))
        self.since_date.setObjectName("history-since-date")
        self.since_date.setCalendarPopup(True)
        self.since_date.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.since_backup = QComboBox()
        self.since_backup.setObjectName("history-since-backup")
        self.kind = QComboBox()
        self.kind.setObjectName("history-kind")
        self.kind.addItem("Every kind", "")
        for k in KINDS:
            self.kind.addItem(k, k)
        self.actor = QLineEdit()
        self.actor.setObjectName("history-actor")
        self.actor.setPlaceholderText("Who (agent, role, reviewer)")
        self.text = QLineEdit()
        self.text.setObjectName("history-text")
        self.text.setPlaceholderText("Text in summary, ids or reason; #43 for entry 43")
        self.export = QToolButton()
        self.export.setObjectName("history-export")
        self.export.setText("Export")
        self.export.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.export)
        for label, fmt, free in EXPORTS:
            menu.addAction(label).triggered.connect(lambda _c=False, f=fmt, c=free: self.export_dialog(f, c))
        self.export.setMenu(menu)
        self.count = QLabel("")
        self.count.setObjectName("history-count")
        bar = QHBoxLayout()
        for w in (QLabel("Since"), self.since, self.since_date, self.since_backup, self.kind, self.actor, self.text,
                  self.count, self.export):
            bar.addWidget(w)
        bar.setStretch(6, 1)
        self.view = QTableView()
        self.view.setObjectName("history-list")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        # every column in view at any width: Summary and Why share what is left (Why never off the
        # right edge), the UTC column steps out first when even that does not fit
        fm = self.view.fontMetrics()
        widths = {**WIDTHS, "local": fm.horizontalAdvance("2026-12-02 00:25") + 18,
                  "utc": fm.horizontalAdvance("2026-12-02T00:25:58Z") + 18,  # times whole, never elided
                  "entry": fm.horizontalAdvance("#00000") + 16}
        self.columns = ColumnFitter(self.view, [k for k, _l in HistoryModel.COLUMNS], widths, FLEXIBLE, ("utc",))
        self.view.selectionModel().currentRowChanged.connect(lambda *_a: self._selected())
        self.detail = QTextBrowser()
        self.detail.setObjectName("history-detail")
        self.act_undo = QAction("Undo This Change", self)
        self.act_undo.setObjectName("history-undo-action")
        self.act_undo.setShortcut(QKeySequence("Ctrl+Shift+U"))
        self.act_undo.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.act_undo.setEnabled(False)
        self.act_undo.triggered.connect(lambda _c=False: self.start(self.undo_selected()))
        self.addAction(self.act_undo)
        self.undo_button = QPushButton("Undo This Change")
        self.undo_button.setObjectName("history-undo")
        self.undo_button.setEnabled(False)
        self.undo_button.clicked.connect(self.act_undo.trigger)
        self.undo_note = QLabel("")
        self.undo_note.setObjectName("history-undo-note")
        self.undo_note.setWordWrap(True)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.detail, 1)
        side_layout.addWidget(self.undo_note)
        side_layout.addWidget(self.undo_button)
        split = splitter(Qt.Orientation.Horizontal, self.view, side, name="history-split", stretch=(3, 1))
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(split, 1)
        self._typing = QTimer(self)
        self._typing.setSingleShot(True)
        self._typing.setInterval(300)
        self._typing.timeout.connect(self.reload)
        for box in (self.since, self.since_backup, self.kind):
            box.currentIndexChanged.connect(self._since_changed)
        self.since_date.dateTimeChanged.connect(lambda *_a: self._typing.start())
        for edit in (self.actor, self.text):
            edit.textChanged.connect(lambda *_a: self._typing.start())
        self._show_since_fields()

    # --- the tab contract ----------------------------------------------------------------

    def open(self, session) -> None:
        super().open(session)
        self.since_backup.clear()
        for path, at in backups(session.ws.path):
            self.since_backup.addItem(f"{path.name} ({local_text(at)})", at)
        self.reload()

    def refresh(self, change: Change) -> None:
        self.reload()

    def show_target(self, target: dict[str, Any]) -> None:
        if "text" in target:
            self.text.setText(str(target["text"]))
            self.reload()

    def wants_keyboard(self) -> QWidget | None:
        return self.view

    def prepare_shot(self) -> None:
        if self.model.rowCount():
            self.view.selectRow(0)

    # --- filters and reading ----------------------------------------------------------------

    def _show_since_fields(self) -> None:
        mode = self.since.currentData()
        self.since_date.setVisible(mode == "date")
        self.since_backup.setVisible(mode == "backup")

    def _since_changed(self, *_a: Any) -> None:
        self._show_since_fields()
        self.reload()

    def query(self) -> HistoryQuery:
        mode = self.since.currentData()
        since = None
        if mode == "date":
            since = int(self.since_date.dateTime().toSecsSinceEpoch())
        elif mode == "backup":
            since = self.since_backup.currentData()
        elif mode is not None:
            since = int(time.time()) - int(mode)
        return HistoryQuery(since=since, actor=self.actor.text().strip(), kind=self.kind.currentData() or "",
                            text=self.text.text().strip())

    def reload(self) -> None:
        if self.session is None:
            return
        token, query = self.latest.take("list"), self.query()
        self._query = query
        self.count.setText("reading…")
        self.run(lambda ws: history_page(ws, query, None, PAGE), self._started, label="reading the history",
                 token=token)

    def _started(self, page) -> None:
        self.model.start(page)
        self._counted()
        if self.model.rowCount() and not self.view.selectionModel().hasSelection():
            self.view.selectRow(0)
        else:
            self._selected()

    def _counted(self) -> None:
        n = self.model.rowCount()
        self.count.setText(f"{n:,}{'+' if self.model.more else ''} change{'s' if n != 1 else ''}")

    def _load_more(self, cursor: Any) -> None:
        query = self._query

        def arrived(page) -> None:
            self.model.append(page)
            self._counted()

        self.run(lambda ws: history_page(ws, query, cursor, PAGE), arrived, label="reading more history",
                 token=self.latest.current("list"))  # dropped when the list is read again meanwhile

    # --- the selected change -----------------------------------------------------------------

    def selected(self) -> Event | None:
        index = self.view.currentIndex()
        return self.model.row_at(index.row()) if index.isValid() else None

    def _selected(self) -> None:
        e = self.selected()
        self.undo_button.setEnabled(False)
        self.act_undo.setEnabled(False)
        self.undo_note.setText("")
        if e is None:
            self.detail.setHtml("<p>Select a change.</p>")
            return
        self.detail.setHtml(detail_html(e))
        if e.history_id is not None:  # its before and after, field by field, read on the worker
            entity, action, detail = _original(e)
            self.run(lambda ws: field_changes(ws, entity, action, detail),
                     lambda changes, shown=e: self._show_changes(shown, changes), label="reading the change")
        if e.history_id is None:
            self.undo_note.setText("Written by an agent or the product: the desk can change it only from the "
                                   "tab that shows it (edit, delete, restore).")
            return
        hid = e.history_id
        self.run(lambda ws: undo_blocker(ws, hid), lambda why: self._undo_state(hid, why), label="checking undo")

    def _show_changes(self, shown: Event, changes: list[FieldChange]) -> None:
        if self.selected() is shown:
            self.detail.setHtml(detail_html(shown, changes))

    def _undo_state(self, hid: int, why: str | None) -> None:
        e = self.selected()
        if e is None or e.history_id != hid:
            return
        blocked = why is not None or (self.session is not None and self.session.read_only)
        self.undo_button.setEnabled(not blocked)
        self.act_undo.setEnabled(not blocked)
        self.undo_note.setText(f"Cannot undo: {why}." if why else
                               (f"Cannot undo: {self.session.write_block}." if blocked and self.session else ""))

    async def undo_selected(self) -> None:
        e = self.selected()
        if e is None or e.history_id is None or self.session is None:
            return
        from memorydesk.memory.reviewer import Reviewer  # loaded by the first write

        hid = e.history_id
        dialog, answer = ask_reason(self, "Undo this change", f"Undo entry #{hid}, {e.what} by {e.actor}: "
                                    f"{e.summary}", yes_text="Undo",
                                    informative="Only this entry is taken back; the undo is a change of its own.",
                                    name="history-undo")
        self.dialog = dialog
        reason = await answer
        self.dialog = None
        if reason is None:
            return
        await self.session.write("undoing a change", Reviewer.undo, hid, reason=reason)

    # --- export ------------------------------------------------------------------------------

    def export_dialog(self, fmt: str, content_free: bool) -> None:
        suffix = ".md" if fmt == "markdown" else ".json"
        path, _f = QFileDialog.getSaveFileName(self, "Export history", f"history{suffix}",
                                               "Markdown (*.md)" if fmt == "markdown" else "JSON (*.json)")
        if path:
            self.export_to(Path(path), fmt, content_free)

    def export_to(self, path: Path, fmt: str, content_free: bool) -> None:
        """Write the whole filtered range (not only what is loaded) to ``path``, on the worker;
        never over the workspace, its side files or a file the desk made beside it (a backup)."""
        query = self._query
        try:
            refuse_overwriting_input(path, [self.session.ws.path] if self.session is not None else [],
                                     "the history file")
        except BadInput as exc:
            if self.session is not None:
                self.session.status.emit(str(exc))
            return

        def work(ws) -> int:
            events = iter_events(ws, query)
            chunks = export_json(events, content_free=content_free) if fmt == "json" else \
                export_markdown(events, ws.name, query, content_free=content_free)
            with open(path, "w", encoding="utf-8") as out:
                for chunk in chunks:
                    out.write(chunk)
            return path.stat().st_size

        self.run(work, lambda size: self.session and self.session.status.emit(
            f"History exported to {path.name} ({size:,} bytes)"), label="exporting the history")


def _original(e: Event) -> tuple[str, str, dict]:
    """What field_changes reads: the row's entity, action and detail (an undo or redo lists what it moved)."""
    try:
        detail = json.loads(e.detail or "{}")
    except ValueError:
        detail = {}
    return e.kind, e.action, detail if isinstance(detail, dict) else {}


def detail_html(e: Event, changes: list[FieldChange] | None = None) -> str:
    rows = [("When", f"{'after ' if e.after else ''}{local_text(e.at)} · {utc_text(e.at)}")]
    if e.history_id is not None:
        rows.append(("Entry", f"#{e.history_id}" + (f" (undone by #{e.undone_by})" if e.undone_by else "")))
    rows += [("Who", f"{_esc(e.actor)} ({e.actor_kind})"), ("What", e.what),
             ("Ids", "<br>".join(_esc(i) for i in e.ids)), ("Summary", _esc(e.summary)),
             ("Why", _esc(e.reason) or ("—" if e.history_id is not None else "<i>no reason: written by an agent or "
                                                                            "the product</i>"))]
    if e.details:
        rows.append(("Details", _esc(e.details)))  # what the row says of itself, not a reason
    html = "<table cellspacing=4>" + "".join(f"<tr><td><b>{k}</b></td><td>{v if k == 'Ids' else v}</td></tr>"
                                            for k, v in rows) + "</table>"
    if e.history_id is not None:
        html += f"<p><b>Before and after</b> (history entry {e.history_id}" + \
            (f", undone by entry {e.undone_by}" if e.undone_by else "") + ")</p>"
        if changes is None:
            html += "<p><i>reading…</i></p>"
        elif not changes:
            html += "<p>No field of memory changed.</p>"
        else:
            cells = "".join(f"<tr><td>{_esc(c.what)}</td><td>{_esc(c.before)}</td><td>{_esc(c.after)}</td></tr>"
                            for c in changes[:200])
            more = f"<p>… and {len(changes) - 200:,} more</p>" if len(changes) > 200 else ""
            html += ("<table width='100%' cellspacing=0 cellpadding=3 border=1 style='border-collapse: collapse'>"
                     "<tr><th align=left>What</th><th align=left>Before</th><th align=left>After</th></tr>"
                     f"{cells}</table>{more}")
    return html
