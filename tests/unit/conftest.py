"""Fixtures the unit tests share: a fresh workspace and the agent-side service on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memorydesk.memory.service import MemoryService
from memorydesk.store import Workspace, open_workspace


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    """A new, empty workspace file opened for writing (files that need another override this)."""
    workspace = open_workspace(tmp_path / "ws.db", create=True)
    yield workspace
    workspace.close()


@pytest.fixture
def svc(ws: Workspace) -> MemoryService:
    """The agent side on ``ws``, writing facts without vectors (as a product without its model)."""
    return MemoryService(ws, embedder=False)
