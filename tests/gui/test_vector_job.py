"""Tools ▸ Index Missing Vectors on real widgets: progress, cancel and resume, read-only."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from memorydesk.embedding.embedder import get_embedder
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
    """Start Tools ▸ Index Missing Vectors; its Job, once it shows in the status bar."""
    if batch is None:
        win.act_index.trigger()
    else:
        win.ops.start(win.index_vectors(batch=batch))
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
