"""Memory Desk: review and repair the memory of AI agents.

The version is written once, in ``pyproject.toml``; an installed Memory Desk reads it
from its package metadata. The one-folder app carries no metadata, so its build
writes the same number into ``memorydesk/_resources/VERSION``.
"""

from importlib import metadata as _metadata
from pathlib import Path as _Path


def _version() -> str:
    try:
        return _metadata.version("memory-desk")
    except _metadata.PackageNotFoundError:
        frozen = _Path(__file__).resolve().parent / "_resources" / "VERSION"
        return frozen.read_text(encoding="utf-8").strip() if frozen.is_file() else "0+unknown"


__version__ = _version()
SOURCE_VERSION = f"memorydesk {__version__}"
