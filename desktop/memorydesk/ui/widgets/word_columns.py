"""Columns as wide as their longest word, kept so: a header state restored from an earlier run
(``ui.shell.window_state``), saved when a column was narrower, never cuts that word again — each
time the view is shown, a column narrower than its word is widened to it (wider stays wider)."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QTableView


class WordColumns(QObject):
    """``words``: column → the longest word it shows (or a minimum width in pixels); ``pad``: the
    cell's margins beside the text."""

    def __init__(self, view: QTableView, words: Mapping[int, str | int], pad: int = 20) -> None:
        super().__init__(view)
        self.view, self.words, self.pad = view, dict(words), pad
        view.installEventFilter(self)
        self.fit()

    def minimum(self, column: int) -> int:
        word = self.words[column]
        return word if isinstance(word, int) else self.view.fontMetrics().horizontalAdvance(word) + self.pad

    def fit(self) -> None:
        header = self.view.horizontalHeader()
        for column in self.words:
            if header.sectionSize(column) < self.minimum(column):
                header.resizeSection(column, self.minimum(column))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.view and event.type() == QEvent.Type.Show:
            self.fit()
        return False
