"""The import dialog's form: the workspace it writes into (named), MemoryOS's data folder, the zone
it ran in (chosen, never guessed) and the short-term capacity it ran with (optional), each with a
word on why it is needed. The last import's folder, zone and capacity come back; carried to
another folder, the zone and capacity are said to be the last import's and the form is not ready
until they are changed or kept (MemoryOS's files hold neither: a wrong zone files every time
wrongly)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from memorydesk.ui.importer import remember
from memorydesk.ui.session import DeskSession


class ImportForm(QWidget):
    changed = Signal()  # what the form holds, or whether it is ready, may have changed

    def __init__(self, session: DeskSession, zones: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session, self._zones = session, zones
        self.target = QLabel("")
        self.target.setObjectName("target")
        self.target.setWordWrap(True)
        self.target.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        path = Path(session.ws.path).resolve()
        self.target.setText(f"<b>{html.escape(path.name)}</b> in {html.escape(str(path.parent))}")
        self.target.setToolTip("The workspace open in the window: the import writes into it")
        self.folder = QLineEdit()
        self.folder.setObjectName("folder")
        self.folder.setPlaceholderText("MemoryOS's data folder (it holds users/ and assistants/)")
        self.choose = QPushButton("Choose…")
        self.choose.setObjectName("choose-folder")
        row = QHBoxLayout()
        row.addWidget(self.folder, 1)
        row.addWidget(self.choose)
        self.zone = QComboBox()
        self.zone.setObjectName("zone")
        self.zone.setEditable(True)
        self.zone.addItems(self._zones)
        self.zone.setCurrentIndex(-1)
        self.zone.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.zone.lineEdit().setPlaceholderText("Choose the time zone MemoryOS ran in")
        completer = QCompleter(self._zones, self.zone)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.zone.setCompleter(completer)
        note = QLabel("MemoryOS stores local wall-clock times without an offset: every time is read in this zone, "
                      "with the offset of its own date (daylight saving included). Nothing is assumed.")
        note.setWordWrap(True)
        note.setStyleSheet("color: palette(placeholder-text)")
        self.capacity = QSpinBox()
        self.capacity.setObjectName("stm-capacity")
        self.capacity.setRange(0, 100_000)
        self.capacity.setSpecialValueText("not given")
        self.capacity.setToolTip("MemoryOS's short_term_capacity for the run that wrote these files (10 by default "
                                 "in MemoryOS; not stored in them). Given it, each QA's move to mid-term memory is "
                                 "dated by MemoryOS's own rule, and short-term memory holding fewer entries while "
                                 "mid-term memory has pages is reported as an interrupted migration.")
        capacity_note = QLabel("Optional, but without it each move is dated by an upper bound and an interrupted "
                               "migration cannot be seen.")
        capacity_note.setWordWrap(True)
        capacity_note.setStyleSheet("color: palette(placeholder-text)")
        capacity_row = QHBoxLayout()
        capacity_row.addWidget(self.capacity)
        capacity_row.addWidget(capacity_note, 1)
        # a zone and capacity carried over from the last import are said, and asked about, for another folder
        self.carried = QLabel("")
        self.carried.setObjectName("carried-over")
        self.carried.setWordWrap(True)
        self.carried.setStyleSheet("color: #b35900")
        self.keep_values = QPushButton("Keep Them")
        self.keep_values.setObjectName("keep-values")
        self.keep_values.setToolTip("Import this folder with the time zone and capacity shown")
        carried_row = QHBoxLayout()
        carried_row.addWidget(self.carried, 1)
        carried_row.addWidget(self.keep_values, 0, Qt.AlignmentFlag.AlignTop)
        self.carried_box = QWidget()
        self.carried_box.setLayout(carried_row)
        carried_row.setContentsMargins(0, 0, 0, 0)
        self.carried_box.hide()
        self._values_for: str | None = None  # the folder the zone and capacity shown were chosen for
        # a grid, not a form layout: its wrapped notes get the height their lines need at any width
        form = QGridLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setColumnStretch(1, 1)
        for k, (label, field) in enumerate((("Into workspace", self.target), ("MemoryOS folder", row),
                                            ("Time zone", self.zone), ("", note),
                                            ("Short-term capacity", capacity_row), ("", self.carried_box))):
            if label:
                form.addWidget(QLabel(label), k, 0, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            if isinstance(field, QWidget):
                form.addWidget(field, k, 1)
            else:
                form.addLayout(field, k, 1)
        self.folder.textChanged.connect(self._folder_changed)
        self.zone.currentTextChanged.connect(self._values_chosen)
        self.capacity.valueChanged.connect(self._values_chosen)
        self.keep_values.clicked.connect(self._values_chosen)

    @property
    def stm_capacity(self) -> int | None:
        return self.capacity.value() or None

    @property
    def zone_name(self) -> str:
        return self.zone.currentText().strip()

    def ready(self) -> tuple[bool, str]:
        if not self.folder.text().strip():
            return False, "choose MemoryOS's data folder"
        if self.zone_name not in self._zones:
            return False, "choose the time zone MemoryOS ran in (its times carry no offset)"
        if self.carried_box.isVisibleTo(self):
            return False, "check the time zone and capacity: they were chosen for another folder"
        return True, ""

    def restore(self) -> None:
        """The last folder, zone and capacity used (an empty field stays empty): chosen for that folder."""
        last = remember.last()
        if last["folder"]:
            self.folder.setText(last["folder"])
        if last["timezone"] in self._zones:
            self.zone.setCurrentText(last["timezone"])
        if last["stm_capacity"].isdigit():
            self.capacity.setValue(int(last["stm_capacity"]))
        self._values_for = self.folder.text().strip() or None
        self._folder_changed()

    def _values_chosen(self, *_args: Any) -> None:
        """The zone or capacity was set (or kept) for the folder shown."""
        self._values_for = self.folder.text().strip() or None
        self._folder_changed()

    def _folder_changed(self, *_args: Any) -> None:
        """Another folder than the one the zone and capacity were chosen for: said, and asked about."""
        folder = self.folder.text().strip()
        carried = bool(folder) and self._values_for is not None and folder != self._values_for \
            and bool(self.zone_name or self.stm_capacity)
        if carried:
            capacity = f"short-term capacity {self.stm_capacity}" if self.stm_capacity else "no short-term capacity"
            self.carried.setText(f"{self.zone_name or 'No time zone'} and {capacity} are what the last import used, "
                                 f"for {self._values_for}. MemoryOS's files hold neither: check them for this "
                                 "folder — change them, or keep them.")
        self.carried_box.setVisible(carried)
        self.changed.emit()
