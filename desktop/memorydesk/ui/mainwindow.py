"""The main window: tabs, menus and shortcuts, status bar with counts and the live
indicator, opening workspaces (dialog, recent list, drag and drop, read-only, a copy)."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QFileDialog, QLabel, QMainWindow, QMenu, QTabWidget, QWidget

from memorydesk.browse import facts as browse
from memorydesk.embedding.embedder import embedder_status
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.vector_index import IndexProgress
from memorydesk.store import open_workspace
from memorydesk.store.files import backup_copy
from memorydesk.store.workspace import Workspace
from memorydesk.ui import settings
from memorydesk.ui.coming import ComingPage
from memorydesk.ui.facts.tab import FactsTab
from memorydesk.ui.operations import Operations
from memorydesk.ui.policies.tab import PoliciesTab
from memorydesk.ui.prompts import show_error
from memorydesk.ui.vector_job import VectorIndexJob, summary

log = logging.getLogger("memorydesk.ui")
TABS = ("facts", "policies", "graph", "grants", "conflicts", "lineage")
POLL_MS = 1000


class MainWindow(QMainWindow):
    """Shows one workspace at a time; owns it (closes it when replaced or closed)."""

    def __init__(self, ws: Workspace | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("main-window")
        self.setAcceptDrops(True)
        self.resize(1280, 800)
        self.ops = Operations(self)
        self.ops.failed.connect(self._failed)
        self.ws: Workspace | None = None
        self.facts_tab: FactsTab | None = None
        self.policies_tab: PoliciesTab | None = None
        self.error_box: Any = None
        self.vector_job: VectorIndexJob | None = None
        self.last_error = ""
        self.tabs = QTabWidget()
        self.tabs.setObjectName("tabs")
        self.tabs.setDocumentMode(True)
        self.setCentralWidget(self.tabs)
        self._build_menus()
        self.counts = QLabel("")
        self.counts.setObjectName("status-counts")
        self.live = QLabel("")
        self.live.setObjectName("status-live")
        self.mode = QLabel("")
        self.mode.setObjectName("status-mode")
        for label in (self.mode, self.counts, self.live):
            label.setContentsMargins(8, 0, 8, 0)
        self.statusBar().addPermanentWidget(self.mode)
        self.statusBar().addPermanentWidget(self.counts)
        self.statusBar().addPermanentWidget(self.live)
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        if ws is not None:
            self.set_workspace(ws)
        else:
            self._update_title()

    # --- menus --------------------------------------------------------------------------

    def _act(self, menu: QMenu, text: str, slot: Any, key: Any = None, name: str = "") -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        if key is not None:
            action.setShortcut(QKeySequence(key))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self.act_open = self._act(file, "&Open…", self.open_dialog, QKeySequence.StandardKey.Open, "open")
        self.recent_menu = file.addMenu("Open &Recent")
        self.recent_menu.setObjectName("recent-menu")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.act_copy = self._act(file, "Open a &Copy of This Workspace", lambda: self.open_copy(), None, "open-copy")
        self.act_read_only = self._act(file, "&Read-only", self._toggle_read_only, None, "read-only")
        self.act_read_only.setCheckable(True)
        file.addSeparator()
        self._act(file, "&Close Window", self.close, QKeySequence.StandardKey.Close, "close")
        edit = bar.addMenu("&Edit")
        self.act_undo = self._act(edit, "&Undo Last Change", self.undo, QKeySequence("Ctrl+Z"), "undo")
        self.act_redo = self._act(edit, "&Redo", self.redo, QKeySequence("Ctrl+Shift+Z"), "redo")
        edit.addSeparator()
        self.act_find = self._act(edit, "&Find Facts", self.focus_search, QKeySequence("Ctrl+F"), "find")
        tools = bar.addMenu("&Tools")
        self.act_index = self._act(tools, "Index &Missing Vectors…", self.index_vectors, None, "index-vectors")
        self.addActions([self.act_open, self.act_undo, self.act_redo, self.act_find])

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        items = settings.recent()
        for path in items:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _c=False, p=path: self.open_path(p))
        if not items:
            self.recent_menu.addAction("No recent workspaces").setEnabled(False)

    # --- the workspace ------------------------------------------------------------------

    def write_block(self) -> str | None:
        if self.ws is None:
            return "no workspace is open"
        if self.ws.read_only:
            return "the workspace is open read-only (File ▸ Read-only, or open a copy)"
        return None

    def set_workspace(self, ws: Workspace) -> None:
        old, self.ws = self.ws, ws
        self.timer.stop()
        self.tabs.clear()
        for tab in (self.facts_tab, self.policies_tab):
            if tab is not None:
                tab.deleteLater()
        if old is not None and old is not ws:
            old.close()
        block = self.write_block()
        self.facts_tab = FactsTab(ws, self.ops, block)
        self.policies_tab = PoliciesTab(ws, self.ops, block)
        self.tabs.addTab(self.facts_tab, "Facts")
        self.tabs.addTab(self.policies_tab, "Policies")
        for title in ("Knowledge Graph", "Grants", "Conflicts", "Lineage"):
            self.tabs.addTab(ComingPage(title), title)
        for tab in (self.facts_tab, self.policies_tab):
            tab.changed.connect(self._changed)
            tab.status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        for action in (self.act_undo, self.act_redo, self.act_index):
            action.setEnabled(block is None)
            action.setToolTip(f"Unavailable — {block}" if block else action.text().replace("&", ""))
        self.act_read_only.blockSignals(True)
        self.act_read_only.setChecked(ws.read_only)
        self.act_read_only.blockSignals(False)
        settings.add_recent(ws.path)
        self.mode.setText(f"{ws.name} · {'read-only' if ws.read_only else 'read-write'}")
        self.mode.setToolTip(str(ws.path) + (f" — changes: {block}" if block else ""))
        self._update_title()
        self.refresh_counts()
        if ws.live_refresh:
            ws.changed_on_disk()  # baseline
            self.timer.start()
            self.live.setText("● live")
            self.live.setToolTip("Watching the file: changes by agents appear within a second.")
        else:
            self.live.setText("○ live refresh off")
            self.live.setToolTip("; ".join(ws.notes) or "This file cannot be watched.")
        for note in ws.notes:
            self.statusBar().showMessage(note, 10000)

    def _update_title(self) -> None:
        if self.ws is None:
            self.setWindowTitle("Memory Desk")
            return
        self.setWindowTitle(f"{self.ws.name} — {self.ws.path.name} ({self.ws.mode}) — Memory Desk")

    def open_path(self, path: str | Path, read_only: bool = False) -> None:
        path = Path(path)
        self.statusBar().showMessage(f"Opening {path.name}…")
        self.ops.run(lambda: open_workspace(path, read_only=read_only), self.set_workspace,
                     label=f"opening {path.name}")

    def open_dialog(self) -> None:
        start = str(self.ws.path.parent) if self.ws else ""
        path, _filter = QFileDialog.getOpenFileName(
            self, "Open workspace", start, "Workspace databases (*.db *.sqlite *.sqlite3);;All files (*)")
        if path:
            self.open_path(path, read_only=self.act_read_only.isChecked())

    def open_copy(self, source: Path | None = None) -> None:
        """Copy a workspace (the open one by default) and open the copy for writing."""
        source = Path(source) if source else (self.ws.path if self.ws else None)
        if source is None:
            return
        folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation)) / "copies"
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        target = folder / f"{source.stem}-copy-{stamp}{source.suffix or '.db'}"

        def work() -> Workspace:
            folder.mkdir(parents=True, exist_ok=True)
            backup_copy(source, target)
            return open_workspace(target)

        self.ops.run(work, self.set_workspace, label=f"copying {source.name}")

    def _toggle_read_only(self, checked: bool) -> None:
        if self.ws is not None and checked != self.ws.read_only:
            self.open_path(self.ws.path, read_only=checked)

    # --- refreshing ---------------------------------------------------------------------

    def refresh_counts(self) -> None:
        ws = self.ws
        if ws is None:
            return

        def show(c: dict[str, int]) -> None:
            self.counts.setText(f"{c['facts']:,} facts ({c['active_facts']:,} active) · "
                                f"{c['policies']} policies ({c['active_policies']} active)")

        self.ops.run(lambda: browse.counts(ws), show, label="counting")

    def refresh_views(self) -> None:
        for tab in (self.facts_tab, self.policies_tab):
            if tab is not None:
                tab.refresh()
        self.refresh_counts()

    def poll(self) -> None:
        """Every second: did anyone (an agent, or us) commit to the file? Then refresh."""
        if self.ws is None or not self.ws.live_refresh:
            return
        try:
            changed = self.ws.changed_on_disk()
        except Exception as exc:  # noqa: BLE001 - the file went away or is locked; say so once
            self.live.setText("○ live refresh paused")
            self.live.setToolTip(str(exc))
            return
        if changed:
            self.live.setText("● live")
            self.live.setToolTip(f"Last change seen {dt.datetime.now():%H:%M:%S}")
            self.refresh_views()

    def _changed(self, _result: Any) -> None:
        self.refresh_views()

    def _failed(self, label: str, message: str) -> None:
        self.last_error = message
        self.statusBar().showMessage(f"Failed {label}: {message}" if label else message, 15000)
        self.error_box = show_error(self, "Memory Desk", message)

    # --- undo, find ---------------------------------------------------------------------

    def _history_call(self, label: str, call: Any) -> None:
        ws = self.ws
        if ws is None or self.write_block():
            return

        def done(result: Any) -> None:
            self.statusBar().showMessage(getattr(result, "message", "") or f"{label}: done", 8000)
            self.refresh_views()

        self.ops.run(lambda: call(Reviewer(ws, settings.actor())), done, label=label)

    def index_vectors(self, batch: int | None = None) -> VectorIndexJob | None:
        """Embed the facts that have no vector (progress, cancel, resumable)."""
        if self.ws is None or self.write_block():
            return None
        ok, reason = embedder_status()
        if not ok:
            self._failed("indexing missing vectors", reason)
            return None

        def done(result: IndexProgress) -> None:
            self.statusBar().showMessage(summary(result), 15000)
            self.refresh_views()

        self.vector_job = VectorIndexJob(self, self.ws, self.ops, done, *([batch] if batch else []))
        self.vector_job.start()
        return self.vector_job

    def undo(self) -> None:
        self._history_call("undoing the last change", lambda r: r.undo())

    def redo(self) -> None:
        self._history_call("redoing", lambda r: r.redo())

    def focus_search(self) -> None:
        if self.facts_tab is not None:
            self.tabs.setCurrentWidget(self.facts_tab)
            self.facts_tab.filters.search.setFocus()
            self.facts_tab.filters.search.selectAll()

    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(TABS.index(name))

    # --- drag and drop, closing ---------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        if len(urls) == 1 and urls[0].isLocalFile():
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = event.mimeData().urls()
        if len(urls) == 1 and urls[0].isLocalFile():
            event.acceptProposedAction()
            self.open_path(urls[0].toLocalFile(), read_only=self.act_read_only.isChecked())

    def closeEvent(self, event: QCloseEvent) -> None:
        self.timer.stop()
        self.ops.shutdown()
        if self.ws is not None:
            self.ws.close()
        super().closeEvent(event)
