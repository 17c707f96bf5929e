"""The service modules the UI calls, looked up once (some land later than the UI).

The UI calls these and nothing else for memory: reads through ``memory.browse``,
writes through the Reviewer, the dispatch text through ``memory.preamble``.
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


def search_available() -> bool:
    mod = _module("memorydesk.memory.search")
    return mod is not None and hasattr(mod, "search")


def search_ids(ws: Workspace, text: str, limit: int = 200) -> tuple[list[str] | None, str]:
    """(ids the product's keyword search returns for ``text``, "label|explanation"), or
    (None, "label|why") when the desk filters by substring instead."""
    mod = _module("memorydesk.memory.search")
    fn = getattr(mod, "search", None) if mod is not None else None
    if fn is None:
        return None, "substring filter|search is not part of this build"
    result = fn(ws, text, mode="keyword", limit=limit)
    if getattr(result, "match", "") is None:
        return None, ("substring filter|the product's keyword search finds no terms in this text "
                      "(it keeps only a-z and 0-9), so the desk filters by substring instead")
    return list(result.ids), (f"keyword search · {len(result.ids)} hits|the product's keyword search "
                              f"(FTS5 match {result.match!r}); its best {limit} matches are listed")
