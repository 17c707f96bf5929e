"""A guard that says when a thread that must never touch the database does.

The desk's UI thread must not wait on SQLite (a product process may hold the write
lock for seconds). ``forbid(thread_id)`` marks a thread; from then on every connection
checkout and every ``data_version`` read on that thread is recorded in ``violations``
and refused with ``UIThreadDatabaseAccess``. Tests turn it on around the flows they
drive; ``MEMORYDESK_GUARD_UI_THREAD=1`` turns it on for the UI thread of a running desk
(violations are then only logged).
"""

from __future__ import annotations

import logging
import threading
import traceback

from sqlalchemy import event
from sqlalchemy.pool import Pool

log = logging.getLogger("memorydesk.store.guard")

_forbidden: dict[int, bool] = {}  # thread id -> raise (True) or only log (False)
violations: list[str] = []
_lock = threading.Lock()


class UIThreadDatabaseAccess(RuntimeError):
    """A database access on a thread that must not wait on SQLite."""


def forbid(thread_id: int | None = None, *, raise_error: bool = True) -> None:
    with _lock:
        _forbidden[thread_id if thread_id is not None else threading.get_ident()] = raise_error


def allow(thread_id: int | None = None) -> None:
    with _lock:
        _forbidden.pop(thread_id if thread_id is not None else threading.get_ident(), None)


def check(what: str) -> None:
    """Called before a database access: record and refuse it on a forbidden thread."""
    if not _forbidden:
        return
    raise_error = _forbidden.get(threading.get_ident())
    if raise_error is None:
        return
    where = "".join(traceback.format_stack(limit=12)[:-1])
    with _lock:
        violations.append(f"{what} on a guarded thread\n{where}")
    if raise_error:
        raise UIThreadDatabaseAccess(f"{what} on the UI thread")
    log.error("database access on the UI thread: %s\n%s", what, where)


@event.listens_for(Pool, "checkout")
def _on_checkout(dbapi_connection, connection_record, connection_proxy) -> None:  # noqa: ANN001
    check("a connection checkout")
