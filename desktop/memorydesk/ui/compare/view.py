"""The comparison view (File ▸ Compare With…): another file (a backup) against the open
workspace — counts per kind, the items, each item's two versions side by side, and
**Restore from Backup…** for a single removed or changed fact, policy or grant.

The other file is opened read-only on the worker and kept open while the view is; the
comparison (``browse.history.diff``) runs on the worker; a restore is one reviewer call through
the session (reason, history row, undo), after which the comparison runs again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.history.diff import Comparison, Version, compare_open, open_compared, same_file, version_of
from memorydesk.core.errors import BadInput
from memorydesk.core.review.secrets import find_secrets
from memorydesk.store.workspace import Workspace
from memorydesk.ui.compare.items import Item, groups, side_by_side
from memorydesk.ui.operations import dialog_result
from memorydesk.ui.session import Change, DeskSession
from memorydesk.ui.widgets.prompts import reason_fields
from memorydesk.ui.widgets.splitter import splitter

ITEM = Qt.ItemDataRole.UserRole


class RestoreDialog(QDialog):
    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("restore-backup")
        self.setWindowTitle("Restore from backup")
        words = QLabel(text + "<br><br>It is written as that file holds it, with your reason in the history; "
                              "Edit ▸ Undo takes it back.")
        words.setWordWrap(True)
        self.reason, self.problem = reason_fields()
        form = QFormLayout()
        form.addRow("Reason", self.reason)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.restore = self.buttons.addButton("Restore", QDialogButtonBox.ButtonRole.AcceptRole)
        self.restore.setObjectName("restore-backup-yes")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(words)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.resize(520, 220)


class CompareView(QWidget):
    """A window of its own over one comparison (``other`` against the session's workspace)."""

    def __init__(self, session: DeskSession, other: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("compare-view")
        self.session = session
        self.other_path = Path(other)
        self.other: Workspace | None = None
        self.result: Comparison | None = None
        self.dialog: Any = None
        self.closed = False
        self.setWindowTitle(f"Compare {self.other_path.name} → {session.ws.path.name} — Memory Desk")
        self.heading = QLabel("Comparing…")
        self.heading.setObjectName("compare-heading")
        self.heading.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setObjectName("compare-items")
        self.tree.setHeaderLabels(["Difference"])
        self.tree.currentItemChanged.connect(lambda *_a: self._selected())
        self.old_side = QTextBrowser()
        self.old_side.setObjectName("compare-old")
        self.new_side = QTextBrowser()
        self.new_side.setObjectName("compare-new")
        self.restore = QPushButton("Restore from Backup…")
        self.restore.setObjectName("compare-restore")
        self.restore.setShortcut(QKeySequence("Ctrl+R"))
        self.restore.setEnabled(False)
        self.restore.clicked.connect(lambda: self.session.ops.start(self.restore_selected(), owner=self))
        sides = splitter(Qt.Orientation.Horizontal, self.old_side, self.new_side)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(sides, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.restore)
        right_layout.addLayout(row)
        split = splitter(Qt.Orientation.Horizontal, self.tree, right, stretch=(2, 3))
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(split, 1)
        self.resize(1200, 720)
        self.pair: tuple[Item, Version | None, Version | None] | None = None
        # a window of its own: Esc and Ctrl+W close it, Ctrl+Q quits the desk from here too
        for keys, slot in (("Esc", self.close), ("Ctrl+W", self.close), ("Ctrl+Q", self._quit)):
            QShortcut(QKeySequence(keys), self, activated=slot)
        session.changed.connect(self._changed)
        self.start()

    # --- reading --------------------------------------------------------------------------

    def start(self) -> None:
        other, ws = self.other_path, self.session.ws

        def work() -> Comparison:
            if same_file(other, ws.path):
                raise BadInput(f"{other.name} is the open workspace itself; choose a backup or another file")
            if self.other is None:
                self.other = open_compared(other)  # no -wal/-shm left beside it
            return compare_open(self.other, ws)

        self.session.ops.run_for(self, work, self._shown, label=f"comparing with {other.name}",
                                 on_failure=lambda exc: self.heading.setText(f"Could not compare: {exc}"))

    def _shown(self, result: Comparison) -> None:
        if self.closed:
            return
        self.result = result
        current = self.selected()
        self.tree.clear()
        total = 0
        for heading, items in groups(result):
            if not items:
                continue
            top = QTreeWidgetItem([heading])
            for item in items:
                child = QTreeWidgetItem([item.label])
                child.setData(0, ITEM, item)
                top.addChild(child)
                total += 1
            self.tree.addTopLevelItem(top)
            top.setExpanded(len(items) <= 50)
        notes = " ".join(n[0].upper() + n[1:] + "." for n in result.notes)
        counts = ", ".join(f"{k} {n:,}" for k, n in result.counts().items() if n) or "no differences"
        self.heading.setText(f"<b>{self.other_path.name}</b> (older) → <b>{self.session.ws.path.name}</b> "
                             f"(open): {counts}. {notes}")
        self._reselect(current)

    def _reselect(self, wanted: Item | None) -> None:
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            for j in range(top.childCount()):
                child = top.child(j)
                item = child.data(0, ITEM)
                if wanted is None or (item.kind, item.key) == (wanted.kind, wanted.key):
                    self.tree.setCurrentItem(child)
                    return
        self._selected()

    def selected(self) -> Item | None:
        current = self.tree.currentItem()
        return current.data(0, ITEM) if current is not None else None

    def _selected(self) -> None:
        item = self.selected()
        self.restore.setEnabled(bool(item and item.restorable and not self.session.read_only))
        if item is None:
            self.old_side.setHtml("")
            self.new_side.setHtml("")
            return
        if item.kind not in ("fact", "policy", "note"):
            self._show_sides(item, (None, None))
            return
        other, ws = self.other, self.session.ws
        self.session.ops.run_for(self, lambda: (version_of(other, item.kind, item.key),
                                                version_of(ws, item.kind, item.key)),
                                 lambda pair: self._show_sides(item, pair), label="reading both versions")

    def _quit(self) -> None:
        quit_ = getattr(self.parent(), "quit", None)
        self.close()
        if callable(quit_):
            quit_()

    def _show_sides(self, item: Item, pair: tuple[Version | None, Version | None]) -> None:
        if self.closed or self.selected() != item:
            return
        self.pair = (item, pair[0], pair[1])
        left, right = side_by_side(item, pair[0], pair[1], f"{self.other_path.name} (older)",
                                   f"{self.session.ws.path.name} (open)")
        self.old_side.setHtml(left)
        self.new_side.setHtml(right)

    # --- restoring ------------------------------------------------------------------------

    async def restore_selected(self) -> None:
        item = self.selected()
        if item is None or not item.restorable:
            return
        source = self.other_path
        warning = self.secret_warning(item)
        dialog = RestoreDialog(f"Restore {item.kind} <b>{item.label}</b> as <b>{source.name}</b> holds it?"
                               + (f"<br><br><b style='color:#c0392b'>{warning}</b>" if warning else ""), self)
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        reason = dialog.reason.text().strip()
        dialog.deleteLater()
        self.dialog = None
        if not accepted:
            return
        from memorydesk.memory.reviewer import Reviewer  # loaded by the first write

        if item.kind == "grant":
            g = item.grant or {}
            fail_open = g.get("sources", ("", ""))[0] == "fail_open"
            await self.session.write("restoring a grant from the backup", Reviewer.restore_grant,
                                     g["role"], g["domain"], g["before"], fail_open, reason)
        else:
            await self.session.write(f"restoring a {item.kind} from the backup",
                                     Reviewer.restore_from_backup, source, item.kind, item.key, reason)

    def secret_warning(self, item: Item) -> str:
        """What restoring would bring back that was taken out: the secrets the backup's version
        holds and the open version does not (a redaction, an edit) — named by kind, never shown."""
        if self.pair is None or self.pair[0] != item or self.pair[1] is None:
            return ""
        old, new = self.pair[1], self.pair[2]
        kinds = []
        for name in ("topic", "content", "rule"):
            before = old.value(name)
            after = new.value(name) if new is not None else None
            if isinstance(before, str):
                now = after if isinstance(after, str) else ""
                kinds += [h.type for h in find_secrets(before) if before[h.start:h.end] not in now]
        if not kinds:
            return ""
        return (f"The backup's version holds {len(kinds)} secret{'s' if len(kinds) != 1 else ''} "
                f"({', '.join(dict.fromkeys(kinds))}) that the open file no longer holds (redacted or removed "
                "since): restoring it puts the secret back into memory, where agents recall it.")

    def _changed(self, _change: Change) -> None:
        if not self.closed:
            self.start()

    def closeEvent(self, event: Any) -> None:
        self.closed = True
        other, self.other = self.other, None
        if other is not None:
            self.session.ops.run(other.close, lambda _r: None, label="closing the compared file")
        super().closeEvent(event)
