"""Where the files shipped with Memory Desk live.

The ``resources/`` folder sits at the repository root, two levels above this
package (``desktop/memorydesk/``). The project is installed editable, so the
folder is found relative to this file rather than through package data.
"""

from __future__ import annotations

from pathlib import Path

#: The ``resources/`` folder at the repository root.
RESOURCES_DIR: Path = Path(__file__).resolve().parents[2] / "resources"


def resource_path(name: str) -> Path:
    """The path of the shipped resource ``name`` (e.g. ``"tokenizer.json"``).

    The file is not required to exist; callers check and explain. ``name`` is
    relative to ``resources/`` and may not climb out of it.
    """
    relative = Path(name)
    if relative.is_absolute() or ".." in relative.parts:
        raise ValueError(f"resource name must be relative to resources/: {name!r}")
    return RESOURCES_DIR / relative
