"""A bug our code logs fails the test that caused it (after qutebrowser's ``tests/helpers/logfail.py``).

Every record at ERROR or worse from a ``memorydesk`` logger, on any thread, is kept while a
test runs (its set-up, its call, its teardown). A test that logged one fails when its call
ends (its teardown errs for one logged while tearing down), naming each message. A test that
makes our code log an error on purpose says so: ``@pytest.mark.logs_error("pattern")``, and
only records whose message matches a pattern it names are let through.
"""

from __future__ import annotations

import logging
import re
import threading

import pytest

MARK = "logs_error"


class LogFailHandler(logging.Handler):
    """Keeps ERROR and worse from our loggers (``memorydesk`` and below)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []
        self.guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == "memorydesk" or record.name.startswith("memorydesk."):
            with self.guard:
                self.records.append(record)

    def take(self) -> list[logging.LogRecord]:
        with self.guard:
            taken, self.records = self.records, []
        return taken


HANDLER = LogFailHandler()


def unexpected(item: pytest.Item, records: list[logging.LogRecord]) -> list[str]:
    """The messages of ``records`` no ``logs_error`` mark of ``item`` expects."""
    allowed = [re.compile(p) for mark in item.iter_markers(MARK) for p in mark.args]
    return [f"{r.name} {r.levelname}: {r.getMessage()}" for r in records
            if not any(p.search(r.getMessage()) for p in allowed)]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARK}(*patterns): the test makes our code log these errors on purpose")
    logging.getLogger().addHandler(HANDLER)


def pytest_unconfigure(config: pytest.Config) -> None:
    logging.getLogger().removeHandler(HANDLER)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    HANDLER.take()  # what an earlier test's threads logged after it ended is not this test's
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    try:
        result = yield
    except BaseException:
        HANDLER.take()  # the test failed already, and says why
        raise
    found = unexpected(item, HANDLER.take())
    if found:
        pytest.fail("our code logged an error: " + " | ".join(found), pytrace=False)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    result = yield
    found = unexpected(item, HANDLER.take())
    if found:
        pytest.fail("our code logged an error while the test was torn down: " + " | ".join(found), pytrace=False)
    return result
