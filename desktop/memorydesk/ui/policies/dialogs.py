"""The policy edit dialog: domain, rule, required role (advisory), reason.

A field the person leaves alone comes back exactly as the policy holds it (its text untrimmed,
a role the list does not know, or in other letters, as stored); the new version keeps the
old one's active state (activating is its own action)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from memorydesk.browse.detail import PolicyRow
from memorydesk.ui.widgets.prompts import reason_fields, require_reason

ROLES = ("ceo", "coder", "reviewer", "qa", "designer", "security", "devops", "pm", "general")


class PolicyEditDialog(QDialog):
    def __init__(self, policy: PolicyRow, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("policy-edit")
        self.setWindowTitle("Edit policy")
        self.policy_id = policy.id
        self.original = policy
        self.domain = QLineEdit(policy.domain)
        self.domain.setObjectName("domain")
        self.rule = QPlainTextEdit(policy.rule)
        self.rule.setTabChangesFocus(True)  # Tab moves on (a rule needs no tab characters)
        self.rule.setObjectName("rule")
        self.role = QComboBox()
        self.role.setObjectName("required_role")
        self.role.addItem("none", None)
        for role in ROLES:
            self.role.addItem(role, role)
        current = (policy.required_role or "").lower()
        self.role.setCurrentIndex(max(0, self.role.findData(current)) if current else 0)
        if current and self.role.findData(current) < 0:  # a role the product does not know: shown, kept
            self.role.insertItem(1, f"{policy.required_role} (not a role the product knows)", policy.required_role)
            self.role.setCurrentIndex(1)
        self.shown = (self.domain.text(), self.rule.toPlainText(), self.role.currentIndex())
        self.reason, self.problem = reason_fields()
        form = QFormLayout()
        form.addRow("Domain", self.domain)
        form.addRow("Rule", self.rule)
        form.addRow("Required role (advisory)", self.role)
        form.addRow("Reason", self.reason)
        state = ("It is active: the new version is active too." if policy.active else
                 "It is inactive: the new version stays inactive (Activate is its own action).")
        note = QLabel("The required role is advisory: the product never enforces it. Every active policy "
                      f"is injected into every agent dispatch. {state}")
        note.setWordWrap(True)
        self.buttons = buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                                  | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.resize(560, 380)

    def values(self) -> dict[str, Any]:
        p, (domain, rule, role) = self.original, self.shown
        return {"domain": p.domain if self.domain.text() == domain else self.domain.text().strip(),
                "rule": p.rule if self.rule.toPlainText() == rule else self.rule.toPlainText().strip(),
                "required_role": p.required_role if self.role.currentIndex() == role else self.role.currentData(),
                "reason": self.reason.text().strip()}

    def _check(self) -> None:
        v = self.values()
        if not v["domain"].strip() or not v["rule"].strip():
            self.problem.setText("Domain and rule may not be empty.")
            return
        if require_reason(self.reason, self.problem):
            self.accept()
