"""The dialog every review action asks through: the desk's ``ReasonDialog`` (one rule for
reasons: a missing reason is said in red when the person confirms, the button stays enabled),
naming which finding and item it acts on, saying what it will do, with the reason prefilled from
the finding (kept in the history), and for a merge the keeper the person must choose."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from memorydesk.ui.widgets.prompts import ReasonDialog


class ReviewDialog(ReasonDialog):
    def __init__(self, title: str, text: str, reason: str, parent: QWidget | None = None, *,
                 keepers: list[tuple[str, str]] | None = None, ok_text: str = "OK", about: str = "") -> None:
        super().__init__(parent, title, about, yes_text=ok_text, informative=text, name="review-reason")
        self.about = self.text  # the finding and its item (a finding's title is memory's text, never markup)
        self.about.setObjectName("review-about")
        self.about.setVisible(bool(about))
        self.informative.setObjectName("review-says")
        self.informative.setVisible(True)
        self.ok = self.yes
        self.keeper = QComboBox()
        self.keeper.setObjectName("keeper")
        for label_text, fid in keepers or []:
            self.keeper.addItem(label_text, fid)
        self._keepers = bool(keepers)
        if keepers:
            self.add(QLabel("Keep this fact (the others are superseded by it):"))
            self.add(self.keeper)
        self.reason.setText(reason)
        self.resize(560, self.sizeHint().height())

    def accept(self) -> None:
        """A keeper the person chose (none is chosen for them) and a reason, or say what is missing."""
        if self._keepers and self.keeper.currentData() is None:
            self.problem.setText("Choose the fact to keep.")
            self.problem.show()
            self.keeper.setFocus()
            return
        super().accept()

    def values(self) -> tuple[str, str | None]:
        return self.reason_text(), self.keeper.currentData()
