"""The overview's layouts kept per file version (they run on the tab's own thread,
``DeskTab.compute``, with progress and Cancel), so reopening the tab, a filter or a refresh
after nothing changed lays nothing out again."""

from __future__ import annotations

from typing import Any

#: (workspace object id, file version) -> (ClusterLayout, pictures.Overview); a few versions are kept
_CACHE: dict[tuple[int, int], Any] = {}
_CACHE_SIZE = 4


def cached_layout(ws: Any, version: int | None) -> Any:
    return _CACHE.get((id(ws), version)) if version is not None else None


def keep_layout(ws: Any, version: int | None, layout: Any) -> None:
    if version is None:
        return
    _CACHE[(id(ws), version)] = layout
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
