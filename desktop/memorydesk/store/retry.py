"""One write transaction that waits out another writer instead of failing."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import Connection

from memorydesk.core.errors import WorkspaceBusy
from memorydesk.store.workspace import Workspace

log = logging.getLogger("memorydesk.store")
T = TypeVar("T")
RETRIES = 6


def with_retry(ws: Workspace, work: Callable[[Connection], T]) -> T:
    """Run ``work`` in one write transaction, retrying when another writer holds the lock.

    The product's process may hold the write lock; the busy timeout waits first, then a
    few retries with a short pause, so a person never sees "database is locked".
    """
    for attempt in range(RETRIES):
        try:
            with ws.write() as conn:
                return work(conn)
        except WorkspaceBusy:
            if attempt == RETRIES - 1:
                raise
            log.info("workspace busy, retrying (%d)", attempt + 1)
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")
