"""What every dispatch carries (the policy section, exactly as injected) and a preview
of one agent's whole dispatch preamble for a typed task."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse import detail as browse_detail
from memorydesk.browse.detail import AgentRow
from memorydesk.search import preamble
from memorydesk.ui.widgets.text import tokens

NOTE_AT, WARN_AT, ALARM_AT = 2_000, 4_000, 8_000  # characters of policy text in every dispatch


def utf16_len(text: str) -> int:
    """Length as the product counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def share(chars: int, context: int | None, whose: str) -> str:
    """“0.3 % of Ada's context (200,000 tokens)”, or that the file gives no context size."""
    if not context:
        return f"{whose}: no context size in the file"
    return f"{100 * tokens(chars) / context:.1f} % of {whose} ({context:,} tokens)"


def size_note(chars: int, context: int | None = None, whose: str = "") -> tuple[str, str]:
    """(sentence, colour) for a block of text every dispatch carries, against an agent's context
    size (the smallest, for what every agent gets): the thresholds are this desk's, in characters."""
    base = f"{chars:,} characters · ~{tokens(chars):,} tokens (characters ÷ 4)"
    if whose:  # against whose context it is weighed
        base += f" · {share(chars, context, whose)}"
    if chars >= ALARM_AT:
        return base + f" — very large (over {ALARM_AT:,} characters): every agent pays for this on every task; " \
                      "retire or merge policies.", "#c0392b"
    if chars >= WARN_AT:
        return base + f" — large (over {WARN_AT:,} characters): consider retiring or merging policies.", "#d9822b"
    if chars >= NOTE_AT:
        return base + f" — over {NOTE_AT:,} characters: it is added to every dispatch of every agent, before " \
                      "its task.", "#b7950b"
    return base, ""


def _mono(name: str) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setObjectName(name)
    box.setReadOnly(True)
    box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    return box


class DispatchPanel(QWidget):
    """``run(fn(ws), on_done, label=…)`` reads on the worker for it (the tab's ``run``)."""

    def __init__(self, run: Callable[..., None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run
        self.agents: list[AgentRow] = []
        self._section_text: str | None = None
        self.section = _mono("policy-section")
        self.section_size = QLabel("")
        self.section_size.setObjectName("policy-section-size")
        self.section_size.setWordWrap(True)
        carries = QGroupBox("What every dispatch carries")
        lay = QVBoxLayout(carries)
        lay.addWidget(QLabel("The policy section exactly as it is injected into every agent's dispatch:"))
        lay.addWidget(self.section, 1)
        lay.addWidget(self.section_size)

        self.agent = QComboBox()
        self.agent.setObjectName("agent")
        self.task = QLineEdit()
        self.task.setObjectName("task")
        self.task.setPlaceholderText("Type a task (20+ characters adds keyword-matched facts)")
        self.preview = _mono("preamble")
        self.preview_size = QLabel("")
        self.preview_size.setObjectName("preamble-size")
        self.preview_size.setWordWrap(True)  # a longer note must not widen the panel (the splitter stays)
        preview = QGroupBox("Dispatch preview")
        form = QFormLayout()
        form.addRow("Agent", self.agent)
        form.addRow("Task", self.task)
        play = QVBoxLayout(preview)
        play.addLayout(form)
        play.addWidget(self.preview, 1)
        play.addWidget(self.preview_size)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(carries, 1)
        layout.addWidget(preview, 1)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(300)
        self._debounce.timeout.connect(self.update_preview)
        self.task.textChanged.connect(lambda _t: self._debounce.start())
        self.agent.currentIndexChanged.connect(lambda _i: self.update_preview())

    def refresh(self) -> None:
        self.run(preamble.policy_section, self._show_section, label="building the policy section")
        self.run(browse_detail.agents, self._show_agents, label="reading agents")

    def _smallest(self) -> tuple[int | None, str]:
        """The smallest context size among the agents, and whose it is (what every dispatch must fit)."""
        sized = [a for a in self.agents if a.context_size]
        if not sized:
            return None, "any agent's context (the file gives no context size)" if self.agents else \
                "an agent's context (no agents)"
        a = min(sized, key=lambda a: a.context_size or 0)
        return a.context_size, f"the smallest agent context, {a.name}'s"

    def _show_section(self, text: str) -> None:
        self.section.setPlainText(text)
        self._section_text = text
        note, colour = size_note(utf16_len(text), *self._smallest())
        self.section_size.setText(note if text else "No active policies: dispatches carry no policy section.")
        self.section_size.setStyleSheet(f"color: {colour}" if colour else "")

    def _show_agents(self, agents: list[AgentRow]) -> None:
        self.agents = agents
        if self._section_text is not None:
            self._show_section(self._section_text)
        current = self.agent.currentData()
        self.agent.blockSignals(True)
        self.agent.clear()
        for a in agents:
            label = a.name + (f" — {a.title}" if a.title else "")
            self.agent.addItem(label, a.id)
        if current is not None and self.agent.findData(current) >= 0:
            self.agent.setCurrentIndex(self.agent.findData(current))
        self.agent.blockSignals(False)
        self.update_preview()

    def update_preview(self) -> None:
        agent_id = self.agent.currentData()
        if agent_id is None:
            self.preview_size.setText("This workspace has no agents to preview.")
            return
        task = self.task.text()
        self.run(lambda ws: preamble.build_preamble(ws, agent_id, task), self._show_preview,
                 label="building the dispatch preview")

    def _show_preview(self, text: str) -> None:
        self.preview.setPlainText(text)
        agent = next((a for a in self.agents if a.id == self.agent.currentData()), None)
        whose = f"{agent.name}'s context" if agent is not None else "the agent's context"
        self.preview_size.setText(size_note(utf16_len(text), agent.context_size if agent else None, whose)[0]
                                  if text else "Empty: this dispatch carries no memory.")
