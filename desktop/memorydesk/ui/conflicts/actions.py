"""What a person does from the Conflicts tab: decide (restore the loser, confirm, keep A,
keep B, keep both, review a burst), open either fact in the Facts tab, and export the trail.

Decisions are flows: ask for the reason, make one reviewer call through the session
(which routes the change to every tab that shows conflicts or facts). Enable rules are
computed from the trail on screen, so a button is only on when the decision can be made.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QStandardPaths, Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from memorydesk.browse import naming
from memorydesk.browse.conflicts import export
from memorydesk.browse.conflicts.trail_types import TrailFact
from memorydesk.core.errors import BadInput
from memorydesk.core.outputs import refuse_overwriting_input
from memorydesk.ui.actions import WriteActions
from memorydesk.ui.conflicts.dialogs import BurstReviewDialog, DecisionDialog
from memorydesk.ui.operations import dialog_result
from memorydesk.ui.session import DeskSession
from memorydesk.ui.shell import settings


def _active(f: TrailFact | None) -> bool:
    return f is not None and f.exists and f.superseded_by is None


class ConflictActions(QObject):
    def __init__(self, owner: QWidget, shown: Callable[[], tuple[dict | None, dict | None, Any]]) -> None:
        """``shown()`` gives (trail, burst detail, burst row) of what the trail pane shows."""
        super().__init__(owner)
        self.owner, self.shown = owner, shown
        self.session: DeskSession | None = None
        self.dialog: Any = None
        self.acts = WriteActions(owner, "conflict")
        add = self.acts.add
        self.restore = add("Restore Loser…", lambda: self.decide("restore"), name="restore", key="Ctrl+R")
        self.confirm = add("Confirm…", lambda: self.decide("confirm"), name="confirm", key="Ctrl+K")
        self.keep_a = add("Keep A…", lambda: self.decide("keep_a"), name="keep-a", key="Ctrl+1")
        self.keep_b = add("Keep B…", lambda: self.decide("keep_b"), name="keep-b", key="Ctrl+2")
        self.keep_both = add("Keep Both…", lambda: self.decide("keep_both"), name="keep-both", key="Ctrl+3")
        self.review_burst = add("Review Burst…", self.review, name="review-burst", key="Ctrl+Shift+R")
        self.writes = self.acts.all
        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        self.open_a = self._plain("Open A in Facts", lambda: self.open_fact("a"), "open-a", "Ctrl+Shift+A", context)
        self.open_b = self._plain("Open B in Facts", lambda: self.open_fact("b"), "open-b", "Ctrl+Shift+B", context)
        self.copy_md = self._plain("Copy as Markdown", lambda: self.copy("md"), "copy-md", "Ctrl+Shift+C", context)
        self.copy_json = self._plain("Copy as JSON", lambda: self.copy("json"), "copy-json", "Ctrl+Shift+J", context)
        self.copy_free_md = self._plain("Copy Content-Free Markdown", lambda: self.copy("md", True), "copy-free-md")
        self.copy_free_json = self._plain("Copy Content-Free JSON", lambda: self.copy("json", True), "copy-free-json")
        self.save = self._plain("Save…", lambda: self.owner_start(self.save_as(False)), "save")
        self.save_free = self._plain("Save Content-Free…", lambda: self.owner_start(self.save_as(True)), "save-free")
        self.export_menu = QMenu("Export", owner)
        self.export_menu.setObjectName("conflict-export-menu")
        for action in (self.copy_md, self.copy_json, None, self.copy_free_md, self.copy_free_json, None, self.save,
                       self.save_free):
            if action is None:
                self.export_menu.addSeparator()
            else:
                self.export_menu.addAction(action)
        self.exports = (self.copy_md, self.copy_json, self.copy_free_md, self.copy_free_json, self.save,
                        self.save_free)

    def _plain(self, text: str, slot: Callable[[], Any], name: str, key: str | None = None,
               context: Qt.ShortcutContext = Qt.ShortcutContext.WidgetWithChildrenShortcut) -> QAction:
        action = QAction(text, self.owner)
        action.setObjectName(f"conflict-{name}")
        if key:
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(context)
        action.triggered.connect(lambda _c=False: slot())
        self.owner.addAction(action)
        return action

    def owner_start(self, flow: Any) -> None:
        if self.session is None:
            flow.close()
            return
        self.session.ops.start(flow, owner=self.owner)

    def bind(self, session: DeskSession) -> None:
        self.session = session
        self.acts.bind(session)
        self.update()

    # --- enable rules -----------------------------------------------------------------------

    def update(self) -> None:
        trail, detail, _burst = self.shown()
        c = trail.conflict if trail else None
        a = trail.a if trail else None
        b = trail.b if trail else None
        resolved = c is not None and c.recorded_winner is not None
        open_pair = c is not None and c.type == "cross_agent" and c.resolution is None
        restore = trail.restore if trail else None
        settled = c is not None and c.state == "reviewed"
        self.acts.update({
            self.restore: (restore is not None and restore.possible,
                           (restore.says if restore is not None else "") or "Select a resolved conflict"),
            self.confirm: (resolved, "Select a resolved conflict"),
            self.keep_a: (open_pair and not settled and _active(a) and _active(b),
                          "Select an open cross-agent conflict whose two facts are active"),
            self.keep_b: (open_pair and not settled and _active(a) and _active(b),
                          "Select an open cross-agent conflict whose two facts are active"),
            self.keep_both: (open_pair and not settled, "Select an open cross-agent conflict nobody settled"),
            self.review_burst: (detail is not None, "Select a burst on the Bursts page"),
        })
        if self.restore.isEnabled() and restore is not None:  # what it will do, before it is done
            self.restore.setToolTip(f"Restore Loser (Ctrl+R): {restore.says}")
        self.open_a.setEnabled(a is not None and a.exists)
        self.open_b.setEnabled(b is not None and b.exists)
        for action in self.exports:
            action.setEnabled(trail is not None or detail is not None)

    # --- decisions ----------------------------------------------------------------------------

    TITLES = {"restore": ("Restore the loser", "Restore A"), "confirm": ("Confirm the resolution", "Confirm"),
              "keep_a": ("Keep A", "Keep A"), "keep_b": ("Keep B", "Keep B"), "keep_both": ("Keep both", "Keep both")}

    @staticmethod
    def explain(kind: str, a: str, b: str) -> str:
        """What the decision does, the two facts named (``a``, ``b``: ``PairName.shown``, as HTML)."""
        if kind == "confirm":
            return f"The resolution stays as it is — fact B {b} over fact A {a} — recorded as reviewed by you."
        if kind in ("keep_a", "keep_b"):
            kept, dropped = (f"fact A {a}", f"fact B {b}") if kind == "keep_a" else (f"fact B {b}", f"fact A {a}")
            return (f"{kept[0].upper() + kept[1:]} is kept; {dropped} is superseded by it and stops reaching agents. "
                    "No conflict row is written.")
        return (f"Fact A {a} and fact B {b} both stay active. The pair is recorded as reviewed in the desk's own "
                "table, so it is no longer listed as open; the product's rows are untouched.")

    async def decide(self, kind: str) -> None:
        action = {"restore": self.restore, "confirm": self.confirm, "keep_a": self.keep_a, "keep_b": self.keep_b,
                  "keep_both": self.keep_both}[kind]
        trail, _detail, _burst = self.shown()
        if trail is None or self.session is None or not self.acts.allowed(action):
            return
        conflict_id = trail.conflict.id
        title, button = self.TITLES[kind]
        a_id, b_id = trail.a.id, trail.b.id
        named = await self.session.read(lambda ws: naming.conflict_names(ws, a_id, b_id), label="naming the facts")
        a, b = (html.escape(n.shown) for n in named)  # each by the words that tell it from the other
        if kind == "restore":
            text = (f"Fact A (the loser) is {a}; fact B (the winner) is {b}.<br><br>"
                    + html.escape(trail.restore.says) + " The product's conflict row is left as it is.")
        else:
            text = self.explain(kind, a, b)
        dialog = DecisionDialog(title, text, button, self.owner)
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        reason = dialog.values()["reason"]
        dialog.deleteLater()
        self.dialog = None
        if not accepted:
            return
        from memorydesk.memory.reviewer import Reviewer  # loaded by the first write

        if kind == "restore":
            await self.session.write(title.lower(), Reviewer.restore_loser, conflict_id, reason=reason)
        elif kind == "confirm":
            await self.session.write(title.lower(), Reviewer.confirm_conflict, conflict_id, reason=reason)
        elif kind in ("keep_a", "keep_b"):
            await self.session.write(title.lower(), Reviewer.keep_fact, conflict_id, kind[-1], reason=reason)
        else:
            await self.session.write(title.lower(), Reviewer.keep_both, conflict_id, reason=reason)

    async def review(self) -> None:
        _trail, detail, burst = self.shown()
        if detail is None or burst is None or self.session is None or not self.acts.allowed(self.review_burst):
            return
        dialog = BurstReviewDialog(detail, self.owner)
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        values = dialog.values()
        dialog.deleteLater()
        self.dialog = None
        if accepted:
            from memorydesk.memory.reviewer import Reviewer

            await self.session.write("reviewing the burst", Reviewer.review_burst, detail.winner.id,
                                     values["conflicts"], values["restore"], reason=values["reason"])

    # --- navigation and export ----------------------------------------------------------------

    def open_fact(self, side: str) -> None:
        trail, _detail, _burst = self.shown()
        if trail is not None and self.session is not None and trail.fact(side).exists:
            self.session.navigate("facts", fact=trail.fact(side).id)

    def document(self, free: bool) -> dict[str, Any] | None:
        trail, detail, _burst = self.shown()
        actor = self.session.actor if self.session is not None else ""
        if trail is not None:
            doc = export.trail_document(trail.to_json(), exported_by=actor)
        elif detail is not None:
            doc = export.burst_document(detail.to_json(), exported_by=actor)
        else:
            return None
        return export.content_free(doc) if free else doc

    def file_name(self, free: bool) -> str:
        """A name to save the shown trail or burst under: what it is about, and its id (a
        content-free export names neither topic nor text)."""
        trail, detail, _burst = self.shown()
        if trail is not None:
            kind, ident = "conflict", trail.conflict.id
            about = trail.b.topic if trail.b.exists else trail.a.topic
        else:
            kind, ident = "burst", detail.winner.id if detail is not None else ""
            about = detail.winner.topic if detail is not None else None
        topic = re.sub(r"[^a-z0-9]+", "-", str(about or "").lower()).strip("-")[:40]
        parts = [kind, *([topic] if topic and not free else []), ident[:8], *(["content-free"] if free else [])]
        return "-".join(p for p in parts if p) + ".md"

    def text(self, fmt: str, free: bool = False) -> str | None:
        doc = self.document(free)
        if doc is None:
            return None
        return export.markdown(doc) if fmt == "md" else export.to_json(doc)

    def copy(self, fmt: str, free: bool = False) -> None:
        text = self.text(fmt, free)
        if text is None:
            return
        QGuiApplication.clipboard().setText(text)
        if self.session is not None:
            what = ("content-free " if free else "") + ("Markdown" if fmt == "md" else "JSON")
            self.session.status.emit(f"Copied the trail as {what} ({len(text):,} characters).")

    async def save_as(self, free: bool) -> None:
        if self.document(free) is None:
            return
        dialog = QFileDialog(self.owner, "Save the trail" + (" (content-free)" if free else ""))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilters(["Markdown (*.md)", "JSON (*.json)"])
        dialog.setDefaultSuffix("md")
        folder = settings.store().value("export/folder", "") or QStandardPaths.writableLocation(
            QStandardPaths.StandardLocation.DocumentsLocation)
        dialog.setDirectory(str(folder))
        dialog.selectFile(self.file_name(free))
        self.dialog = dialog
        accepted = await dialog_result(dialog)
        files = dialog.selectedFiles()
        chosen = dialog.selectedNameFilter()
        dialog.deleteLater()
        self.dialog = None
        if not accepted or not files:
            return
        path = Path(files[0])
        fmt = "json" if path.suffix.lower() == ".json" or (not path.suffix and "json" in chosen.lower()) else "md"
        text = self.text(fmt, free)
        if text is None:
            return
        try:
            refuse_overwriting_input(path, [self.session.ws.path] if self.session is not None else [], "the trail file")
        except BadInput as exc:  # never over the workspace or its side files
            if self.session is not None:
                self.session.status.emit(str(exc))
            return
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            if self.session is not None:
                self.session.status.emit(f"Could not save {path.name}: {exc.strerror or exc}")
            return
        settings.store().setValue("export/folder", str(path.parent))  # where the next export is offered
        if self.session is not None:
            self.session.status.emit(f"Saved {path.name}.")
