"""The main window's menu bar: File, Edit, View, Tools and Help, with their keys (the actions
are the window's attributes, ``act_*``; their slots are the window's methods)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from memorydesk.ui.shell.undo_names import UndoNames


def build_menus(win: Any) -> None:
    bar = win.menuBar()
    file = bar.addMenu("&File")
    win.file_menu = file
    win.act_open = win._act(file, "&Open…", win.open_dialog, "Ctrl+O", "open")
    win.recent_menu = file.addMenu("Open &Recent")
    win.recent_menu.setObjectName("recent-menu")
    win.recent_menu.aboutToShow.connect(win._fill_recent)
    win.act_copy = win._act(file, "Open a &Copy of This Workspace", win.open_copy, None, "open-copy")
    win.act_read_only = win._act(file, "&Read-only", win._toggle_read_only, None, "read-only")
    win.act_read_only.setCheckable(True)
    file.addSeparator()
    win.act_import_memoryos = win.writes.add("&Import MemoryOS Directory…", win.import_memoryos,
                                             name="import-memoryos")
    file.addAction(win.act_import_memoryos)
    win.act_import_receipts = win.writes.add("Import &Receipts…", win.import_receipts, name="import-receipts")
    file.addAction(win.act_import_receipts)
    win.act_export_receipts = win._act(file, "&Export Receipts…", win.export_receipts, None, "export-receipts")
    win.act_receipts_source = win._act(file, "Open Receipts &Source…", win.open_receipts_source, "Ctrl+Alt+O",
                                       "open-receipts-source")
    file.addSeparator()
    win._act(file, "&Close Window", win.close, "Ctrl+W", "close")
    win.act_quit = win._act(file, "&Quit", win.quit, QKeySequence("Ctrl+Q"), "quit")
    edit = bar.addMenu("&Edit")
    window = Qt.ShortcutContext.WindowShortcut
    win.act_undo = win.writes.add("&Undo Last Change", win.undo, name="undo", key="Ctrl+Z", context=window)
    win.act_redo = win.writes.add("&Redo", win.redo, name="redo", key="Ctrl+Shift+Z", context=window)
    win.undo_names = UndoNames(win.writes, win.act_undo, win.act_redo, edit)  # Undo “Delete fact …”
    edit.addSeparator()
    win.act_find = win._act(edit, "&Find Facts", win.focus_search, QKeySequence("Ctrl+F"), "find")
    view = bar.addMenu("&View")  # item views take Ctrl+Tab for themselves: the window's own keys
    for text, keys, step, name in (("&Next Tab", ("Ctrl+Tab", "Ctrl+PgDown"), 1, "next-tab"),
                                   ("&Previous Tab", ("Ctrl+Shift+Tab", "Ctrl+PgUp"), -1, "previous-tab")):
        act = win._act(view, text, lambda s=step: win.tabs.setCurrentIndex(
            (win.tabs.currentIndex() + s) % max(win.tabs.count(), 1)), None, name)
        act.setShortcuts([QKeySequence(k) for k in keys])
    tools = bar.addMenu("&Tools")
    win.tools_menu = tools
    win.act_index = win.writes.add("Index &Missing Vectors…", win.index_vectors, name="index-vectors")
    tools.addAction(win.act_index)
    win.act_audit = win._act(tools, "Recall &Audit…", win.show_audit, None, "recall-audit")
    win.act_canary = win.writes.add("Run &Canary…", win.run_canary, name="run-canary")
    tools.addAction(win.act_canary)
    help_menu = bar.addMenu("&Help")
    win.act_shortcuts = win._act(help_menu, "&Keyboard Shortcuts", win.show_shortcuts, "F1", "shortcuts")
    win.act_guide = win._act(help_menu, "Memory Desk &Guide", win.show_guide, None, "guide")
    help_menu.addSeparator()
    win.act_about = win._act(help_menu, "&About Memory Desk", win.show_about, None, "about")
    for action, name in ((win.act_undo, "undo"), (win.act_redo, "redo"), (win.act_index, "index-vectors"),
                         (win.act_import_receipts, "import-receipts"), (win.act_canary, "run-canary")):
        action.setObjectName(name)
