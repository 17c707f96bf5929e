"""The window first, the rest after: when ``memory-desk WORKSPACE`` has painted its first Facts
rows, none of what that paint does not need has been imported (``-X importtime`` and the
process's own module list at that moment), and the rest arrives afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import DESK_UNTIL

#: what the first paint must not wait for: the model (and numpy, which the embedding module
#: imports), the ORM, the other tabs, the graph's plotting and layout stack, search's copies, the
#: demo builder, the reviewer
LATER = ("onnxruntime", "tokenizers", "numpy", "memorydesk.embedding", "sqlalchemy.orm", "pyqtgraph", "networkx",
         "memorydesk.ui.graph",
         "memorydesk.ui.lineage", "memorydesk.ui.conflicts", "memorydesk.ui.grants", "memorydesk.ui.policies",
         "memorydesk.ui.history", "memorydesk.ui.review", "memorydesk.search.copies.bundle", "memorydesk.search.agent",
         "memorydesk.demo", "memorydesk.memory.reviewer", "memorydesk.lineage")


def _launch(wait: str, workspace: Path, home: Path) -> tuple[str, set[str]]:
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "DISPLAY")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               XDG_STATE_HOME=str(home / "state"), QT_QPA_PLATFORM="offscreen")
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", DESK_UNTIL, wait, str(workspace),
                             "--read-only"], capture_output=True, text=True, timeout=240, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    said, listed = result.stdout.splitlines()[:2]
    return said, set(listed.removeprefix("MODULES ").split())


def later(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in LATER))


@pytest.mark.slow
def test_the_first_rows_are_painted_before_anything_they_do_not_need_is_loaded(product_db: Path,
                                                                                 tmp_path: Path) -> None:
    said, modules = _launch("paint", product_db, tmp_path)
    assert said.startswith("first Facts rows painted") and said.endswith("s after start")
    assert "memorydesk.ui.facts.tab" in modules and "PySide6.QtWidgets" in modules  # the window is up
    assert later(modules) == []


@pytest.mark.slow
def test_the_warm_up_then_loads_every_tab_the_model_and_search(product_db: Path, tmp_path: Path) -> None:
    said, modules = _launch("warm", product_db, tmp_path)
    assert said.startswith("warm-up done")
    for module in ("memorydesk.ui.graph.tab", "memorydesk.ui.lineage.tab", "memorydesk.ui.review.tab",
                   "memorydesk.search.copies.bundle", "onnxruntime"):
        assert module in modules, module
