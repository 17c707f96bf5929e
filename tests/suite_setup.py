"""The suite's set-up, kept apart from the fixtures (tests/conftest.py takes it in): a
deadline for every test, a profile of its own for the whole run, Ctrl+C for the programs it starts."""

from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

import pytest

#: a test's deadline (pytest-timeout's ``timeout`` in pyproject.toml) times this for a ``slow`` one
SLOW_FACTOR = 6
PROFILE_VARIABLES = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest work starts first, and a ``slow`` test gets ``SLOW_FACTOR`` times the
    per-test deadline (unless it names its own)."""
    items[:] = longest_first(items)
    deadline = float(config.getini("timeout") or 0)
    if not deadline:
        return
    for item in items:
        if item.get_closest_marker("slow") is not None and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(deadline * SLOW_FACTOR))


def longest_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """Modules whose tests run one after another on one worker (an ``xdist_group``) first, then
    modules with ``slow`` tests, then the rest, each module whole and in its own order: the
    workers begin with the long chains instead of ending on them, and a module's fixtures are
    still made once per worker."""
    rank: dict[str, int] = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        here = 0 if item.get_closest_marker("xdist_group") else 1 if item.get_closest_marker("slow") else 2
        rank[module] = min(rank.get(module, 2), here)
    return sorted(items, key=lambda item: rank[item.nodeid.split("::", 1)[0]])


@pytest.fixture(autouse=True, scope="session")
def _private_profile(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The person's profile is never touched: HOME and the XDG folders (settings, data, cache,
    the crash and desk logs) point into a temporary folder for this process and every program
    a test starts (``memory-desk shot``, the command line)."""
    home = tmp_path_factory.mktemp("home")
    os.environ["HOME"] = str(home)
    for name, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                      ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")):
        folder = home / sub
        folder.mkdir(parents=True, exist_ok=True)
        os.environ[name] = str(folder)
    # the review's compiled secret rules and injection examples (derived from the installed packages, never
    # from a person's data) are kept across test runs on this machine: compiling them takes ~10 s
    os.environ.setdefault("MEMORY_DESK_RULE_CACHE", str(Path(tempfile.gettempdir()) / "memorydesk-test-rules"))


def pytest_configure(config: pytest.Config) -> None:
    """Programs a test starts can be stopped with Ctrl+C (SIGINT) as from a terminal, however the
    suite was started: a shell running it in the background without job control ignores SIGINT,
    and an ignored signal stays ignored in every child."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
