"""The graph tab's dialogs: deleting edges (named, with a reason kept in the history), and
choosing which of several matching facts a search focuses."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.graph.data import FACT, STATES, GraphData
from memorydesk.ui.widgets.prompts import ReasonDialog


def facts_matching(g: GraphData, text: str) -> list[int]:
    """The fact nodes whose topic holds ``text`` (any case), active facts first."""
    low = text.lower()
    hits = [int(i) for i in g.of_kind(FACT) if low in g.labels[i].lower()]
    hits.sort(key=lambda i: (int(g.state[i]) >= 2, g.labels[i].lower()))
    return hits


def fact_choices(g: GraphData, hits: list[int]) -> list[tuple[int, str]]:
    """What the picker lists for each matching fact: topic, domain, state and a short id."""
    return [(i, f"{g.labels[i]}  ·  {g.labels[g.domain[i]]} · {STATES[int(g.state[i])]} · {g.ids[i][:8]}")
            for i in hits]


class EdgeDeleteDialog(ReasonDialog):
    """``text`` names the edges (“Delete this edge: a — b?”); an empty reason is refused in place."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent, "Delete edges", text, yes_text="Delete", name="edge-delete",
                         informative="Agents stop reaching one fact from the other through the graph voice. "
                                     "Undo puts the rows back exactly as they were.")
        self.delete = self.yes
        self.delete.setObjectName("edge-delete-yes")


class FactPicker(QDialog):
    """A graph search that matched several facts: the person picks which to focus (Enter or
    double-click), active facts first; typing narrows the list."""

    def __init__(self, text: str, choices: list[tuple[int, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graph-pick")
        self.setWindowTitle("Which fact?")
        self.choices = choices
        self.chosen: int | None = None
        words = QLabel(f"{len(choices):,} facts match “{text}”. Choose the one to focus:")
        words.setTextFormat(Qt.TextFormat.PlainText)
        words.setWordWrap(True)
        self.narrow = QLineEdit()
        self.narrow.setObjectName("graph-pick-filter")
        self.narrow.setPlaceholderText("Type to narrow the list")
        self.narrow.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.list.setObjectName("graph-pick-list")
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        for node, label in choices:
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, node)
            item.setToolTip(label)
            self.list.addItem(item)
        self.list.setCurrentRow(0)
        self.list.itemActivated.connect(lambda _i: self.accept())
        self.narrow.textChanged.connect(self._narrow)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.focus = self.buttons.addButton("Focus", QDialogButtonBox.ButtonRole.AcceptRole)
        self.focus.setObjectName("graph-pick-yes")
        self.focus.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(words)
        layout.addWidget(self.narrow)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.buttons)
        self.list.setFocus()
        self.resize(560, 420)

    def _narrow(self, text: str) -> None:
        low = text.strip().lower()
        first = None
        for i in range(self.list.count()):
            item = self.list.item(i)
            hide = bool(low) and low not in item.text().lower()
            item.setHidden(hide)
            if not hide and first is None:
                first = i
        if first is not None:
            self.list.setCurrentRow(first)

    def accept(self) -> None:
        item = self.list.currentItem()
        if item is None or item.isHidden():
            return
        self.chosen = int(item.data(Qt.ItemDataRole.UserRole))
        super().accept()
