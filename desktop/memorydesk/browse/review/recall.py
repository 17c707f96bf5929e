"""The review's recall checks on the recall audit's fast path.

A duplicate cluster's MMR check and a correction's ranks are hybrid searches for facts'
topics, as the recall audit makes them (``search.audit.Searcher``). The audit runs them on
search's copies of the file (``search.copies.follow``) and readies the vector voice of its coming
queries a batch at a time (``Searcher.prepare``); so does the scan: ``start`` begins the
copies' build when the scan begins (on search's own thread, while the text kinds are
scanned), ``wait`` waits for it before the first check, and ``ahead`` readies each batch.
The searches are the agent's own either way: the copies only make them faster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from memorydesk.search.ahead import AHEAD
from memorydesk.search.audit import Searcher
from memorydesk.search.copies import follow
from memorydesk.search.copies.ready import wait_for_copies
from memorydesk.store import Workspace

T = TypeVar("T")
WAITING = "waiting for search's copies of the file (once per open file)"


def start(ws: Workspace) -> None:
    """Begin building search's copies of ``ws`` off this thread, unless they are held or on the way."""
    follow.prepare(ws)


def wait(ws: Workspace, say: Callable[[str, int, int], None], cancelled: Callable[[], bool], searches: int) -> bool:
    """Wait for the copies when they are being built, or build them first for ``searches`` searches
    or more (the recall audit's threshold); True when it waited (a failed build leaves the
    searches on the product's SQL)."""
    return wait_for_copies(ws, lambda _d, _t, _text: say(WAITING, 0, 0), cancelled, searches)


def ahead(searcher: Searcher, items: Sequence[T], queries: Callable[[T], Iterable[str]]) -> Iterator[T]:
    """``items`` in order, the queries of each batch of about ``AHEAD`` distinct queries readied
    (embedded, their nearest vectors worked out in one pass) before the first item of the batch."""
    ready = 0
    for n, item in enumerate(items):
        if n == ready:
            batch: dict[str, None] = {}
            while ready < len(items) and len(batch) < AHEAD:
                batch.update(dict.fromkeys(queries(items[ready])))
                ready += 1
            searcher.prepare(batch)
        yield item
