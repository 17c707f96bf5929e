"""A splitter whose handle can be seen and grabbed: a band of a few pixels with a grip drawn
in its middle (Qt's default handle is one or two pixels and looks like nothing)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSplitter, QSplitterHandle, QWidget

HANDLE = 8


class GripHandle(QSplitterHandle):
    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.color(QPalette.ColorRole.Window))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(palette.color(QPalette.ColorRole.Mid))
        w, h = self.width(), self.height()
        if self.orientation() == Qt.Orientation.Vertical:  # a horizontal band: the grip lies across
            grip = QRectF(w / 2 - 24, h / 2 - 1.5, 48, 3)
        else:
            grip = QRectF(w / 2 - 1.5, h / 2 - 24, 3, 48)
        painter.drawRoundedRect(grip, 1.5, 1.5)
        painter.end()


class GripSplitter(QSplitter):
    def __init__(self, orientation: Qt.Orientation, parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        self.setHandleWidth(HANDLE)

    def createHandle(self) -> QSplitterHandle:
        return GripHandle(self.orientation(), self)


def splitter(orientation: Qt.Orientation, *widgets: QWidget, name: str = "", stretch: tuple[int, ...] = (),
             sizes: tuple[int, ...] = (), collapsible: bool = True) -> GripSplitter:
    """The desk's splitter set-up, written once: ``widgets`` side by side (``Horizontal``) or one
    above the other, each with its ``stretch`` factor and first size, named ``name`` (the key
    ``ui.shell.window_state`` keeps a person's layout under); ``collapsible=False`` keeps every pane
    from being dragged shut."""
    split = GripSplitter(orientation)
    if name:
        split.setObjectName(name)
    for widget in widgets:
        split.addWidget(widget)
    for index, factor in enumerate(stretch):
        split.setStretchFactor(index, factor)
    split.setChildrenCollapsible(collapsible)
    if sizes:
        split.setSizes(list(sizes))
    return split
