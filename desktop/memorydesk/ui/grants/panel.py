"""The Grants tab's side panel: what the selected cell or domain means, the per-agent view
("what can this agent write?") and the edit buttons (each change asks for its reason in the
dialog that confirms it)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QLabel,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.grants import GrantAgent

INTRO = ("<p>Select a cell to see what it lets agents do, a domain name for the whole row, a role for the "
         "whole column. Only <b>write</b> is enforced (it allows <code>propose_policy</code>); "
         "<b>read</b> and <b>none</b> stop nothing the product reads.</p>")


class GrantPanel(QWidget):
    agent_chosen = Signal(object)  # a GrantAgent, or None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("grants-panel")
        self.agent = QComboBox()
        self.agent.setObjectName("grants-agent")
        self.agent.setToolTip("What can this agent write? (its role's column)")
        self.agent.addItem("What can an agent write? Choose one…", None)
        self.agent.currentIndexChanged.connect(lambda _i: self.agent_chosen.emit(self.agent.currentData()))
        self.explain = QTextBrowser()
        self.explain.setObjectName("grants-explain")
        self.explain.setOpenLinks(False)
        self.explain.setHtml(INTRO)
        self.buttons = QGridLayout()
        self.buttons.setContentsMargins(0, 0, 0, 0)
        self.buttons.setSpacing(4)
        caption = QLabel("Change the selected cells")
        caption.setObjectName("grants-edit-caption")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 0, 0)
        layout.addWidget(self.agent)
        layout.addWidget(self.explain, 1)
        layout.addWidget(caption)
        layout.addLayout(self.buttons)

    def add_buttons(self, actions: list[QAction], columns: int = 2) -> None:
        for k, action in enumerate(actions):
            button = QToolButton()
            button.setDefaultAction(action)
            button.setObjectName(f"button-{action.objectName()}")
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            self.buttons.addWidget(button, k // columns, k % columns)

    def set_agents(self, by_role: dict[str, list[GrantAgent]]) -> None:
        current = self.agent.currentData()
        agents = sorted((a for people in by_role.values() for a in people), key=lambda a: a.name.lower())
        self.agent.blockSignals(True)
        self.agent.clear()
        self.agent.addItem("What can an agent write? Choose one…", None)
        for a in agents:
            role = a.acts_as.value
            label = f"{a.name} · {role}" if a.role_known else f"{a.name} · {role} (role {a.role or 'not set'})"
            self.agent.addItem(label, a)
        found = next((k for k in range(1, self.agent.count())
                      if current is not None and self.agent.itemData(k).id == current.id), 0)
        self.agent.setCurrentIndex(found)
        self.agent.blockSignals(False)

    def show_html(self, text: str) -> None:
        bar = self.explain.verticalScrollBar()
        keep = bar.value()
        self.explain.setHtml(text or INTRO)
        bar.setValue(min(keep, bar.maximum()))
