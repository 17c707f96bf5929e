"""Tools ▸ Index Missing Vectors on real widgets: it says what it will do and asks why, then
progress, cancel and resume, history and one undo; read-only."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from memorydesk.embedding.embedder import get_embedder
from memorydesk.memory.reviewer import Reviewer
from memorydesk.memory.service import MemoryService
from memorydesk.memory.vector_index import missing_count
from memorydesk.store import open_workspace

TEXTS = [f"note {i}: the deploy pipeline step {i} runs after the tests" for i in range(150)]


@pytest.fixture
def unembedded(tmp_path: Path) -> Path:
    ok, reason = get_embedder().status()
    if not ok:
        pytest.skip(reason)
    path = tmp_path / "novec.db"
    with open_workspace(path, create=True) as ws:
        svc = MemoryService(ws, embedder=False)  # as a product without its model writes them
        for i, text in enumerate(TEXTS):
            svc.propose_fact(domain="ops", topic=f"step-{i}", content=text)
    return path


def _started(qtbot, win, batch: int | None = None):
    """Start Tools ▸ Index Missing Vectors and confirm it with a reason; its Job, once it shows
    in the status bar."""
    if batch is None:
        win.act_index.trigger()
    else:
        win.ops.start(win.index_vectors(batch=batch))
    qtbot.waitUntil(lambda: win.dialog is not None and win.dialog.isVisible(), timeout=10_000)
    dialog = win.dialog
    assert dialog.objectName() == "index-vectors"
    dialog.reason.setText("semantic recall misses them")
    dialog.yes.click()
    qtbot.waitUntil(lambda: win.progress.current is not None, timeout=10_000)
    return win.progress.current


def test_index_missing_vectors_with_progress(qtbot, open_window, unembedded: Path) -> None:
    win = open_window(unembedded)
    seen: list[tuple[int, int]] = []
    job = _started(qtbot, win)
    job.progressed.connect(lambda done, total, _text: seen.append((done, total)))
    assert win.progress.isVisible() and job.title == "Index missing vectors"
    with qtbot.waitSignal(win.ops.job_finished, timeout=60_000):
        pass
    assert seen[-1] == (len(TEXTS), len(TEXTS)) and len(seen) >= 2
    assert not win.progress.isVisible()
    assert "every fact now has a vector" in win.statusBar().currentMessage()
    with open_workspace(unembedded, read_only=True) as ws:
        assert missing_count(ws) == 0


def test_cancel_keeps_what_was_done_and_resumes(qtbot, open_window, unembedded: Path) -> None:
    win = open_window(unembedded)
    job = _started(qtbot, win, batch=10)  # small batches: Cancel lands while most are still to do
    with qtbot.waitSignal(win.ops.job_finished, timeout=60_000):
        qtbot.waitUntil(lambda: win.progress.bar.value() > 0, timeout=30_000)
        qtbot.mouseClick(win.progress.cancel, Qt.MouseButton.LeftButton)  # the person presses Cancel
    assert job.cancelled and "Stopped:" in win.statusBar().currentMessage()
    with open_workspace(unembedded, read_only=True) as ws:
        left = missing_count(ws)
    assert 0 < left < len(TEXTS)
    _started(qtbot, win)
    with qtbot.waitSignal(win.ops.job_finished, timeout=60_000):
        pass
    with open_workspace(unembedded, read_only=True) as ws:
        assert missing_count(ws) == 0


def test_read_only_disables_the_action(qtbot, open_window, unembedded: Path) -> None:
    win = open_window(unembedded, read_only=True)
    assert not win.act_index.isEnabled() and "read-only" in win.act_index.toolTip()
    win.act_index.trigger()
    qtbot.wait(50)
    assert win.progress.current is None and win.ops.flows == 0


def test_it_says_what_it_does_asks_why_and_one_undo_clears_it(qtbot, open_window, unembedded: Path) -> None:
    win = open_window(unembedded)
    win.act_index.trigger()
    qtbot.waitUntil(lambda: win.dialog is not None and win.dialog.isVisible(), timeout=10_000)
    dialog = win.dialog
    said = dialog.text.text() + " " + dialog.informative.text()
    assert f"{len(TEXTS):,} facts" in said and "semantic recall" in said and "Undo" in said
    dialog.reject()  # cancelled: nothing written
    qtbot.waitUntil(lambda: win.dialog is None and win.ops.flows == 0, timeout=10_000)
    with open_workspace(unembedded, read_only=True) as ws:
        assert missing_count(ws) == len(TEXTS) and Reviewer(ws, "x").history() == []
    _started(qtbot, win)
    with qtbot.waitSignal(win.ops.job_finished, timeout=60_000):
        pass
    with open_workspace(unembedded, read_only=True) as ws:
        assert missing_count(ws) == 0
    qtbot.waitUntil(lambda: "Undo" in win.act_undo.text() and "vectors" in win.act_undo.text(), timeout=10_000)
    assert win.act_undo.text() == f"&Undo “Index missing vectors of {len(TEXTS):,} facts”"
    history = win.show_tab("history")
    qtbot.waitUntil(lambda: history.model.rowCount() > 0 and win.ops.pending == 0, timeout=10_000)
    win.act_undo.trigger()
    qtbot.waitUntil(lambda: win.ops.pending == 0 and "Undone" in win.statusBar().currentMessage(), timeout=30_000)
    with open_workspace(unembedded, read_only=True) as ws:
        assert missing_count(ws) == len(TEXTS)
