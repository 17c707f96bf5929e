"""Edit ▸ Undo and Edit ▸ Redo name the change they act on: Undo “Delete fact ADR-0007”.

The names are read on the worker (``browse.naming.undo_redo_names``) whenever the window
routes a change (ours or another program's) and when a workspace opens; until they
arrive (a few milliseconds after a change) they answer unnamed. Nothing to undo: the
action is off and says so.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from memorydesk.browse.naming import undo_redo_names, undo_refusal
from memorydesk.ui.actions import WriteActions
from memorydesk.ui.session import Change, DeskSession

UNDO, REDO, LAST_CHANGE = "&Undo", "&Redo", "&Undo Last Change"


def label(base: str, name: str | None, note: str = "") -> str:
    return (f"{base} “{name}”" + (f" ({note})" if note else "")) if name else base


class UndoNames(QObject):
    def __init__(self, writes: WriteActions, undo: QAction, redo: QAction, menu: QMenu | None = None) -> None:
        super().__init__(writes)
        self.writes, self.undo, self.redo = writes, undo, redo
        if menu is not None:
            menu.addActions([undo, redo])
        self.names: tuple[str | None, str | None, str] = (None, None, "")
        self._asked = 0

    def bind(self, session: DeskSession | None) -> None:
        """A workspace opened: the write actions follow its session, and the names its history."""
        self.writes.bind(session)
        self.refresh(session)

    def refresh(self, session: DeskSession | None) -> None:
        """Read what Undo and Redo would act on now, and name it in the menu."""
        if session is None:
            return
        self._asked += 1
        asked = self._asked

        def show(got: tuple[tuple[str | None, str | None, str], str]) -> None:
            if asked == self._asked:
                self.apply(*got)

        ws, actor = session.ws, session.actor
        session.ops.run_for(self, lambda: (undo_redo_names(ws, actor), undo_refusal(ws)), show,
                            label="reading the history", quiet=True)

    def routed(self, session: DeskSession | None, change: Change) -> None:
        """A change the window routed (ours, or another program's): the history may have moved.
        Until its names are read both actions answer, unnamed (Ctrl+Z right after a change
        must undo it, and must not be labelled with the change before it)."""
        if change.history or change.external:
            self.undo.setText(LAST_CHANGE)
            self.redo.setText(REDO)
            self.writes.update({})
            self.refresh(session)

    def apply(self, names: tuple[str | None, str | None, str], refusal: str = "") -> None:
        """The names in the menu; ``refusal``: why Undo would be refused now (``undo_refusal``) —
        said in its text and Undo off with it, rather than refused only when pressed."""
        self.names = names
        undo, redo, note = names
        self.undo.setText(label(UNDO, undo, note if not refusal else "refused: the agent wrote the note since"))
        self.redo.setText(label(REDO, redo))
        self.writes.update({self.undo: (undo is not None and not refusal, refusal or "nothing to undo"),
                            self.redo: (redo is not None, "nothing to redo")})


def named(call, word: str, name: str | None):
    """``call(reviewer)`` whose status line names the change as the Edit menu did (“Undone “Edit
    fact run-2417””), not by its id; unnamed (the names not read yet) it says what the call says."""
    def run(reviewer):
        result = call(reviewer)
        if name and getattr(result, "message", None) is not None:
            result.message = f"{word} “{name}”"
        return result
    return run
