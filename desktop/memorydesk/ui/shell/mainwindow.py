"""The main window: the tabs (built from ``ui.shell.tabs.TABS``), menus and shortcuts, the status
bar (mode, counts, the live indicator, long work), and opening workspaces (dialog,
recent list, drag and drop, read-only, a copy).

Changes are routed, not broadcast: a write says what it touched (a ``core.changes.ChangeSet``),
and only the tabs it reaches refresh — at once when shown, when next shown otherwise. A
watcher thread asks the file every second whether someone else committed (``data_version``)
and, when so, which kinds of entity it changed (``store.watermarks.Follower``: the tables'
public watermarks); that change is routed like the desk's own. Our own commits are seen by
the worker that made them, so only another process's are reported.
"""

from __future__ import annotations

import datetime as dt
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QMainWindow, QMenu, QTabWidget, QWidget

from memorydesk.browse import facts as browse
from memorydesk.core.changes import Kind
from memorydesk.store import open_workspace
from memorydesk.store.files import backup_copy
from memorydesk.store.watermarks import Follower
from memorydesk.store.workspace import Workspace
from memorydesk.ui.actions import WriteActions
from memorydesk.ui.operations import Operations
from memorydesk.ui.session import SHORT_RESULT, Change, DeskSession
from memorydesk.ui.shell import as_of, menus, settings, startup, window_state
from memorydesk.ui.shell import help as help_dialogs
from memorydesk.ui.shell.notice import NoticeBar
from memorydesk.ui.shell.startup import PendingTab, Warmup
from memorydesk.ui.shell.state_keeper import StateKeeper
from memorydesk.ui.shell.status_bar import ElidingStatusBar
from memorydesk.ui.shell.tabs import SPECS, TabSpec, tab_names
from memorydesk.ui.shell.undo_keys import WindowUndoKeys
from memorydesk.ui.shell.undo_names import named
from memorydesk.ui.tab import DeskTab
from memorydesk.ui.widgets.progress import JobProgress
from memorydesk.ui.widgets.prompts import show_error

log = logging.getLogger("memorydesk.ui")
POLL_MS = 1000
COUNT_KINDS = frozenset({Kind.FACT, Kind.POLICY})


@dataclass
class TabSlot:
    tab: DeskTab | PendingTab  # a PendingTab until its module is loaded (``ui.shell.startup``)
    opened: bool = False
    missed: Change | None = None  # changes made while the tab was hidden

    @property
    def built(self) -> bool:
        return not isinstance(self.tab, PendingTab)


class MainWindow(QMainWindow):
    """Shows one workspace at a time; owns it (closes it when replaced or closed)."""

    _polled = Signal(object)  # the watcher's answer: True/False, or an exception

    def __init__(self, ws: Workspace | None = None, parent: QWidget | None = None, remember: bool = True,
                 lazy_tabs: bool = False) -> None:
        """``remember``: keep size, place, tabs, layout (``ui.shell.window_state``) and the recent list (not ``shot``).
        ``lazy_tabs``: build the tab shown first, the others after its first paint (``ui.shell.startup``)."""
        super().__init__(parent)
        self.lazy_tabs = lazy_tabs
        self.warmup: Warmup | None = None
        self.setObjectName("main-window")
        self.setAcceptDrops(True)
        self.setMinimumSize(900, 600)
        self.resize(1280, 800)
        self.remember = remember
        self.keeper = StateKeeper(self, remember)  # restores now; saves after changes, on quit, on SIGTERM
        window_state.keep_on_screen(self)  # its first size (or one kept from a larger screen) fits this screen
        self.ops = Operations(self)
        self.ops.failed.connect(self._failed)
        self.ws: Workspace | None = None
        self.session: DeskSession | None = None
        self.slots: list[TabSlot] = []
        self.error_box: Any = None
        self.dialog: Any = None
        self.last_error = ""
        self.tabs = QTabWidget()
        self.tabs.setObjectName("tabs")
        self.tabs.setDocumentMode(True)
        self.tabs.currentChanged.connect(self._tab_shown)
        self.setCentralWidget(self.tabs)
        self.writes = WriteActions(self, "window")
        menus.build_menus(self)
        self.undo_keys = WindowUndoKeys(self)  # Ctrl+Z in a field with nothing to undo: the window's Undo
        # View ▸ Memory As Of…, its banner, File ▸ Compare With…
        self.time = as_of.TimeControls(self, self.file_menu, lambda: self.session,
                                       lambda: [slot.tab for slot in self.slots if slot.opened])
        self.notice = NoticeBar()  # what the first change did to the file, and where its backup is
        self.centralWidget().layout().insertWidget(0, self.notice)
        self.counts = QLabel("")
        self.counts.setObjectName("status-counts")
        self.live = QLabel("")
        self.live.setObjectName("status-live")
        self.mode = QLabel("")
        self.mode.setObjectName("status-mode")
        self.progress = JobProgress()
        self.ops.job_started.connect(self.progress.add)
        self.ops.job_finished.connect(self.progress.remove)
        for label in (self.mode, self.counts, self.live):
            label.setContentsMargins(8, 0, 8, 0)
        self.setStatusBar(ElidingStatusBar(self))  # a long message is cut with “…” before the status fields
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.mode)
        self.statusBar().addPermanentWidget(self.counts)
        self.statusBar().addPermanentWidget(self.live)
        self._watcher = ThreadPoolExecutor(1, thread_name_prefix="memorydesk-watch")
        self._follower: Follower | None = None
        self._polling = False
        self._polled.connect(self._poll_answer)
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
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        self.addAction(action)
        return action

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
        current = self.current_tab_name()
        if self.remember:
            window_state.remember(self)  # the old workspace's tab, the layout
        old, self.ws = self.ws, ws
        self.timer.stop()
        self._close_tabs()
        self.statusBar().clearMessage()  # "Opening …" is done
        if old is not None and old is not ws:
            old.close()
        block = self.write_block()
        self.session = DeskSession(ws, self.ops, settings.actor(), block, self)
        self.session.changed.connect(self.route)
        self.session.status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.session.withdrawn.connect(
            lambda text: self.statusBar().clearMessage() if self.statusBar().currentMessage() == text else None)
        self.notice.hide()  # a note about another workspace's file is not about this one
        self.session.noticed.connect(self.notice.say)
        self.session.navigate_to.connect(self.navigate)
        self.undo_names.bind(self.session)  # the window's write actions, and what Undo would undo
        first = next(n for n in (window_state.saved_tab(ws.path) if self.remember else None, current, SPECS[0].name)
                     if n in tab_names())
        self.tabs.blockSignals(True)
        for spec in SPECS:
            tab = PendingTab(spec) if self.lazy_tabs and spec.name != first else spec.load()()
            self.slots.append(TabSlot(tab))
            self.tabs.addTab(tab, spec.title)
        self.tabs.blockSignals(False)
        kept = window_state.recall(self) if self.remember else None
        self.keeper.watch()
        self.act_read_only.blockSignals(True)
        self.act_read_only.setChecked(ws.read_only)
        self.act_read_only.blockSignals(False)
        if self.remember:
            settings.add_recent(ws.path)
        self.mode.setText(f"{ws.name} · {'read-only' if ws.read_only else 'read-write'}")
        self.mode.setToolTip(str(ws.path) + (f" — changes: {block}" if block else ""))
        self._update_title()
        self.refresh_counts()
        self.show_tab(next(n for n in (kept, current, SPECS[0].name) if n in tab_names()))
        self._tab_shown(self.tabs.currentIndex())
        if self.lazy_tabs:
            self.warmup = startup.warm_up_after_first_paint(self, ws)
        if ws.live_refresh:
            self._start_watching(ws)
            self.live.setText("● live")
            self.live.setToolTip("Watching the file: changes by agents appear within a second.")
        else:
            self.live.setText("○ live refresh off")
            self.live.setToolTip("; ".join(ws.notes) or "This file cannot be watched.")
        for note in ws.notes:
            self.statusBar().showMessage(note, 10000)

    def _close_tabs(self) -> None:
        if self.warmup is not None:
            self.warmup.stop()
            self.warmup = None
        for slot in self.slots:
            slot.tab.close()
            slot.tab.deleteLater()
        self.slots = []
        self.tabs.blockSignals(True)
        self.tabs.clear()
        self.tabs.blockSignals(False)

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

    def _toggle_read_only(self) -> None:
        checked = self.act_read_only.isChecked()
        if self.ws is not None and checked != self.ws.read_only:
            self.open_path(self.ws.path, read_only=checked)

    # --- tabs and routing ----------------------------------------------------------------

    def tab(self, name: str) -> DeskTab | None:
        slot = next((s for s in self.slots if s.tab.name == name), None)
        if slot is not None and not slot.built:
            self._build_tab(slot.tab.spec)
        return slot.tab if slot is not None else None  # type: ignore[return-value]

    def _build_tab(self, spec: TabSpec) -> None:
        startup.build_tab(self, spec)

    def current_tab_name(self) -> str | None:
        widget = self.tabs.currentWidget()
        return widget.name if isinstance(widget, DeskTab) else None

    def show_tab(self, name: str) -> DeskTab | None:
        tab = self.tab(name)
        if tab is not None:
            self.tabs.setCurrentWidget(tab)
        return tab

    def _slot(self, tab: QWidget | None) -> TabSlot | None:
        return next((s for s in self.slots if s.tab is tab), None)

    def _tab_shown(self, _index: int) -> None:
        slot = self._slot(self.tabs.currentWidget())
        if slot is not None and not slot.built:  # clicked before its turn: built now
            self._build_tab(slot.tab.spec)
        if slot is None or self.session is None:
            return
        if not slot.opened:
            slot.opened, slot.missed = True, None
            self.time.open_tab(slot.tab, self.session)  # tab.open(session), then the window's as-of
        elif slot.missed is not None:
            missed, slot.missed = slot.missed, None
            self._refresh(slot, missed)
        focus = slot.tab.wants_keyboard()
        if focus is not None:
            focus.setFocus()

    def route(self, change: Change) -> None:
        """Hand a change to the tabs it ``reaches`` (see ``core.changes``): now if shown, when shown otherwise."""
        current = self.tabs.currentWidget()
        for slot in self.slots:
            if not slot.opened or not change.reaches(slot.tab):
                continue
            if slot.tab is current:
                self._refresh(slot, change)
            else:
                slot.missed = change.merged(slot.missed)
        if change.touches(COUNT_KINDS):
            self.refresh_counts()
        self.undo_names.routed(self.session, change)

    def _refresh(self, slot: TabSlot, change: Change) -> None:
        slot.tab.refresh(change)

    def navigate(self, name: str, target: dict[str, Any]) -> None:
        """Show tab ``name`` (opening it if needed) at ``target``."""
        tab = self.show_tab(name)
        if tab is not None:
            tab.navigate(target)

    # --- the counts and the watcher ---------------------------------------------------------

    def refresh_counts(self) -> None:
        ws = self.ws
        if ws is None:
            return

        def show(c: dict[str, int]) -> None:
            self.counts.setText(f"{c['facts']:,} facts ({c['active_facts']:,} active) · "
                                f"{c['policies']} policies ({c['active_policies']} active)")

        self.ops.run(lambda: browse.counts(ws), show, label="counting")

    def _start_watching(self, ws: Workspace) -> None:
        follower = self._follower = Follower(ws)
        self._watcher.submit(follower.poll)  # the baseline
        self.timer.start()

    def poll(self) -> None:
        """Every second: did another process commit to the file, and what did it change? (Asked on
        the watcher thread.)"""
        ws, follower = self.ws, self._follower
        if ws is None or follower is None or follower.ws is not ws or not ws.live_refresh or self._polling:
            return
        self._polling = True

        def ask() -> None:
            try:
                answer: Any = follower.poll()
            except Exception as exc:  # noqa: BLE001 - the file went away or is locked; shown, not raised
                answer = exc
            try:
                self._polled.emit((ws, answer))
            except RuntimeError:  # the window is gone
                return
            if isinstance(answer, tuple) and Kind.FACT in answer[0]:
                from memorydesk.search.copies.follow import catch_up  # (loaded here: not before the first rows)

                try:  # search's copies follow now, from the marks just read: the next search finds them current
                    catch_up(ws)
                except Exception as exc:  # noqa: BLE001 - the next search follows them instead
                    log.info("search's copies not brought up to date by the watcher: %s", exc)

        self._watcher.submit(ask)

    def _poll_answer(self, reply: tuple[Workspace, Any]) -> None:
        self._polling = False
        ws, answer = reply
        if ws is not self.ws:
            return
        if isinstance(answer, Exception):
            self.live.setText("○ live refresh paused")
            self.live.setToolTip(str(answer))
            return
        self.live.setText("● live")
        if answer is not None:
            kinds, history = answer
            self.live.setToolTip(f"Last change by another program seen {dt.datetime.now():%H:%M:%S}")
            self.route(Change.outside(kinds, history))

    def _failed(self, label: str, message: str) -> None:
        self.last_error = message
        said = f"Failed {label}: {message}" if label else message
        if getattr(self, "session", None) is not None and len(said) > SHORT_RESULT:  # whole where it wraps
            said = self.session.say_result(said)
        self.statusBar().showMessage(said, 15000)
        self.error_box = show_error(self, "Memory Desk", message)

    # --- undo, tools, find ----------------------------------------------------------------

    async def undo(self) -> None:
        from memorydesk.memory.reviewer import Reviewer  # loaded by the first write

        await self.session.write("undoing the last change", named(Reviewer.undo, "Undone", self.undo_names.names[0]))

    async def redo(self) -> None:
        from memorydesk.memory.reviewer import Reviewer

        await self.session.write("redoing", named(Reviewer.redo, "Redone", self.undo_names.names[1]))

    async def index_vectors(self, batch: int | None = None) -> None:
        """Tools ▸ Index Missing Vectors: confirmed with a reason, then a job (``ui.shell.vectors``)."""
        from memorydesk.ui.shell.vectors import index_vectors

        if self.session is not None:
            await index_vectors(self, self.session, self.ops.failed.emit, lambda d: setattr(self, "dialog", d), batch)

    def import_receipts(self) -> Any:
        """File ▸ Import receipts…: on the Lineage tab, which shows them."""
        tab = self.show_tab("lineage")
        return tab.import_receipts() if tab is not None else None

    def export_receipts(self) -> None:
        """File ▸ Export Receipts…: on the Lineage tab, whose receipts they are (a read: also read-only)."""
        if (tab := self.show_tab("lineage")) is not None and self.session is not None:
            tab.start(tab.export_receipts())

    def open_receipts_source(self) -> None:
        """File ▸ Open Receipts Source…: the Lineage tab reads a ClickHouse source (a fleet's otel_traces)."""
        if (tab := self.show_tab("lineage")) is not None:
            tab.fleet_bar.ask()

    def run_canary(self) -> Any:
        """Tools ▸ Run canary…: on the Lineage tab, which marks the canary's runs."""
        tab = self.show_tab("lineage")
        return tab.run_canary() if tab is not None else None

    def focus_search(self) -> None:
        if (tab := self.show_tab("facts")) is not None:
            tab.navigate({"focus": "search"})

    # --- importing (ui/importer) -------------------------------------------------------------

    def import_memoryos(self) -> None:
        """File ▸ Import MemoryOS Directory…: the dialog runs the import into this workspace."""
        from memorydesk.ui.importer import ImportDialog

        self.dialog = ImportDialog(self.session, self)
        self.dialog.open()

    # --- help -----------------------------------------------------------------------------

    def show_shortcuts(self) -> None:
        for slot in list(self.slots):  # every tab's keys: the tabs not loaded yet are built first
            if not slot.built:
                self._build_tab(slot.tab.spec)
        self.dialog = help_dialogs.ShortcutsDialog(help_dialogs.window_rows(self), self)
        self.dialog.open()

    def show_guide(self, section: str | None = None) -> None:
        self.dialog = help_dialogs.GuideDialog(self, section)
        self.dialog.open()

    def show_about(self) -> None:
        self.dialog = help_dialogs.show_about(self)

    def show_audit(self) -> None:
        """Tools ▸ Recall Audit: which facts the agent can never get back (a window of its own)."""
        from memorydesk.ui.audit.dialog import RecallAuditDialog

        if self.session is not None:  # the kept one: its results survive closing it
            self.dialog = RecallAuditDialog.shown_for(self.session, self)

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

    def quit(self) -> None:
        """File ▸ Quit: close the window (finishing the current step of any work) and leave."""
        if self.close():
            QApplication.quit()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.undo_keys.remove()
        self.keeper.save_on_close()
        self.timer.stop()
        for job in list(self.progress.jobs):
            job.cancel()
        self._close_tabs()
        self.ops.shutdown()
        self._watcher.shutdown(wait=True, cancel_futures=True)
        if self.ws is not None:
            self.ws.close()
        super().closeEvent(event)
