"""The rules docs/architecture.md states that import-linter cannot check by itself:

- ``browse/`` (read models) and ``search/`` (what an agent gets) write nothing to the file:
  every write of theirs lives in ``memory/``. A module of theirs that opens a write
  transaction, builds an INSERT, UPDATE or DELETE, or sends SQL that writes outside its
  connection's own ``temp`` schema fails here, naming the line.
- Modules loaded by name (the tabs, the subcommands, the window's warm-up) obey the layers
  too: import-linter only sees ``import`` statements, so each name is resolved here and its
  layer checked against the module that loads it, and a new place that loads modules by
  name fails until it is listed here.
- No loop of imports between files of ours: no file imports, directly or round a loop, a file
  that imports it — imports inside functions and under ``TYPE_CHECKING`` count.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

import memorydesk
from memorydesk import cli
from memorydesk.ui.shell import tabs

PACKAGE = Path(memorydesk.__file__).parent
ROOT = PACKAGE.parents[1]

# --- browse/ and search/ write nothing ------------------------------------------------------------

#: calls that open a write transaction on the workspace (or mark one as ours)
WRITE_CALLS = frozenset({"write", "with_retry", "own_commits", "adopt"})
#: SQLAlchemy's DML builders, called on a table with no arguments (``facts.update()``)
DML = frozenset({"insert", "update", "delete"})
WRITE_SQL = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b", re.IGNORECASE)
TEMP_SQL = re.compile(r"^\s*(INSERT\s+INTO|CREATE\s+(VIRTUAL\s+)?TABLE(\s+IF\s+NOT\s+EXISTS)?|DROP\s+TABLE"
                      r"(\s+IF\s+EXISTS)?|DELETE\s+FROM)\s+temp\.", re.IGNORECASE)
#: modules whose raw SQL writes only to a database of their own, and why
OWN_DATABASE = {
    "search/bm25_check.py": "its scratch index is an in-memory database it opens and closes itself",
}


def _sql_text(node: ast.AST) -> str | None:
    """The leading text of a string or f-string (enough to see its verb and its table)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "x" for v in node.values)
    return None


def writes_in(source: str, name: str = "<module>") -> list[str]:
    """Where ``source`` writes to the workspace: ``name:line: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in WRITE_CALLS:
                found.append(f"{name}:{node.lineno}: {called}()")
            elif called in DML and isinstance(func, ast.Attribute) and not node.args and not node.keywords:
                found.append(f"{name}:{node.lineno}: .{called}() builds a statement that writes")
            elif called in ("execute", "exec_driver_sql", "executemany", "executescript") and node.args:
                text = _sql_text(node.args[0])
                if text is not None and WRITE_SQL.match(text) and not TEMP_SQL.match(text):
                    found.append(f"{name}:{node.lineno}: SQL that writes: {text.strip()[:40]!r}")
    return found


def test_the_check_sees_each_way_of_writing() -> None:
    """The checker itself: each way a module could write is seen, the allowed ones are not."""
    assert len(writes_in("with ws.write() as conn: pass")) == 1
    assert len(writes_in("with_retry(ws, work)")) == 1
    assert len(writes_in("conn.execute(facts.update().where(x).values(y=1))")) == 1
    assert len(writes_in("conn.execute(RUNS.insert().values(**row))")) == 1
    assert len(writes_in("conn.exec_driver_sql(f'DELETE FROM {facts} WHERE id = ?', (1,))")) == 1
    assert len(writes_in("raw.execute('UPDATE memory_facts_table SET content = 1')")) == 1
    assert writes_in("raw.execute(f'INSERT INTO temp.{t}({t}) VALUES (1)')") == []  # its own connection's temp
    assert writes_in("raw.execute('CREATE VIRTUAL TABLE IF NOT EXISTS temp.m USING fts5(a)')") == []
    assert writes_in("notes.insert(0, 'a sentence')") == []  # a list's insert
    assert writes_in("conn.execute(select(facts).where(facts.c.id == 1))") == []


@pytest.mark.parametrize("layer", ["browse", "search"])
def test_browse_and_search_write_nothing(layer: str) -> None:
    found = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.removeprefix(f"{layer}/") in OWN_DATABASE or rel in OWN_DATABASE:
            continue
        found += writes_in(path.read_text(encoding="utf-8"), rel)
    assert found == [], f"{layer}/ may not write (move the write to memory/): " + "; ".join(found)


def test_the_modules_allowed_their_own_database_still_exist() -> None:
    assert all((PACKAGE / rel).is_file() for rel in OWN_DATABASE)


# --- modules loaded by name obey the layers ---------------------------------------------------------

def _order() -> list[str]:
    """The packages from the top down: the command line, its subcommands, then the contract's layers."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(c["layers"] for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    return ["memorydesk.cli", "memorydesk.commands", *layers]


def _height(module: str) -> int:
    """How far down ``module``'s package sits (0: the command line)."""
    order = _order()
    place = next((i for i, p in enumerate(order) if module == p or module.startswith(p + ".")), None)
    assert place is not None, f"{module} is in no layer of the import contracts"
    return place


#: every module of ours that loads modules by name, and the names it loads
NAMED: dict[str, list[str]] = {
    "memorydesk.cli": [f"memorydesk.commands.{cli._MODULES.get(n, n)}" for n in cli.SUBCOMMANDS],
    "memorydesk.ui.shell.tabs": [s.module for s in tabs.SPECS],
    "memorydesk.ui.shell.startup": [s.module for s in tabs.SPECS],  # the warm-up loads the tabs' modules
}


def _loads_ours_by_name(source: str) -> bool:
    """Whether ``source`` calls ``import_module``/``__import__`` with a name that is, or may be, ours
    (a name written out that starts with another package's, ``stdnum.…``, is not)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in ("import_module", "__import__"):
                text = _sql_text(node.args[0])
                if text is None or text.startswith("memorydesk"):
                    return True
    return False


def test_every_module_that_loads_by_name_is_listed() -> None:
    loaders = {"memorydesk." + path.relative_to(PACKAGE).with_suffix("").as_posix().replace("/", ".")
               for path in PACKAGE.rglob("*.py") if _loads_ours_by_name(path.read_text(encoding="utf-8"))}
    assert loaders == set(NAMED)
    assert not _loads_ours_by_name("importlib.import_module(f'stdnum.{name}')")  # another package's modules
    assert _loads_ours_by_name("importlib.import_module(spec.module)")  # a name it cannot read: counted


@pytest.mark.parametrize("loader", list(NAMED))
def test_a_module_loaded_by_name_exists_and_sits_at_or_below_its_loader(loader: str) -> None:
    for name in NAMED[loader]:
        assert importlib.util.find_spec(name) is not None, f"{loader} names {name}, which does not exist"
        assert _height(name) >= _height(loader), f"{loader} loads {name}, a layer above it"


def test_the_layer_check_refuses_an_upward_name() -> None:
    assert _height("memorydesk.ui.facts.tab") < _height("memorydesk.browse.facts")  # ui sits above browse
    assert _height("memorydesk.commands.check") < _height("memorydesk.ui.facts.tab")
    with pytest.raises(AssertionError, match="in no layer"):
        _height("memorydesk.nowhere")


# --- no loop of imports between files of ours --------------------------------------------------------

def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every module of ours and the modules of ours it imports, wherever the import is written."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                for alias in node.names:
                    target = f"{base}.{alias.name}" if f"{base}.{alias.name}" in paths else base
                    if target in paths and target != name:
                        graph[name].add(target)
            elif isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name in paths and a.name != name}
    return graph


def loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that reach each other (strongly connected, more than one)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        order[v] = low[v] = len(order)
        stack.append(v)
        for w in graph[v]:
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in order:
            visit(v)
    return found


def test_the_loop_finder_finds_a_loop() -> None:
    assert loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert loops({"a": {"b"}, "b": set()}) == []


def test_no_two_files_of_ours_import_each_other() -> None:
    graph = import_graph()
    assert len(graph) > 300 and "memorydesk.memory.reviewer" in graph["memorydesk.ui.session"]  # it sees them all
    assert loops(graph) == []
