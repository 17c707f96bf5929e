"""The service modules the UI calls, looked up once (some land later than the UI).

The UI calls these and nothing else for memory: reads through ``memory.browse`` and
``memory.browse_detail``, searches through ``memory.search``, writes through the
Reviewer, the dispatch text through ``memory.preamble``.
"""

from __future__ import annotations

import importlib
import logging
from types import ModuleType
from typing import Any

from memorydesk.store.workspace import Workspace

log = logging.getLogger("memorydesk.ui")


def _module(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if exc.name != name:
            log.warning("%s could not be imported", name, exc_info=True)
        return None


def reviewer_missing() -> str | None:
    """Why writes are unavailable in this build, or None when they are available."""
    mod = _module("memorydesk.memory.reviewer")
    if mod is None or not hasattr(mod, "Reviewer"):
        return "the reviewer service is not part of this build"
    return None


def reviewer(ws: Workspace, actor: str) -> Any:
    mod = importlib.import_module("memorydesk.memory.reviewer")
    return mod.Reviewer(ws, actor)


def preamble() -> ModuleType | None:
    mod = _module("memorydesk.memory.preamble")
    return mod if mod is not None and hasattr(mod, "build_preamble") else None
