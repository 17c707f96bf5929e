"""A workspace with a week of the demo's lineage receipts, and waiting for the Lineage tab:
shared by the Lineage tab's tests."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import desk_sample
import pytest

from memorydesk.demo import lineage as demo
from memorydesk.lineage import receipt_store
from memorydesk.store import open_workspace

END = datetime.now(UTC).replace(second=0, microsecond=0)


@pytest.fixture(scope="module")
def receipts() -> list:
    return demo.history(7, END)


@pytest.fixture
def lineage_path(tmp_path: Path, receipts) -> Path:
    path = desk_sample.build(tmp_path / "lineage.db")
    with open_workspace(path) as ws:
        receipt_store.ingest(ws, receipts)
    return path


def ready(qtbot, win, timeout: int = 30000):
    tab = win.show_tab("lineage")
    qtbot.waitUntil(lambda: tab.tl is not None and not tab.busy() and win.ops.pending == 0, timeout=timeout)
    return tab


def settle(qtbot, win, tab, timeout: int = 20000) -> None:
    qtbot.waitUntil(lambda: not tab.busy() and win.ops.pending == 0 and win.ops.flows == 0, timeout=timeout)
