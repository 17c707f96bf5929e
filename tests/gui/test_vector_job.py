"""Tools ▸ Index Missing Vectors on real widgets: progress, cancel and resume, read-only."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

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
    with open_workspace(path) as ws:
        svc = MemoryService(ws, embedder=False)  # as a product without its model writes them
        for i, text in enumerate(TEXTS):
            svc.propose_fact(domain="ops", topic=f"step-{i}", content=text)
    return path


def test_index_missing_vectors_with_progress(qtbot, open_window, unembedded: Path) -> None:
    win = open_window(unembedded)
    seen: list[tuple[int, int]] = []
    job = win.index_vectors()
    job.progressed.connect(lambda done, total: seen.append((done, total)))  # a list append: any thread
    with qtbot.waitSignal(job.finished, timeout=60_000):
        pass
    assert job.last.done == len(TEXTS) and not job.last.cancelled
    assert seen[-1] == (len(TEXTS), len(TEXTS)) and len(seen) >= 2
    assert missing_count(win.ws) == 0
    assert "every fact now has a vector" in win.statusBar().currentMessage()


def test_cancel_keeps_what_was_done_and_resumes(qtbot, open_window, unembedded: Path) -> None:
    win = open_window(unembedded)
    job = win.index_vectors(batch=10)  # small batches: Cancel lands while most are still to do
    with qtbot.waitSignal(job.finished, timeout=60_000):
        qtbot.waitUntil(lambda: job.dialog.value() > 0, timeout=30_000)
        qtbot.mouseClick(job.dialog.findChild(QPushButton), Qt.MouseButton.LeftButton)  # the person presses Cancel
    assert job.last.cancelled and 0 < job.last.done < len(TEXTS)
    assert missing_count(win.ws) == len(TEXTS) - job.last.done
    again = win.index_vectors()
    with qtbot.waitSignal(again.finished, timeout=60_000):
        pass
    assert missing_count(win.ws) == 0


def test_read_only_disables_the_action(open_window, unembedded: Path) -> None:
    win = open_window(unembedded, read_only=True)
    assert not win.act_index.isEnabled() and "read-only" in win.act_index.toolTip()
    assert win.index_vectors() is None
