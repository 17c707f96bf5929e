"""Memory Desk: review and repair the memory of AI agents.

The version is written once, in ``pyproject.toml``; an installed Memory Desk (a wheel,
an editable install, the one-folder app) reads it from its package metadata.
"""

import time as _time
from importlib import metadata as _metadata

#: when this process started running Memory Desk (``time.perf_counter``): start-up is measured from here
STARTED_AT = _time.perf_counter()

try:
    __version__ = _metadata.version("memory-desk")
except _metadata.PackageNotFoundError:  # a bare checkout on PYTHONPATH, never installed
    __version__ = "0+unknown"
SOURCE_VERSION = f"memorydesk {__version__}"
