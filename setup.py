"""Build hook: wheels carry ``resources/`` inside the package, as ``memorydesk/_resources``, and the
user guide's pages (``docs/guide.md``, ``docs/cli.md``: Help ▸ Memory Desk Guide) in its ``docs/``.

Everything else is declared in ``pyproject.toml``. An editable install needs no copy:
``memorydesk.resources`` finds ``resources/`` in the checkout.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
RESOURCES = ROOT / "resources"
DOCS = ROOT / "docs"
GUIDE_PAGES = ("guide.md", "cli.md")  # memorydesk.resources.GUIDE_PAGES


class BuildWithResources(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "memorydesk" / "_resources"
        shutil.copytree(RESOURCES, target, dirs_exist_ok=True)
        (target / "docs").mkdir(exist_ok=True)
        for page in GUIDE_PAGES:
            shutil.copy2(DOCS / page, target / "docs" / page)


setup(cmdclass={"build_py": BuildWithResources})
