"""Bootstrap pieces: the Qt bindings we pin, palettes, error wording, text helpers."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QPalette

from memorydesk.core.errors import WorkspaceUnusable
from memorydesk.ui.operations import describe_error
from memorydesk.ui.shell import app as bootstrap
from memorydesk.ui.widgets.text import is_rtl, one_line, tokens


def test_many_void_calls_do_not_exhaust_none(qapp) -> None:
    """PySide6 6.12.0 on Python 3.11 drops a reference to None on every void call and
    aborts long sessions; pyproject.toml excludes it. This fails on such a binding."""
    bootstrap.ensure_app()
    probe = QObject()
    for _ in range(100_000):
        probe.setObjectName("x")
    assert sys.getrefcount(None) > 1000


def test_dark_palette_is_dark_and_light_follows_the_style(qapp) -> None:
    dark = bootstrap._palette(True)
    assert dark.color(QPalette.ColorRole.Window).lightness() < 80
    assert dark.color(QPalette.ColorRole.Text).lightness() > 180
    light = bootstrap._palette(False)
    assert light.color(QPalette.ColorRole.Window).lightness() > 150


def test_error_wording() -> None:
    assert describe_error(WorkspaceUnusable("x.db: the file is empty")) == "x.db: the file is empty"
    assert describe_error(KeyError("k")).startswith("Unexpected error (KeyError")


def test_text_helpers() -> None:
    assert is_rtl("שלום world") and not is_rtl("hello שלום") and not is_rtl("123 ...")
    assert is_rtl("مرحبا")
    assert one_line("a\n b\tc") == "a b c"
    assert one_line("x" * 400).endswith("…") and len(one_line("x" * 400)) == 300
    assert tokens(974) == 244 and tokens(0) == 0
    assert Qt.LayoutDirection.RightToLeft
