"""Memory Desk: review and repair the memory of AI agents.

The version is written once, in ``pyproject.toml``; an installed Memory Desk (a wheel,
an editable install, the one-folder app) reads it from its package metadata, the first
time it is asked for (``__version__``, ``SOURCE_VERSION``): reading the metadata costs a
one-shot command a few hundredths of a second it mostly does not need.
"""

import time as _time

#: when this process started running Memory Desk (``time.perf_counter``): start-up is measured from here
STARTED_AT = _time.perf_counter()


def __getattr__(name: str) -> str:
    if name not in ("__version__", "SOURCE_VERSION"):
        raise AttributeError(f"module 'memorydesk' has no attribute {name!r}")
    from importlib import metadata

    try:
        version = metadata.version("memory-desk")
    except metadata.PackageNotFoundError:  # a bare checkout on PYTHONPATH, never installed
        version = "0+unknown"
    globals().update(__version__=version, SOURCE_VERSION=f"memorydesk {version}")
    return globals()[name]
