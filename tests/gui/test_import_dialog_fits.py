"""File ▸ Import MemoryOS Directory…, as the operator found it on a second run: with no anomalies
its lines overlapped ("No anomalies." cut, the "Wrote into …" line hidden), and the next folder
was easily imported with the last folder's time zone and capacity. On the real widgets."""

from __future__ import annotations

from pathlib import Path

import guihelp
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from fixtures.memoryos_dir import MemoryOSDir, page, qa, session
from helpers import SHARED_DATA

pytestmark = pytest.mark.gui


def clean_folder(root: Path) -> MemoryOSDir:
    """Two QAs in STM and one page: nothing for the import to report."""
    folder = MemoryOSDir(root)
    folder.short_term = [qa(2, "2025-05-01 10:05:00"), qa(3, "2025-05-01 10:10:00")]
    folder.add_session(session("session_a", [page("page_1", qa(1, "2025-05-01 10:00:00"))], "2025-05-01 10:06:00"))
    folder.write()
    return folder


def open_dialog(qtbot, win):
    win.act_import_memoryos.trigger()
    return guihelp.wait_dialog(qtbot, win)


def imported(qtbot, dialog, folder: Path, zone: str, capacity: int = 0):
    dialog.folder.setText(str(folder))
    dialog.zone.setCurrentText(zone)
    dialog.capacity.setValue(capacity)
    if dialog.keep_values.isVisible():
        qtbot.mouseClick(dialog.keep_values, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=60_000)
    qtbot.wait(50)
    return dialog.result


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_with_no_anomalies_every_line_has_its_room(qtbot, open_window, sample_path: Path, tmp_path: Path,
                                                   size: tuple[int, int]) -> None:
    win = open_window(sample_path)
    win.resize(*size)
    dialog = open_dialog(qtbot, win)
    result = imported(qtbot, dialog, clean_folder(tmp_path / "memoryos").root, "UTC")
    assert not result.anomalies and "No anomalies." in dialog.summary.text()
    assert result.outcome()[1:] in dialog.summary.text()  # the "Wrote into …" line
    labels = [w for w in dialog.findChildren(QLabel) if w.isVisible() and w.wordWrap() and w.text()]
    for label in labels:  # none squeezed below the height its lines need (it would draw over its neighbours)
        assert label.height() >= label.heightForWidth(label.width()), label.text()[:60]
    stacked = [dialog.stage, dialog.summary, dialog.blind]
    for upper, lower in zip(stacked, stacked[1:]):
        assert upper.geometry().bottom() < lower.geometry().top()
    buttons = dialog.close_button.geometry()
    assert dialog.blind.geometry().bottom() < buttons.top() and buttons.bottom() <= dialog.rect().bottom()


def test_a_zone_carried_over_to_another_folder_is_said_and_asked_about(qtbot, open_window, sample_path: Path,
                                                                       tmp_path: Path) -> None:
    """The dialog kept the previous folder's zone and capacity: the next sample was easily imported
    with the wrong zone. Carried to another folder, they are shown as the last import's and the
    import waits until they are changed or kept."""
    first = clean_folder(tmp_path / "first").root
    second = clean_folder(tmp_path / "second").root
    win = open_window(sample_path)
    dialog = open_dialog(qtbot, win)
    imported(qtbot, dialog, first, "Europe/Berlin", 5)
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    again = open_dialog(qtbot, win)
    assert again.folder.text() == str(first) and not again.carried_box.isVisible()  # its own folder: as it was
    assert again.import_button.isEnabled()
    again.folder.setText(str(second))
    assert again.carried_box.isVisible() and not again.import_button.isEnabled()
    qtbot.wait(50)
    for label in (again.carried, *[w for w in again.form.findChildren(QLabel) if w.wordWrap() and w.isVisible()]):
        assert label.height() >= label.heightForWidth(label.width()), label.text()[:60]  # room for every line
    text = again.carried.text()
    assert "Europe/Berlin" in text and "short-term capacity 5" in text and str(first) in text
    assert "another folder" in again.import_button.toolTip()
    qtbot.mouseClick(again.keep_values, Qt.MouseButton.LeftButton)  # kept, knowingly
    assert not again.carried_box.isVisible() and again.import_button.isEnabled()
    again.folder.setText(str(first) + "-other")
    assert again.carried_box.isVisible()
    again.zone.setCurrentText("UTC")  # changed for this folder: nothing carried over any more
    assert not again.carried_box.isVisible() and again.import_button.isEnabled()


def test_the_two_themes_counts_say_why_pages_and_rows_differ(qtbot, open_window, sample_path: Path) -> None:
    data = SHARED_DATA / "memoryos" / "two_themes_duplicate_pages" / "data"
    if not data.exists():
        pytest.skip("../shared/data/memoryos is not present in this checkout")
    win = open_window(sample_path)
    dialog = open_dialog(qtbot, win)
    imported(qtbot, dialog, data, "Europe/London", 5)
    text = dialog.summary.text()
    assert "18 pages in 32 page rows (14 pages stored more than once: duplicate_page_id)" in text
    assert "mtm page rows 32" in text
