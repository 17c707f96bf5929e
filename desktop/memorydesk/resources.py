"""Where the files shipped with Memory Desk live.

They are kept in ``resources/`` at the repository root, and the user guide's pages in ``docs/``. A
built wheel and the one-folder app carry a copy of both inside the package
(``memorydesk/_resources``, the guide's pages in its ``docs/``, put there by ``setup.py`` and the
PyInstaller spec); a checkout or an editable install uses the folders at the root. The
packaged copy wins when both exist.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _find() -> Path:
    packaged = _PACKAGE / "_resources"
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parents[1] / "resources"


#: The folder of shipped resources (see the module docstring).
RESOURCES_DIR: Path = _find()


def resource_path(name: str) -> Path:
    """The path of the shipped resource ``name`` (e.g. ``"tokenizer.json"``).

    The file is not required to exist; callers check and explain. ``name`` is
    relative to ``resources/`` and may not climb out of it.
    """
    relative = Path(name)
    if relative.is_absolute() or ".." in relative.parts:
        raise ValueError(f"resource name must be relative to resources/: {name!r}")
    return RESOURCES_DIR / relative


#: The pages of ``docs/`` Help ▸ Memory Desk Guide shows, in order: the user guide, then the command line.
GUIDE_PAGES = ("guide.md", "cli.md")


def doc_path(name: str) -> Path:
    """The shipped page ``docs/<name>`` (one of ``GUIDE_PAGES``)."""
    packaged = _PACKAGE / "_resources" / "docs" / name
    return packaged if packaged.is_file() else _PACKAGE.parents[1] / "docs" / name
