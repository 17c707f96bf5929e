"""Build hook: wheels carry ``resources/`` inside the package, as ``memorydesk/_resources``.

Everything else is declared in ``pyproject.toml``. An editable install needs no copy:
``memorydesk.resources`` finds ``resources/`` in the checkout.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RESOURCES = Path(__file__).resolve().parent / "resources"


class BuildWithResources(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "memorydesk" / "_resources"
        shutil.copytree(RESOURCES, target, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithResources})
