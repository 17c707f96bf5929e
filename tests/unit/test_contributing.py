"""CONTRIBUTING.md's recipes stay true of the code: every file, folder and test they name
exists, every ``layer.module.Name`` they name is defined there, and the one list a recipe
keeps by hand (the ``shot`` command's tabs) is the window's list."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import memorydesk
from memorydesk.commands import shot
from memorydesk.ui.shell import tabs

PACKAGE = Path(memorydesk.__file__).parent
ROOT = PACKAGE.parents[1]
#: the first part of a dotted name of ours (the layers, the subcommands, the command line)
TOPS = ("core", "store", "embedding", "memory", "search", "browse", "lineage", "demo", "ui", "commands", "cli")


def _recipes() -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    found = re.search(r"^## Recipes\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert found, "CONTRIBUTING.md has no Recipes section"
    return found.group(1)


def _named() -> list[str]:
    """Every code span of the recipes, except those with a placeholder (``<name>``, ``…``)."""
    return [s for s in re.findall(r"`([^`\n]+)`", _recipes()) if not re.search(r"[<>…*]", s)]


def _file(path: str) -> Path | None:
    """``path`` as the recipes write it: from the repository's root, or inside the package."""
    for base in (ROOT, PACKAGE):
        if (base / path).exists():
            return base / path
    return None


def _defines(tree: ast.Module, names: list[str]) -> bool:
    """``tree`` defines ``names[0]`` at its top level (and ``names[1]`` inside it, for a class)."""
    body: list[ast.stmt] = tree.body
    for name in names:
        node = next((n for n in body if _binds(n, name)), None)
        if node is None:
            return False
        body = getattr(node, "body", [])
    return True


def _binds(node: ast.stmt, name: str) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(name in {n.id for n in ast.walk(t) if isinstance(n, ast.Name)} for t in targets)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name) == name for a in node.names)
    return False


def test_every_file_and_test_the_recipes_name_exists() -> None:
    paths = [s for s in _named() if "/" in s and " " not in s and not s.startswith("memory-desk")]
    assert len(paths) > 40  # the check reads the recipes (a renamed section would check nothing)
    missing = []
    for span in paths:
        path, *tests = span.split("::")
        where = _file(path)
        if where is None:
            missing.append(span)
        elif tests:
            if not _defines(ast.parse(where.read_text(encoding="utf-8")), tests):
                missing.append(span)
    assert missing == []


def test_every_module_and_name_the_recipes_name_is_defined() -> None:
    dotted = [s for s in _named()
              if re.fullmatch(rf"(?:{'|'.join(TOPS)})(?:\.\w+)+", s) and not re.search(r"\.(py|md)$", s)]
    assert len(dotted) > 5
    missing = []
    for name in dotted:
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):  # the longest prefix that is a module
            module = PACKAGE.joinpath(*parts[:cut])
            source = module.with_suffix(".py") if module.with_suffix(".py").is_file() else module / "__init__.py"
            if source.is_file():
                if cut < len(parts) and not _defines(ast.parse(source.read_text(encoding="utf-8")), parts[cut:]):
                    missing.append(name)
                break
        else:
            missing.append(name)
    assert missing == []


def test_the_check_finds_what_is_not_there() -> None:
    tree = ast.parse("class A:\n    b = 1\ndef c(): ...\n")
    assert _defines(tree, ["A", "b"]) and _defines(tree, ["c"])
    assert not _defines(tree, ["A", "c"]) and not _defines(tree, ["d"])
    assert _file("ui/shell/tabs.py") and _file("tests/unit/test_contributing.py") and not _file("ui/nowhere.py")


def test_the_shot_command_offers_every_tab_of_the_window() -> None:
    assert shot.TABS == tabs.tab_names()
