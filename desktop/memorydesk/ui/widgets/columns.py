"""Readable column widths at any window size.

Fixed columns keep their width; the text columns share what is left by weight, never
below their minimum; when even the minimums do not fit, optional columns step out
(hidden, in a set order) before anything is squeezed into a few characters. A column the
person resizes keeps the width they gave it.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QHeaderView, QTableView


class ColumnFitter(QObject):
    def __init__(self, view: QTableView, names: Sequence[str], widths: dict[str, int],
                 flexible: dict[str, tuple[int, float]], optional: Sequence[str] = ()) -> None:
        super().__init__(view)
        self.view, self.names = view, list(names)
        self.widths = dict(widths)  # fixed columns' widths (and the flexible ones' preferred)
        self.flexible = dict(flexible)  # name -> (minimum width, weight of the slack)
        self.optional = list(optional)  # hidden first when space runs out, in this order
        self.hidden_by_owner: set[str] = set()
        self.stepped_out: set[str] = set()
        self.user_sized: set[str] = set()
        self._fitting = False
        header = view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.sectionResized.connect(self._resized)
        view.viewport().installEventFilter(self)

    def restore_widths(self, widths: dict[str, int]) -> None:
        """Widths a person gave in an earlier run (``ui.shell.window_state``): kept as if resized now."""
        for name, width in widths.items():
            if name in self.names and width > 0:
                self.widths[name] = width
                self.user_sized.add(name)
        self.fit()

    def set_hidden(self, names: set[str]) -> None:
        """The columns the owner hides (e.g. those of another view); the rest are fitted."""
        self.hidden_by_owner = set(names)
        self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def _resized(self, index: int, _old: int, new: int) -> None:
        if not self._fitting and 0 <= index < len(self.names):
            name = self.names[index]
            self.user_sized.add(name)
            self.widths[name] = new

    def fit(self) -> None:
        available = self.view.viewport().width()
        if available <= 0:
            return
        shown = [n for n in self.names if n not in self.hidden_by_owner]
        stepped: list[str] = []
        for candidate in [None, *[n for n in self.optional if n in shown]]:
            if candidate is not None:
                stepped.append(candidate)
            visible = [n for n in shown if n not in stepped]
            fixed = sum(self.widths[n] for n in visible if n not in self.flexible or n in self.user_sized)
            minimum = sum(self.flexible[n][0] for n in visible if n in self.flexible and n not in self.user_sized)
            if fixed + minimum <= available:
                break
        self.stepped_out = set(stepped)
        flex = [n for n in visible if n in self.flexible and n not in self.user_sized]
        slack = max(0, available - fixed - minimum)
        weights = sum(self.flexible[n][1] for n in flex) or 1.0
        self._fitting = True
        try:
            for i, name in enumerate(self.names):
                hide = name in self.hidden_by_owner or name in self.stepped_out
                self.view.setColumnHidden(i, hide)
                if hide:
                    continue
                if name in flex:
                    low, weight = self.flexible[name]
                    self.view.horizontalHeader().resizeSection(i, low + int(slack * weight / weights))
                else:
                    self.view.horizontalHeader().resizeSection(i, self.widths[name])
        finally:
            self._fitting = False
