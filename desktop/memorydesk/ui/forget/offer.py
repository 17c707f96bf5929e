"""The bar a tab shows after a delete or a purge: what was done, that agents may still get the
text back another way, and "Check It Is Forgotten" — which runs the check and shows the receipt."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from memorydesk.ui.forget.dialog import CheckRequest, ForgetDialog, check_forgotten
from memorydesk.ui.session import DeskSession


class ForgetOffer(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("forget-offer")
        self.setStyleSheet("#forget-offer { background: rgba(40, 116, 166, 28); "
                           "border-bottom: 1px solid rgba(40, 116, 166, 110); }")
        self.session: DeskSession | None = None
        self.request: CheckRequest | None = None
        self.dialog: ForgetDialog | None = None
        self.text = QLabel()
        self.text.setObjectName("forget-offer-text")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.button = QPushButton("Check It Is Forgotten")
        self.button.setObjectName("forget-offer-check")
        self.button.clicked.connect(lambda _c=False: self.check())
        close = QToolButton()
        close.setObjectName("forget-offer-close")
        close.setText("×")
        close.setToolTip("Hide")
        close.clicked.connect(lambda _c=False: self.hide())
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.button)
        layout.addWidget(close)
        self.hide()

    def offer(self, session: DeskSession, request: CheckRequest, what: str) -> None:
        """Say ``what`` was done and offer the check (``request`` holds what the window remembered).
        The bar speaks of that change only: the next change made in the desk (a restore, an undo,
        another delete) takes it away, so it never says "Deleted 3 facts" after they came back."""
        if self.session is not session:
            if self.session is not None:
                self.session.changed.disconnect(self._later)
            session.changed.connect(self._later)
        self.session, self.request = session, request
        self.text.setText(f"{what} Agents may still get its text back another way: through a copy, a policy, a "
                          "note, the index, the log or a backup.")
        self.show()
        if request.remembered or request.item_ids:  # after a purge: say what still holds the text, not a guess
            self.text.setText(f"{what} Checking what still holds its text…")
            session.ops.start(self._still(session, request, what), owner=self)

    async def _still(self, session: DeskSession, request: CheckRequest, what: str) -> None:
        receipt = await session.read(request.run, label="checking what still holds the text")
        if self.request is not request or not self.isVisible():
            return  # another change or offer since
        self.text.setText(f"{what} {still_words(receipt, remembered=bool(request.remembered))}")

    def _later(self, change: Any) -> None:
        if getattr(change, "history", False) and not getattr(change, "external", False):
            self.hide()

    def check(self) -> None:
        if self.session is None or self.request is None:
            return
        self.session.ops.start(self._flow(self.session, self.request), owner=self)

    async def _flow(self, session: DeskSession, request: CheckRequest) -> Any:
        self.dialog = await check_forgotten(session, self.window(), request)
        return self.dialog


def still_words(receipt: Any, *, remembered: bool = False) -> str:
    """What the forget check found still holding the text, path by path (its ids, never the text);
    ``remembered``: checked for the text the window read before the purge, which the command line's
    check by id cannot read afterwards (it says "cannot tell" there): said, so both agree."""
    from memorydesk.core.forget.receipt import STILL

    still = [a for a in receipt.answers if a.verdict == STILL]
    later = (" (checked for the text read before the purge: `forget-check` by id cannot read it any more and "
             "cannot tell for the paths that search for it; give it the words with --text)") if remembered else ""
    if not still:
        return f"The forget check finds it gone from all {len(receipt.answers)} paths{later}."
    named = "; ".join(f"{a.label}" + (f" ({', '.join(f.words(2) for f in a.found)})" if a.found else "")
                      for a in still)
    return f"Still holding its text ({len(still)} of {len(receipt.answers)} paths): {named}."
