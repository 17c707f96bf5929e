"""The Grants tab's own dialog: fixing one stored grant row (a change is confirmed, with its
reason, in the desk's ``ui.widgets.prompts.ReasonDialog``) — an unknown role or permission string, a case variant, or
one of several rows that match the same cell (remove it, or give it a known role/permission)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from memorydesk.core.product.grants import PERMISSIONS, ROLES, Cell, GrantRow
from memorydesk.ui.widgets.prompts import reason_fields, require_reason


class FixRowDialog(QDialog):
    def __init__(self, cell: Cell, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("grant-fix")
        self.setWindowTitle("Fix grant row")
        self.cell = cell
        self.rows: list[GrantRow] = list(cell.rows)
        intro = QLabel(f"The rows the product matches for <b>{cell.role.value} × {cell.domain}</b>, in the order it "
                       "reads them (the first decides). Give a row a role and permission the product knows, or "
                       "remove it. Undo puts it back exactly as it was stored.")
        intro.setWordWrap(True)
        self.row = QComboBox()
        self.row.setObjectName("row")
        for k, r in enumerate(self.rows, 1):
            self.row.addItem(f"{k}. {r.describe()}", r.agent_role)
        self.role = QComboBox()
        self.role.setObjectName("role")
        for role in ROLES:
            self.role.addItem(role.value, role.value)
        self.permission = QComboBox()
        self.permission.setObjectName("permission")
        for p in PERMISSIONS:
            self.permission.addItem(p.value, p.value)
        self.remove = QCheckBox("Remove this row instead")
        self.remove.setObjectName("remove")
        self.remove.toggled.connect(self._toggled)
        self.reason, self.problem = reason_fields()
        self.row.currentIndexChanged.connect(self._row_changed)
        form = QFormLayout()
        form.addRow("Row", self.row)
        form.addRow("Role", self.role)
        form.addRow("Permission", self.permission)
        form.addRow("", self.remove)
        form.addRow("Reason", self.reason)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._check)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self._row_changed()
        self.resize(560, 300)

    def current(self) -> GrantRow | None:
        k = self.row.currentIndex()
        return self.rows[k] if 0 <= k < len(self.rows) else None

    def _row_changed(self) -> None:
        row = self.current()
        if row is None:
            return
        self.role.setCurrentIndex(ROLES.index(row.role))
        self.permission.setCurrentIndex(PERMISSIONS.index(row.effective))
        self.problem.setText("")

    def _toggled(self, on: bool) -> None:
        self.role.setEnabled(not on)
        self.permission.setEnabled(not on)

    def values(self) -> dict[str, Any]:
        row = self.current()
        return {"domain": row.memory_domain if row else self.cell.domain, "agent_role": row.agent_role if row else "",
                "role": self.role.currentData(), "permission": self.permission.currentData(),
                "remove": self.remove.isChecked(), "reason": self.reason.text().strip()}

    def _check(self) -> None:
        row, v = self.current(), self.values()
        if row is None:
            self.problem.setText("There is no row to fix.")
            return
        if not v["remove"] and (v["role"], v["permission"]) == (row.agent_role, row.permission):
            self.problem.setText("The row already reads so: change the role or the permission, or remove it.")
            return
        if require_reason(self.reason, self.problem):
            self.accept()
